package simserver

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// routeWallet installs the handlers of the wallet endpoints: coin config,
// deposits, withdrawals, transfers and dust conversion.
func (s *Server) routeWallet() {
	h := s.handlers
	h[exchange.EpCoinConfig] = s.coinConfig
	h[exchange.EpWithdraw] = s.withdraw
	h[exchange.EpWithdrawApply] = s.withdraw
	h[exchange.EpCancelWithdraw] = s.cancelWithdraw
	h[exchange.EpDepositHistory] = s.depositHistory
	h[exchange.EpWithdrawHistory] = s.withdrawHistory
	h[exchange.EpGenerateDepositAddress] = s.generateDepositAddress
	h[exchange.EpDepositAddresses] = s.depositAddresses
	h[exchange.EpWithdrawAddresses] = s.withdrawAddresses
	h[exchange.EpUniversalTransfer] = s.universalTransfer
	h[exchange.EpUniversalTransferHistory] = s.universalTransferHistory
	h[exchange.EpUniversalTransferByID] = s.universalTransferByID
	h[exchange.EpDustCandidates] = s.dustCandidates
	h[exchange.EpDustConvert] = s.dustConvert
	h[exchange.EpDustHistory] = s.dustHistory
	h[exchange.EpInternalTransfer] = s.internalTransfer
	h[exchange.EpInternalTransferHistory] = s.internalTransferHistory
}

// amount reads the required amount: 10095 when missing, 33333 when it is
// not a plain decimal. Its value's rules are the simulator's.
func amount(p *params) (decimal.Decimal, *apiError) {
	if p.str("amount") == "" {
		return decimal.Decimal{}, badParam(exchange.CodeAmountNull, "amount cannot be null")
	}
	return p.dec("amount")
}

type idWire struct {
	ID string `json:"id"`
}

type tranIDWire struct {
	TranID string `json:"tranId"`
}

func (s *Server) coinConfig(r *request) (any, *apiError) {
	cfg, err := s.port(r).CoinConfig()
	if err != nil {
		return nil, simErr(err)
	}
	return wires(cfg, toCoinWire), nil
}

// withdraw serves both withdrawal endpoints: the new one takes the
// network as netWork and answers {"id"}; the previous one takes network
// and answers [{"id"}].
func (s *Server) withdraw(r *request) (any, *apiError) {
	amt, aerr := amount(r.p)
	if aerr != nil {
		return nil, aerr
	}
	includeFee, _, aerr := r.p.bool("includeFee")
	if aerr != nil {
		return nil, aerr
	}
	req := exchange.WithdrawRequest{Coin: r.p.str("coin"), WithdrawOrderID: r.p.str("withdrawOrderId"), Network: r.p.str("netWork"),
		ContractAddress: r.p.str("contractAddress"), Address: r.p.str("address"), Memo: r.p.str("memo"), Amount: amt, Remark: r.p.str("remark"),
		IncludeFee: includeFee}
	if r.ep.ID == exchange.EpWithdrawApply {
		req.Network = r.p.str("network")
		id, err := s.port(r).WithdrawApply(req)
		if err != nil {
			return nil, simErr(err)
		}
		return []idWire{{id}}, nil
	}
	id, err := s.port(r).Withdraw(req)
	if err != nil {
		return nil, simErr(err)
	}
	return idWire{id}, nil
}

func (s *Server) cancelWithdraw(r *request) (any, *apiError) {
	id, aerr := r.p.required("id")
	if aerr != nil {
		return nil, aerr
	}
	got, err := s.port(r).CancelWithdraw(id)
	if err != nil {
		return nil, simErr(err)
	}
	return idWire{got}, nil
}

// historyParams reads the filters of deposit and withdrawal history.
func historyParams(p *params) (exchange.HistoryRequest, *apiError) {
	r := exchange.HistoryRequest{Coin: p.str("coin")}
	var err *apiError
	if r.Status, err = intParam(p, "status"); err != nil {
		return r, err
	}
	if r.Start, r.End, err = window(p); err != nil {
		return r, err
	}
	r.Limit, err = intParam(p, "limit")
	return r, err
}

