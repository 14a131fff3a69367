package sim

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Transfer history limits (spec 4.4 and section 8); the internal history's
// maximum page size and reach are not stated (docs/sim-wallet.md).
const (
	transferPageDefault = 10
	transferPageMax     = 100
	transferStatusOK    = "SUCCESS"
)

// transferRec is one universal transfer: between the SPOT and FUTURES
// wallets of one account, or (sub set) between accounts of the master.
type transferRec struct {
	owner   string // the UID that asked for it
	sub     bool   // made through the sub-account endpoint
	fromUID string
	toUID   string
	rec     exchange.TransferRecord
}

// internalRec is one internal transfer to another user.
type internalRec struct {
	fromUID string
	toUID   string
	rec     exchange.InternalTransferRecord
}

// sixMonths is how far back user transfer history reaches from now.
func sixMonths(now time.Time) time.Duration { return now.Sub(now.AddDate(0, -6, 0)) }

func validAccountType(name string, t exchange.AccountType) error {
	if t != exchange.AccountSpot && t != exchange.AccountFutures {
		return apiErr(exchange.CodeParameterError, "%s %q is not SPOT or FUTURES", name, t)
	}
	return nil
}

// walletFree returns the free balance of an account's wallet of one type.
func (x *Exchange) walletFree(uid string, t exchange.AccountType, asset string) decimal.Decimal {
	if t == exchange.AccountFutures {
		return x.wal().user(uid).futures[asset]
	}
	return x.accounts[uid].bal(asset).free.dec()
}

// move checks and moves an amount of an asset from one wallet to another:
// 10222/10232 for the asset, 10102/10096 for the amount, 10101 when the
// source's free balance is short. Nothing changes on a refusal.
func (x *Exchange) move(fromUID string, fromT exchange.AccountType, toUID string, toT exchange.AccountType, asset string, amount decimal.Decimal) error {
	w := x.wal()
	c, err := w.coin(asset)
	if err != nil {
		return err
	}
	if err := checkAmount(c, amount); err != nil {
		return err
	}
	if have := x.walletFree(fromUID, fromT, asset); have.LessThan(amount) {
		return apiErr(exchange.CodeInsufficientBalance, "insufficient balance: %s %s free in %s, %s asked", have, asset, fromT, amount)
	}
	x.addFree(fromUID, fromT, asset, amount.Neg())
	x.addFree(toUID, toT, asset, amount)
	return nil
}

func (x *Exchange) addFree(uid string, t exchange.AccountType, asset string, d decimal.Decimal) {
	if t == exchange.AccountFutures {
		f := x.wal().user(uid).futures
		f[asset] = f[asset].Add(d)
		return
	}
	b := x.accounts[uid].bal(asset)
	b.free = b.free.add(amountOf(d))
}

// UniversalTransfer moves an asset between the account's own SPOT and
// FUTURES wallets and returns the transfer id. The same wallet on both
// sides answers 10103.
func (p *Port) UniversalTransfer(r exchange.TransferRequest) (string, error) {
	if _, err := p.enter(exchange.EpUniversalTransfer); err != nil {
		return "", err
	}
	defer p.leave()
	if err := validAccountType("fromAccountType", r.FromAccountType); err != nil {
		return "", err
	}
	if err := validAccountType("toAccountType", r.ToAccountType); err != nil {
		return "", err
	}
	if r.FromAccountType == r.ToAccountType {
		return "", apiErr(exchange.CodeTransferAccount, "transfer from %s to %s of one account is not supported", r.FromAccountType, r.ToAccountType)
	}
	if err := p.x.move(p.uid, r.FromAccountType, p.uid, r.ToAccountType, r.Asset, r.Amount); err != nil {
		return "", err
	}
	w := p.x.wal()
	id := w.nextID()
	w.transfers = append(w.transfers, &transferRec{owner: p.uid, fromUID: p.uid, toUID: p.uid, rec: exchange.TransferRecord{
		TranID: id, FromAccountType: r.FromAccountType, ToAccountType: r.ToAccountType, Asset: r.Asset, Amount: r.Amount,
		Status: transferStatusOK, Timestamp: p.x.now}})
	return id, nil
}

// TransferHistory pages through the account's own universal transfers of
// one direction, newest first: the last 7 days without Start and End, at
// most six months back; page defaults to 1, size to 10 (at most 100).
func (p *Port) TransferHistory(r exchange.TransferHistoryRequest) (exchange.TransferPage, error) {
	if _, err := p.enter(exchange.EpUniversalTransferHistory); err != nil {
		return exchange.TransferPage{}, err
	}
	defer p.leave()
	if err := validAccountType("fromAccountType", r.From); err != nil {
		return exchange.TransferPage{}, err
	}
	if err := validAccountType("toAccountType", r.To); err != nil {
		return exchange.TransferPage{}, err
	}
	start, end, err := historyRange(p.x.now, r.Start, r.End, historyDefault, sixMonths(p.x.now))
	if err != nil {
		return exchange.TransferPage{}, err
	}
	page, size, err := paging(r.Page, r.Size, transferPageDefault, transferPageMax)
	if err != nil {
		return exchange.TransferPage{}, err
	}
	var all []exchange.TransferRecord
	ts := p.x.wal().transfers
	for i := len(ts) - 1; i >= 0; i-- {
		t := ts[i]
		if t.owner == p.uid && !t.sub && t.rec.FromAccountType == r.From && t.rec.ToAccountType == r.To && inWindow(t.rec.Timestamp, start, end) {
			all = append(all, t.rec)
		}
	}
	lo, hi, _ := pageBounds(len(all), page, size)
	return exchange.TransferPage{Rows: append([]exchange.TransferRecord{}, all[lo:hi]...), Total: len(all)}, nil
}

