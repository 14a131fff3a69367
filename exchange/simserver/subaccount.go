package simserver

import (
	"github.com/spotbot/spotbot/exchange"
)

// routeSub installs the handlers of the sub-account endpoints. The
// protocol layer lets only main-account keys reach them (the table marks
// them MainOnly); the simulator refuses any account but the master too.
func (s *Server) routeSub() {
	h := s.handlers
	h[exchange.EpCreateSubAccount] = s.createSubAccount
	h[exchange.EpListSubAccounts] = s.listSubAccounts
	h[exchange.EpCreateSubAPIKey] = s.createSubAPIKey
	h[exchange.EpListSubAPIKeys] = s.listSubAPIKeys
	h[exchange.EpDeleteSubAPIKey] = s.deleteSubAPIKey
	h[exchange.EpSubUniversalTransfer] = s.subUniversalTransfer
	h[exchange.EpSubUniversalTransferHistory] = s.subUniversalTransferHistory
	h[exchange.EpSubAccountAssets] = s.subAccountAssets
}

func (s *Server) createSubAccount(r *request) (any, *apiError) {
	sa, err := s.port(r).CreateSubAccount(r.p.str("subAccount"), r.p.str("note"))
	if err != nil {
		return nil, simErr(err)
	}
	return struct {
		SubAccount string `json:"subAccount"`
		Note       string `json:"note"`
	}{sa.Name, sa.Note}, nil
}

func (s *Server) listSubAccounts(r *request) (any, *apiError) {
	req := exchange.SubAccountsRequest{SubAccount: r.p.str("subAccount")}
	frozen, set, aerr := r.p.bool("isFreeze")
	if aerr != nil {
		return nil, aerr
	}
	if set {
		req.IsFreeze = &frozen
	}
	if req.Page, aerr = intParam(r.p, "page"); aerr != nil {
		return nil, aerr
	}
	if req.Limit, aerr = intParam(r.p, "limit"); aerr != nil {
		return nil, aerr
	}
	subs, err := s.port(r).SubAccounts(req)
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]subAccountWire, 0, len(subs))
	for _, sa := range subs {
		out = append(out, subAccountWire{SubAccount: sa.Name, Note: sa.Note, IsFreeze: sa.IsFreeze, CreateTime: ms(sa.CreateTime), UID: sa.UID})
	}
	return struct {
		SubAccounts []subAccountWire `json:"subAccounts"`
	}{out}, nil
}

// createSubAPIKey creates the key in the simulator and makes it a key of
// this server at once, acting for the sub-account, with the permissions
// and addresses it was given.
func (s *Server) createSubAPIKey(r *request) (any, *apiError) {
	var perms []exchange.Permission
	for _, p := range commaList(r.p.str("permissions")) {
		perms = append(perms, exchange.Permission(p))
	}
	k, secret, err := s.port(r).CreateSubAPIKey(r.p.str("subAccount"), r.p.str("note"), perms, commaList(r.p.str("ip")))
	if err != nil {
		return nil, simErr(err)
	}
	if err := s.AddKey(Key{APIKey: k.APIKey, Secret: secret, UID: k.UID, Permissions: k.Permissions, IPs: k.IPs}); err != nil {
		return nil, &apiError{status: 500, code: exchange.CodeInternalError, msg: err.Error()}
	}
	w := toSubKeyWire(k, true)
	w.SecretKey = secret
	return w, nil
}

func (s *Server) listSubAPIKeys(r *request) (any, *apiError) {
	keys, err := s.port(r).SubAPIKeys(r.p.str("subAccount"))
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]subKeyWire, 0, len(keys))
	for _, k := range keys {
		out = append(out, toSubKeyWire(k, false))
	}
	return struct {
		SubAccount []subKeyWire `json:"subAccount"`
	}{out}, nil
}

// deleteSubAPIKey deletes the key in the simulator and from this server.
func (s *Server) deleteSubAPIKey(r *request) (any, *apiError) {
	name, key := r.p.str("subAccount"), r.p.str("apiKey")
	if err := s.port(r).DeleteSubAPIKey(name, key); err != nil {
		return nil, simErr(err)
	}
	s.RemoveKey(key)
	return struct {
		SubAccount string `json:"subAccount"`
	}{name}, nil
}

func (s *Server) subUniversalTransfer(r *request) (any, *apiError) {
	from, to, aerr := accountTypes(r.p)
	if aerr != nil {
		return nil, aerr
	}
	amt, aerr := amount(r.p)
	if aerr != nil {
		return nil, aerr
	}
	id, err := s.port(r).SubUniversalTransfer(exchange.SubTransferRequest{ClientTranID: r.p.str("clientTranId"),
		FromAccount: r.p.str("fromAccount"), ToAccount: r.p.str("toAccount"), FromAccountType: from, ToAccountType: to,
		Asset: r.p.str("asset"), Amount: amt})
	if err != nil {
		return nil, simErr(err)
	}
	return tranIDWire{id}, nil
}

func (s *Server) subUniversalTransferHistory(r *request) (any, *apiError) {
	from, to, aerr := accountTypes(r.p)
	if aerr != nil {
		return nil, aerr
	}
	req := exchange.SubTransferHistoryRequest{ClientTranID: r.p.str("clientTranId"), FromAccount: r.p.str("fromAccount"),
		ToAccount: r.p.str("toAccount"), FromAccountType: from, ToAccountType: to}
	if req.Start, req.End, req.Page, req.Limit, aerr = pagedWindow(r.p, "limit"); aerr != nil {
		return nil, aerr
	}
	recs, total, err := s.port(r).SubTransferHistory(req)
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]transferWire, 0, len(recs))
	for _, t := range recs {
		out = append(out, toTransferWire(t, subHistory))
	}
	return struct {
		Total  int            `json:"total"`
		Result []transferWire `json:"result"`
	}{total, out}, nil
}

func (s *Server) subAccountAssets(r *request) (any, *apiError) {
	bals, err := s.port(r).SubAssets(r.p.str("subAccount"), exchange.AccountType(r.p.str("accountType")))
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]subBalanceWire, 0, len(bals))
	for _, b := range bals {
		out = append(out, subBalanceWire{Asset: b.Asset, Free: b.Free.String(), Locked: b.Locked.String()})
	}
	return struct {
		Balances []subBalanceWire `json:"balances"`
	}{out}, nil
}

// subBalanceWire is a sub-account balance: asset, free, locked (spec 4.2).
type subBalanceWire struct {
	Asset  string `json:"asset"`
	Free   string `json:"free"`
	Locked string `json:"locked"`
}