func (s *Server) depositHistory(r *request) (any, *apiError) {
	req, aerr := historyParams(r.p)
	if aerr != nil {
		return nil, aerr
	}
	recs, err := s.port(r).DepositHistory(req)
	if err != nil {
		return nil, simErr(err)
	}
	return wires(recs, toDepositWire), nil
}

func (s *Server) withdrawHistory(r *request) (any, *apiError) {
	req, aerr := historyParams(r.p)
	if aerr != nil {
		return nil, aerr
	}
	recs, err := s.port(r).WithdrawHistory(req)
	if err != nil {
		return nil, simErr(err)
	}
	return wires(recs, toWithdrawWire), nil
}

func (s *Server) generateDepositAddress(r *request) (any, *apiError) {
	a, err := s.port(r).GenerateDepositAddress(r.p.str("coin"), r.p.str("network"))
	if err != nil {
		return nil, simErr(err)
	}
	// One object, as clients read it (facts file); the spec's samples also
	// show an array of one, which the adapter decodes as well.
	return toAddressWire(a), nil
}

func (s *Server) depositAddresses(r *request) (any, *apiError) {
	addrs, err := s.port(r).DepositAddresses(r.p.str("coin"), r.p.str("network"))
	if err != nil {
		return nil, simErr(err)
	}
	return wires(addrs, toAddressWire), nil
}

func (s *Server) withdrawAddresses(r *request) (any, *apiError) {
	page, aerr := intParam(r.p, "page")
	if aerr != nil {
		return nil, aerr
	}
	limit, aerr := intParam(r.p, "limit")
	if aerr != nil {
		return nil, aerr
	}
	pg, err := s.port(r).WithdrawAddresses(r.p.str("coin"), page, limit)
	if err != nil {
		return nil, simErr(err)
	}
	out := pageWire[exchange.WithdrawAddress]{Page: pg.Page, TotalRecords: pg.TotalRecords, TotalPageNum: pg.TotalPages,
		Data: append([]exchange.WithdrawAddress{}, pg.Addresses...)}
	return out, nil
}

// accountTypes reads the required fromAccountType and toAccountType.
func accountTypes(p *params) (from, to exchange.AccountType, err *apiError) {
	f, err := p.required("fromAccountType")
	if err != nil {
		return "", "", err
	}
	t, err := p.required("toAccountType")
	return exchange.AccountType(f), exchange.AccountType(t), err
}

func (s *Server) universalTransfer(r *request) (any, *apiError) {
	from, to, aerr := accountTypes(r.p)
	if aerr != nil {
		return nil, aerr
	}
	amt, aerr := amount(r.p)
	if aerr != nil {
		return nil, aerr
	}
	id, err := s.port(r).UniversalTransfer(exchange.TransferRequest{FromAccountType: from, ToAccountType: to, Asset: r.p.str("asset"), Amount: amt})
	if err != nil {
		return nil, simErr(err)
	}
	// One object, as clients read it (facts file), not the spec's sample
	// array of one; the adapter decodes both.
	return tranIDWire{id}, nil
}

func (s *Server) universalTransferHistory(r *request) (any, *apiError) {
	from, to, aerr := accountTypes(r.p)
	if aerr != nil {
		return nil, aerr
	}
	req := exchange.TransferHistoryRequest{From: from, To: to}
	if req.Start, req.End, req.Page, req.Size, aerr = pagedWindow(r.p, "size"); aerr != nil {
		return nil, aerr
	}
	pg, err := s.port(r).TransferHistory(req)
	if err != nil {
		return nil, simErr(err)
	}
	rows := make([]transferWire, 0, len(pg.Rows))
	for _, t := range pg.Rows {
		rows = append(rows, toTransferWire(t, userHistory))
	}
	return struct {
		Rows  []transferWire `json:"rows"`
		Total int            `json:"total"`
	}{rows, pg.Total}, nil
}

func (s *Server) universalTransferByID(r *request) (any, *apiError) {
	id, aerr := r.p.required("tranId")
	if aerr != nil {
		return nil, aerr
	}
	t, err := s.port(r).TransferByID(id)
	if err != nil {
		return nil, simErr(err)
	}
	return toTransferWire(t, byID), nil
}