// TransferByID returns one of the account's own universal transfers;
// an unknown id answers 22222.
func (p *Port) TransferByID(tranID string) (exchange.TransferRecord, error) {
	if _, err := p.enter(exchange.EpUniversalTransferByID); err != nil {
		return exchange.TransferRecord{}, err
	}
	defer p.leave()
	if tranID == "" {
		return exchange.TransferRecord{}, apiErr(exchange.CodeParameterNull, "parameter tranId cannot be null")
	}
	for _, t := range p.x.wal().transfers {
		if t.owner == p.uid && !t.sub && t.rec.TranID == tranID {
			return t.rec, nil
		}
	}
	return exchange.TransferRecord{}, apiErr(exchange.CodeRecordNotExist, "transfer %s does not exist", tranID)
}

// label is how an account appears in transfer records: its name for a
// sub-account, else its email when it has one, else its UID.
func (w *walletState) label(uid string) string {
	if u, ok := w.users[uid]; ok {
		switch {
		case u.sub != nil:
			return u.sub.name
		case u.email != "":
			return u.email
		}
	}
	return uid
}

// findUser resolves an internal transfer's recipient.
func (x *Exchange) findUser(kind, account, areaCode string) (string, error) {
	w := x.wal()
	switch kind {
	case "UID":
		if _, ok := x.accounts[account]; ok {
			return account, nil
		}
	case "EMAIL":
		for uid, u := range w.users {
			if u.email == account {
				return uid, nil
			}
		}
	case "MOBILE":
		// One number may exist under several area codes: without an area
		// code such a number is ambiguous, and map order must not decide.
		var found []string
		for uid, u := range w.users {
			if u.mobile == account && (areaCode == "" || u.areaCode == areaCode) {
				found = append(found, uid)
			}
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 0:
		default:
			return "", apiErr(exchange.CodeParameterError, "mobile %s exists under several area codes; send areaCode", account)
		}
	default:
		return "", apiErr(exchange.CodeParameterError, "toAccountType %q is not EMAIL, UID or MOBILE", kind)
	}
	return "", apiErr(exchange.CodeUserNotExist, "user %s %s does not exist", kind, account)
}

// frozen refuses a frozen sub-account with 140002.
func (w *walletState) frozen(uid string) error {
	if u, ok := w.users[uid]; ok && u.sub != nil && u.sub.frozen {
		return apiErr(exchange.CodeSubAccountForbidden, "sub-account %s is frozen", u.sub.name)
	}
	return nil
}

// InternalTransfer sends an asset from the account's SPOT wallet to
// another user's, found by EMAIL, UID or MOBILE, and returns the transfer
// id. An unknown recipient answers 10001, the account itself 10103.
func (p *Port) InternalTransfer(r exchange.InternalTransferRequest) (string, error) {
	if _, err := p.enter(exchange.EpInternalTransfer); err != nil {
		return "", err
	}
	defer p.leave()
	if r.ToAccount == "" {
		return "", apiErr(exchange.CodeParameterNull, "parameter toAccount cannot be null")
	}
	to, err := p.x.findUser(r.ToAccountType, r.ToAccount, r.AreaCode)
	if err != nil {
		return "", err
	}
	if to == p.uid {
		return "", apiErr(exchange.CodeTransferAccount, "an internal transfer to the sending account is not supported")
	}
	w := p.x.wal()
	for _, uid := range []string{p.uid, to} {
		if err := w.frozen(uid); err != nil {
			return "", err
		}
	}
	if err := p.x.move(p.uid, exchange.AccountSpot, to, exchange.AccountSpot, r.Asset, r.Amount); err != nil {
		return "", err
	}
	id := w.nextID()
	w.internal = append(w.internal, &internalRec{fromUID: p.uid, toUID: to, rec: exchange.InternalTransferRecord{
		TranID: id, Asset: r.Asset, Amount: r.Amount, FromAccount: w.label(p.uid), ToAccountType: r.ToAccountType,
		ToAccount: r.ToAccount, Status: transferStatusOK, Timestamp: p.x.now}})
	return id, nil
}

// InternalTransferHistory pages through the internal transfers the
// account sent or received, newest first: the last 7 days without Start
// and End, at most six months back; page defaults to 1, limit to 10 (at
// most 100); TranID picks one transfer.
func (p *Port) InternalTransferHistory(r exchange.InternalTransferHistoryRequest) (exchange.InternalTransferPage, error) {
	if _, err := p.enter(exchange.EpInternalTransferHistory); err != nil {
		return exchange.InternalTransferPage{}, err
	}
	defer p.leave()
	start, end, err := historyRange(p.x.now, r.Start, r.End, historyDefault, sixMonths(p.x.now))
	if err != nil {
		return exchange.InternalTransferPage{}, err
	}
	page, limit, err := paging(r.Page, r.Limit, transferPageDefault, transferPageMax)
	if err != nil {
		return exchange.InternalTransferPage{}, err
	}
	var all []exchange.InternalTransferRecord
	in := p.x.wal().internal
	for i := len(in) - 1; i >= 0; i-- {
		t := in[i]
		if (t.fromUID == p.uid || t.toUID == p.uid) && (r.TranID == "" || t.rec.TranID == r.TranID) && inWindow(t.rec.Timestamp, start, end) {
			all = append(all, t.rec)
		}
	}
	lo, hi, pages := pageBounds(len(all), page, limit)
	return exchange.InternalTransferPage{Transfers: append([]exchange.InternalTransferRecord{}, all[lo:hi]...), Page: page,
		TotalRecords: len(all), TotalPages: pages}, nil
}
