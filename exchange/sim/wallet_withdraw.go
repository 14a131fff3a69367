package sim

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// withdrawSteps is the status progression of a withdrawal (facts file),
// each status reached at its delay after the application, on the exchange
// clock. Cancellation is possible until PROCESSING (5 minutes).
var withdrawSteps = [...]struct {
	status exchange.WithdrawStatus
	after  time.Duration
}{
	{exchange.WithdrawApply, 0},
	{exchange.WithdrawAuditing, time.Minute},
	{exchange.WithdrawWait, 2 * time.Minute},
	{exchange.WithdrawProcessing, 5 * time.Minute},
	{exchange.WithdrawWaitPackaging, 6 * time.Minute},
	{exchange.WithdrawWaitConfirm, 7 * time.Minute},
	{exchange.WithdrawSuccess, 10 * time.Minute},
}

// Withdrawal limits the spec leaves open (docs/sim-wallet.md).
const (
	maxRemark          = 100
	withdrawBookLimit  = 20  // default page size of the saved-address book
	withdrawBookMaxLim = 100 // largest page size
)

// withdrawal is one withdrawal; its status follows from the clock.
type withdrawal struct {
	uid        string
	rec        exchange.WithdrawRecord // as applied
	minConfirm int
	txID       string    // shown from PROCESSING on
	cancelled  time.Time // zero unless cancelled
	// inside marks a withdrawal to another account's deposit address:
	// settled at once, without fee, as transferType 1.
	inside bool
}

// insideTxID is the transaction id of inside transfers, which never reach
// a chain.
const insideTxID = "Internal transfer"

// at is the record as it stands at now.
func (wd *withdrawal) at(now time.Time) exchange.WithdrawRecord {
	r := wd.rec
	if !wd.cancelled.IsZero() {
		r.Status, r.UpdateTime = exchange.WithdrawCancel, wd.cancelled
		return r
	}
	if wd.inside {
		r.Status, r.UpdateTime, r.TxID, r.TransHash = exchange.WithdrawSuccess, r.ApplyTime, wd.txID, wd.txID
		return r
	}
	for _, s := range withdrawSteps {
		if at := r.ApplyTime.Add(s.after); !now.Before(at) {
			r.Status, r.UpdateTime = s.status, at
		}
	}
	if r.Status >= exchange.WithdrawProcessing {
		r.TxID, r.TransHash = wd.txID, wd.txID
	}
	if r.Status == exchange.WithdrawSuccess {
		r.ConfirmNo = wd.minConfirm
	}
	return r
}

// Withdraw applies for a withdrawal on the coin's network by its new name
// (netWork; empty: the coin's first network) and returns its id. The free
// balance is debited by the amount plus the network's fee at once, or, with
// IncludeFee, by the amount, of which the amount less the fee is sent.
func (p *Port) Withdraw(r exchange.WithdrawRequest) (string, error) {
	return p.withdraw(exchange.EpWithdraw, r)
}

// WithdrawApply is the previous withdrawal endpoint: the network may be
// named by its old or new name, and a contract address is refused.
func (p *Port) WithdrawApply(r exchange.WithdrawRequest) (string, error) {
	return p.withdraw(exchange.EpWithdrawApply, r)
}