func (s *Server) dustCandidates(r *request) (any, *apiError) {
	cands, err := s.port(r).DustCandidates(context.Background())
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]dustCandidateWire, 0, len(cands))
	for _, c := range cands {
		out = append(out, dustCandidateWire{ConvertTok: c.ConvertTok.String(), ConvertUsdt: c.ConvertUsdt.String(),
			Balance: c.Balance.String(), Asset: c.Asset, Code: orNull(c.Code), Message: orNull(c.Message)})
	}
	return out, nil
}

func (s *Server) dustConvert(r *request) (any, *apiError) {
	assets, aerr := r.p.required("asset")
	if aerr != nil {
		return nil, aerr
	}
	res, err := s.port(r).ConvertDust(context.Background(), commaList(assets))
	if err != nil {
		return nil, simErr(err)
	}
	out := dustResultWire{SuccessList: append([]string{}, res.SuccessList...), FailedList: []dustFailureWire{},
		TotalConvert: res.TotalConvert.String(), ConvertFee: res.ConvertFee.String()}
	for _, f := range res.FailedList {
		out.FailedList = append(out.FailedList, dustFailureWire{Asset: f.Asset, Message: f.Message, Code: f.Code})
	}
	return out, nil
}

func (s *Server) dustHistory(r *request) (any, *apiError) {
	var req exchange.DustHistoryRequest
	var aerr *apiError
	if req.Start, req.End, req.Page, req.Limit, aerr = pagedWindow(r.p, "limit"); aerr != nil {
		return nil, aerr
	}
	pg, err := s.port(r).DustHistory(req)
	if err != nil {
		return nil, simErr(err)
	}
	out := pageWire[dustConversionWire]{Page: pg.Page, TotalRecords: pg.TotalRecords, TotalPageNum: pg.TotalPages,
		Data: make([]dustConversionWire, 0, len(pg.Conversions))}
	for _, c := range pg.Conversions {
		cw := dustConversionWire{TotalConvert: c.TotalConvert.String(), TotalFee: c.TotalFee.String(), ConvertTime: ms(c.ConvertTime),
			ConvertDetails: make([]dustDetailWire, 0, len(c.Details))}
		for _, d := range c.Details {
			cw.ConvertDetails = append(cw.ConvertDetails, dustDetailWire{ID: d.ID, Convert: d.Convert.String(), Fee: d.Fee.String(),
				Amount: d.Amount.String(), Time: ms(d.Time), Asset: d.Asset})
		}
		out.Data = append(out.Data, cw)
	}
	return out, nil
}

func (s *Server) internalTransfer(r *request) (any, *apiError) {
	kind, aerr := r.p.required("toAccountType")
	if aerr != nil {
		return nil, aerr
	}
	amt, aerr := amount(r.p)
	if aerr != nil {
		return nil, aerr
	}
	id, err := s.port(r).InternalTransfer(exchange.InternalTransferRequest{ToAccountType: kind, ToAccount: r.p.str("toAccount"),
		AreaCode: r.p.str("areaCode"), Asset: r.p.str("asset"), Amount: amt})
	if err != nil {
		return nil, simErr(err)
	}
	return tranIDWire{id}, nil
}

func (s *Server) internalTransferHistory(r *request) (any, *apiError) {
	req := exchange.InternalTransferHistoryRequest{TranID: r.p.str("tranId")}
	var aerr *apiError
	if req.Start, req.End, req.Page, req.Limit, aerr = pagedWindow(r.p, "limit"); aerr != nil {
		return nil, aerr
	}
	pg, err := s.port(r).InternalTransferHistory(req)
	if err != nil {
		return nil, simErr(err)
	}
	out := pageWire[internalWire]{Page: pg.Page, TotalRecords: pg.TotalRecords, TotalPageNum: pg.TotalPages,
		Data: make([]internalWire, 0, len(pg.Transfers))}
	for _, t := range pg.Transfers {
		out.Data = append(out.Data, toInternalWire(t))
	}
	return out, nil
}

// pagedWindow reads a paged history request's optional startTime/endTime
// window, page and page size (named sizeName: "limit" or "size").
func pagedWindow(p *params, sizeName string) (start, end time.Time, page, size int, err *apiError) {
	if start, end, err = window(p); err != nil {
		return
	}
	if page, err = intParam(p, "page"); err != nil {
		return
	}
	size, err = intParam(p, sizeName)
	return
}
