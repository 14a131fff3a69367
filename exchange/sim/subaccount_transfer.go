package sim

import (
	"github.com/spotbot/spotbot/exchange"
)

// Sub-account transfer history limits (spec section 8).
const (
	subHistoryDefault = 500
	subHistoryMax     = 500
	maxClientTranID   = 32
)

// subUID resolves a sub-account transfer's account: empty is the master.
func (x *Exchange) subUID(name string) (string, error) {
	if name == "" {
		return x.master, nil
	}
	s, err := x.sub(name)
	if err != nil {
		return "", err
	}
	return s.uid, nil
}

func validClientTranID(id string) error {
	if len(id) > maxClientTranID {
		return apiErr(exchange.CodeParameterError, "clientTranId of %d characters; at most %d", len(id), maxClientTranID)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return apiErr(exchange.CodeParameterError, "clientTranId %q must be letters and digits", id)
		}
	}
	return nil
}

// SubUniversalTransfer moves an asset between wallets of the master and
// its sub-accounts (an empty account is the master) and returns the
// transfer id. A clientTranId makes it idempotent: the same request again
// returns the first transfer's id and moves nothing; the id reused for a
// different transfer answers 33333.
func (p *Port) SubUniversalTransfer(r exchange.SubTransferRequest) (string, error) {
	if _, err := p.enter(exchange.EpSubUniversalTransfer); err != nil {
		return "", err
	}
	defer p.leave()
	if err := p.mainOnly(); err != nil {
		return "", err
	}
	if err := validClientTranID(r.ClientTranID); err != nil {
		return "", err
	}
	if err := validAccountType("fromAccountType", r.FromAccountType); err != nil {
		return "", err
	}
	if err := validAccountType("toAccountType", r.ToAccountType); err != nil {
		return "", err
	}
	from, err := p.x.subUID(r.FromAccount)
	if err != nil {
		return "", err
	}
	to, err := p.x.subUID(r.ToAccount)
	if err != nil {
		return "", err
	}
	w := p.x.wal()
	if r.ClientTranID != "" {
		if t, ok := w.clientTran[r.ClientTranID]; ok {
			same := t.fromUID == from && t.toUID == to && t.rec.FromAccountType == r.FromAccountType &&
				t.rec.ToAccountType == r.ToAccountType && t.rec.Asset == r.Asset && t.rec.Amount.Equal(r.Amount)
			if !same {
				return "", apiErr(exchange.CodeParameterError, "clientTranId %s was used for a different transfer", r.ClientTranID)
			}
			return t.rec.TranID, nil
		}
	}
	if from == to && r.FromAccountType == r.ToAccountType {
		return "", apiErr(exchange.CodeTransferAccount, "a transfer needs two different wallets")
	}
	for _, uid := range []string{from, to} {
		if err := w.frozen(uid); err != nil {
			return "", err
		}
	}
	if err := p.x.move(from, r.FromAccountType, to, r.ToAccountType, r.Asset, r.Amount); err != nil {
		return "", err
	}
	t := &transferRec{owner: p.uid, sub: true, fromUID: from, toUID: to, rec: exchange.TransferRecord{
		TranID: w.nextID(), ClientTranID: r.ClientTranID, FromAccount: w.label(from), ToAccount: w.label(to),
		FromAccountType: r.FromAccountType, ToAccountType: r.ToAccountType, Asset: r.Asset, Amount: r.Amount,
		Status: transferStatusOK, Timestamp: p.x.now}}
	w.transfers = append(w.transfers, t)
	if r.ClientTranID != "" {
		w.clientTran[r.ClientTranID] = t
	}
	return t.rec.TranID, nil
}

// SubTransferHistory lists sub-account transfers of one direction of
// wallet types, newest first, filtered by clientTranId, accounts and time
// (no default window: the spec gives none); page defaults to 1, limit to
// 500 (at most 500). It returns the page and the number of matches.
func (p *Port) SubTransferHistory(r exchange.SubTransferHistoryRequest) ([]exchange.TransferRecord, int, error) {
	if _, err := p.enter(exchange.EpSubUniversalTransferHistory); err != nil {
		return nil, 0, err
	}
	defer p.leave()
	if err := p.mainOnly(); err != nil {
		return nil, 0, err
	}
	if err := validAccountType("fromAccountType", r.FromAccountType); err != nil {
		return nil, 0, err
	}
	if err := validAccountType("toAccountType", r.ToAccountType); err != nil {
		return nil, 0, err
	}
	if !r.Start.IsZero() && !r.End.IsZero() && r.End.Before(r.Start) {
		return nil, 0, apiErr(exchange.CodeParameterError, "endTime %d is before startTime %d", r.End.UnixMilli(), r.Start.UnixMilli())
	}
	page, limit, err := paging(r.Page, r.Limit, subHistoryDefault, subHistoryMax)
	if err != nil {
		return nil, 0, err
	}
	var from, to string
	if r.FromAccount != "" {
		if from, err = p.x.subUID(r.FromAccount); err != nil {
			return nil, 0, err
		}
	}
	if r.ToAccount != "" {
		if to, err = p.x.subUID(r.ToAccount); err != nil {
			return nil, 0, err
		}
	}
	var all []exchange.TransferRecord
	ts := p.x.wal().transfers
	for i := len(ts) - 1; i >= 0; i-- {
		t := ts[i]
		switch {
		case !t.sub || t.owner != p.uid, t.rec.FromAccountType != r.FromAccountType, t.rec.ToAccountType != r.ToAccountType,
			r.ClientTranID != "" && t.rec.ClientTranID != r.ClientTranID, from != "" && t.fromUID != from, to != "" && t.toUID != to,
			!r.Start.IsZero() && t.rec.Timestamp.Before(r.Start), !r.End.IsZero() && t.rec.Timestamp.After(r.End):
			continue
		}
		all = append(all, t.rec)
	}
	lo, hi, _ := pageBounds(len(all), page, limit)
	return append([]exchange.TransferRecord{}, all[lo:hi]...), len(all), nil
}