func (p *Port) withdraw(ep exchange.EndpointID, r exchange.WithdrawRequest) (string, error) {
	a, err := p.enter(ep)
	if err != nil {
		return "", err
	}
	defer p.leave()
	w := p.x.wal()
	c, err := w.coin(r.Coin)
	if err != nil {
		return "", err
	}
	old := ep == exchange.EpWithdrawApply
	n, err := networkOf(c, r.Network, old)
	if err != nil {
		return "", err
	}
	switch {
	case old && r.ContractAddress != "":
		return "", apiErr(exchange.CodeParameterError, "contractAddress is not a parameter of withdraw/apply")
	case r.ContractAddress != "" && r.ContractAddress != n.Contract:
		return "", apiErr(exchange.CodeParameterError, "contractAddress %s is not the contract of %s on %s", r.ContractAddress, c.Coin, n.NetWork)
	case !n.WithdrawEnable:
		return "", apiErr(exchange.CodeTransferDisabled, "withdrawals of %s on %s are disabled", c.Coin, n.NetWork)
	case r.Address == "":
		return "", apiErr(exchange.CodeParameterNull, "parameter address cannot be null")
	case n.MemoRequired && r.Memo == "":
		return "", apiErr(exchange.CodeParameterNull, "parameter memo cannot be null on %s", n.NetWork)
	case len(r.Remark) > maxRemark:
		return "", apiErr(exchange.CodeRemarkTooLong, "remark of %d characters; at most %d", len(r.Remark), maxRemark)
	}
	if err := checkAmount(c, r.Amount); err != nil {
		return "", err
	}
	u := w.user(p.uid)
	if u.savedOnly && !u.saved(c.Coin, n.NetWork, r.Address, r.Memo) {
		return "", apiErr(exchange.CodeWithdrawAddressInvalid, "address %s is not in the saved address book", r.Address)
	}
	fee := n.WithdrawFee
	to, inside := w.addressOwner(c, n, r.Address, r.Memo)
	if inside {
		if to == p.uid {
			return "", apiErr(exchange.CodeTransferAccount, "a withdrawal to the account's own deposit address is not supported")
		}
		if err := w.frozen(to); err != nil {
			return "", err
		}
		fee = decimal.Zero // inside transfers pay no network fee
	}
	// sent is what leaves for the address (the record's amount, held to
	// the network's limits); total is what the balance pays. With
	// includeFee the fee comes out of the amount instead of on top of it.
	sent, total := r.Amount, r.Amount.Add(fee)
	if r.IncludeFee {
		sent, total = r.Amount.Sub(fee), r.Amount
		if !sent.IsPositive() {
			return "", apiErr(exchange.CodeAmountWrong, "amount %s does not cover the fee %s", r.Amount, fee)
		}
	}
	switch {
	case sent.LessThan(n.WithdrawMin):
		return "", apiErr(exchange.CodeAmountWrong, "amount %s below the minimum %s", sent, n.WithdrawMin)
	case n.WithdrawMax.IsPositive() && sent.GreaterThan(n.WithdrawMax):
		return "", apiErr(exchange.CodeAmountWrong, "amount %s above the maximum %s", sent, n.WithdrawMax)
	case n.WithdrawIntegerMultiple.IsPositive() && !sent.Mod(n.WithdrawIntegerMultiple).IsZero():
		return "", apiErr(exchange.CodeAmountWrong, "amount %s is not a multiple of %s", sent, n.WithdrawIntegerMultiple)
	}
	b := a.bal(c.Coin)
	if b.free.cmp(amountOf(total)) < 0 {
		return "", apiErr(exchange.CodeInsufficientBalance, "insufficient balance: %s %s free, %s needed with the fee", b.free, c.Coin, total)
	}
	b.free = b.free.sub(amountOf(total))
	id := w.nextID()
	coinID := walletDigest("coin", c.Coin)[:32]
	wd := &withdrawal{uid: p.uid, minConfirm: n.MinConfirm, txID: "0x" + walletDigest("withdraw", id), rec: exchange.WithdrawRecord{
		ID: id, WithdrawOrderID: r.WithdrawOrderID, Coin: c.Coin, Network: n.NetWork, Address: r.Address, Amount: sent,
		Status: exchange.WithdrawApply, TransactionFee: fee, ApplyTime: p.x.now, UpdateTime: p.x.now,
		Remark: r.Remark, Memo: r.Memo, CoinID: coinID, VcoinID: coinID}}
	if inside {
		wd.inside, wd.txID, wd.rec.TransferType = true, insideTxID, 1
		p.x.creditDeposit(p.x.accounts[to], c, n, sent, insideTxID)
	}
	w.withdrawals = append(w.withdrawals, wd)
	return id, nil
}

// CancelWithdraw cancels a withdrawal still in APPLY, AUDITING or WAIT,
// refunding the amount and fee, and returns its id. An unknown id answers
// 22222, one already processing or final 26.
func (p *Port) CancelWithdraw(id string) (string, error) {
	a, err := p.enter(exchange.EpCancelWithdraw)
	if err != nil {
		return "", err
	}
	defer p.leave()
	if id == "" {
		return "", apiErr(exchange.CodeParameterNull, "parameter id cannot be null")
	}
	for _, wd := range p.x.wal().withdrawals {
		if wd.uid != p.uid || wd.rec.ID != id {
			continue
		}
		if st := wd.at(p.x.now).Status; !st.Cancellable() {
			return "", apiErr(exchange.CodeOperationNotAllowed, "withdrawal %s is %s and can no longer be cancelled", id, st)
		}
		b := a.bal(wd.rec.Coin)
		b.free = b.free.add(amountOf(wd.rec.Amount.Add(wd.rec.TransactionFee)))
		wd.cancelled = p.x.now
		return id, nil
	}
	return "", apiErr(exchange.CodeRecordNotExist, "withdrawal %s does not exist", id)
}

// WithdrawHistory lists the account's withdrawals applied for in the
// window, newest first, with their status at the current clock.
func (p *Port) WithdrawHistory(r exchange.HistoryRequest) ([]exchange.WithdrawRecord, error) {
	if _, err := p.enter(exchange.EpWithdrawHistory); err != nil {
		return nil, err
	}
	defer p.leave()
	start, end, limit, err := p.x.historyRequest(r)
	if err != nil {
		return nil, err
	}
	out := []exchange.WithdrawRecord{}
	wds := p.x.wal().withdrawals
	for i := len(wds) - 1; i >= 0 && len(out) < limit; i-- {
		wd := wds[i]
		if wd.uid != p.uid || r.Coin != "" && wd.rec.Coin != r.Coin || !inWindow(wd.rec.ApplyTime, start, end) {
			continue
		}
		rec := wd.at(p.x.now)
		if r.Status == 0 || int(rec.Status) == r.Status {
			out = append(out, rec)
		}
	}
	return out, nil
}

func (u *walletUser) saved(coin, network, address, memo string) bool {
	for _, s := range u.book {
		if s.Coin == coin && s.Network == network && s.Address == address && (s.Memo == "" || s.Memo == memo) {
			return true
		}
	}
	return false
}

// SaveWithdrawAddress adds an address to an account's saved withdrawal
// address book (the live service's web interface does this). The coin and
// network must exist; an entry already saved is refused.
func (x *Exchange) SaveWithdrawAddress(uid string, a exchange.WithdrawAddress) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.accounts[uid]; !ok {
		return apiErr(exchange.CodeUserNotExist, "user %s does not exist", uid)
	}
	w := x.wal()
	c, err := w.coin(a.Coin)
	if err != nil {
		return err
	}
	if c.network(a.Network, false) == nil {
		return apiErr(exchange.CodeParameterError, "network %s is not a network of %s", a.Network, a.Coin)
	}
	if a.Address == "" {
		return apiErr(exchange.CodeParameterNull, "parameter address cannot be null")
	}
	u := w.user(uid)
	for _, s := range u.book {
		if s == a {
			return fmt.Errorf("sim: address %s of %s on %s is already saved", a.Address, a.Coin, a.Network)
		}
	}
	u.book = append(u.book, a)
	return nil
}

// RequireSavedAddresses makes withdrawals of the account go only to saved
// addresses (others answer 10212), or lifts that rule.
func (x *Exchange) RequireSavedAddresses(uid string, on bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.accounts[uid]; !ok {
		return apiErr(exchange.CodeUserNotExist, "user %s does not exist", uid)
	}
	x.wal().user(uid).savedOnly = on
	return nil
}

// WithdrawAddresses pages through the saved address book (of one coin
// when coin is set): page defaults to 1, limit to 20 (at most 100).
func (p *Port) WithdrawAddresses(coin string, page, limit int) (exchange.WithdrawAddressPage, error) {
	if _, err := p.enter(exchange.EpWithdrawAddresses); err != nil {
		return exchange.WithdrawAddressPage{}, err
	}
	defer p.leave()
	w := p.x.wal()
	if coin != "" {
		if _, err := w.coin(coin); err != nil {
			return exchange.WithdrawAddressPage{}, err
		}
	}
	page, limit, err := paging(page, limit, withdrawBookLimit, withdrawBookMaxLim)
	if err != nil {
		return exchange.WithdrawAddressPage{}, err
	}
	var all []exchange.WithdrawAddress
	for _, a := range w.user(p.uid).book {
		if coin == "" || a.Coin == coin {
			all = append(all, a)
		}
	}
	lo, hi, pages := pageBounds(len(all), page, limit)
	return exchange.WithdrawAddressPage{Addresses: append([]exchange.WithdrawAddress{}, all[lo:hi]...), TotalRecords: len(all),
		Page: page, TotalPages: pages}, nil
}

// paging applies defaults to page (1) and limit (def) and checks them:
// page at least 1, limit within 1..max.
func paging(page, limit, def, max int) (int, int, error) {
	if page == 0 {
		page = 1
	}
	if limit == 0 {
		limit = def
	}
	if page < 1 {
		return 0, 0, apiErr(exchange.CodeParameterError, "page %d is below 1", page)
	}
	if limit < 1 || limit > max {
		return 0, 0, apiErr(exchange.CodeParameterError, "limit %d outside 1..%d", limit, max)
	}
	return page, limit, nil
}

// pageBounds returns the slice bounds of a page of n records and the
// number of pages.
func pageBounds(n, page, limit int) (lo, hi, pages int) {
	pages = (n + limit - 1) / limit
	lo = n
	if page <= pages { // also keeps (page-1)*limit from overflowing
		lo = (page - 1) * limit
	}
	hi = min(lo+limit, n)
	return lo, hi, pages
}
