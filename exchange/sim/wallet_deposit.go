package sim

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Deposit and withdrawal history windows (spec 4.4): the last 7 days by
// default, at most 90 days back, at most 1000 records.
const (
	historyDefault = 7 * 24 * time.Hour
	historyMax     = 90 * 24 * time.Hour
	historyLimit   = 1000
)

// depositRec is one credited deposit.
type depositRec struct {
	uid string
	rec exchange.DepositRecord
}

// networkOf finds a coin's network; an empty name is the coin's first
// network.
func networkOf(c *Coin, name string, old bool) (*Network, error) {
	if name == "" {
		return &c.Networks[0], nil
	}
	n := c.network(name, old)
	if n == nil {
		return nil, apiErr(exchange.CodeParameterError, "network %s is not a network of %s", name, c.Coin)
	}
	return n, nil
}

// depositAddress is the account's address for a coin on a network,
// derived from the UID, coin and network (the coin is left out on networks
// where every coin shares one address), and recorded as generated.
func (w *walletState) depositAddress(uid string, c *Coin, n *Network) exchange.DepositAddress {
	coinPart := c.Coin
	if n.SameAddress {
		coinPart = ""
	}
	a := exchange.DepositAddress{Coin: c.Coin, Network: n.NetWork, Address: "sim" + walletDigest("address", uid, coinPart, n.NetWork)[:37]}
	if n.MemoRequired {
		a.Memo = uid
	}
	u := w.user(uid)
	for _, have := range u.addrs {
		if have == a {
			return a
		}
	}
	u.addrs = append(u.addrs, a)
	return a
}

// Deposit credits a deposit to an account's free balance, as if it
// arrived on chain to the account's address, and records it with status 5
// SUCCESS and its confirmations complete. An empty network is the coin's
// first network. Refusals: 10001 unknown account, 10222/10232 coin, 33333
// network, 10206 deposits disabled on the network, 10102/10096 amount.
func (x *Exchange) Deposit(uid, coin, network string, amount decimal.Decimal) (exchange.DepositRecord, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	a, ok := x.accounts[uid]
	if !ok {
		return exchange.DepositRecord{}, apiErr(exchange.CodeUserNotExist, "user %s does not exist", uid)
	}
	w := x.wal()
	c, err := w.coin(coin)
	if err != nil {
		return exchange.DepositRecord{}, err
	}
	n, err := networkOf(c, network, false)
	if err != nil {
		return exchange.DepositRecord{}, err
	}
	if !n.DepositEnable {
		return exchange.DepositRecord{}, apiErr(exchange.CodeTransferDisabled, "deposits of %s on %s are disabled", coin, n.NetWork)
	}
	if err := checkAmount(c, amount); err != nil {
		return exchange.DepositRecord{}, err
	}
	return x.creditDeposit(a, c, n, amount, ""), nil
}

// creditDeposit credits a checked deposit to the account's free balance
// and records it; an empty txID is derived from the deposit's id.
func (x *Exchange) creditDeposit(a *account, c *Coin, n *Network, amount decimal.Decimal, txID string) exchange.DepositRecord {
	w := x.wal()
	addr := w.depositAddress(a.uid, c, n)
	id := w.nextID()
	if txID == "" {
		txID = "0x" + walletDigest("deposit", id)
	}
	confirms := strconv.Itoa(n.MinConfirm)
	rec := exchange.DepositRecord{Amount: amount, Coin: c.Coin, Network: n.NetWork, Status: exchange.DepositSuccess,
		Address: addr.Address, AddressTag: addr.Memo, TxID: txID, InsertTime: x.now,
		UnlockConfirm: confirms, ConfirmTimes: confirms, Memo: addr.Memo}
	b := a.bal(c.Coin)
	b.free = b.free.add(amountOf(amount))
	w.deposits = append(w.deposits, &depositRec{uid: a.uid, rec: rec})
	return rec
}

// addressOwner finds the account whose generated deposit address (and
// memo, where the network uses one) a withdrawal goes to.
func (w *walletState) addressOwner(c *Coin, n *Network, address, memo string) (string, bool) {
	for uid, u := range w.users {
		for _, a := range u.addrs {
			if a.Coin == c.Coin && a.Network == n.NetWork && a.Address == address && (!n.MemoRequired || a.Memo == memo) {
				return uid, true // addresses derive from the UID: at most one owner
			}
		}
	}
	return "", false
}

// GenerateDepositAddress returns the account's deposit address for a coin
// on a network (both required), creating it on first use.
func (p *Port) GenerateDepositAddress(coin, network string) (exchange.DepositAddress, error) {
	if _, err := p.enter(exchange.EpGenerateDepositAddress); err != nil {
		return exchange.DepositAddress{}, err
	}
	defer p.leave()
	w := p.x.wal()
	c, err := w.coin(coin)
	if err != nil {
		return exchange.DepositAddress{}, err
	}
	if network == "" {
		return exchange.DepositAddress{}, apiErr(exchange.CodeParameterNull, "parameter network cannot be null")
	}
	n, err := networkOf(c, network, false)
	if err != nil {
		return exchange.DepositAddress{}, err
	}
	if !n.DepositEnable {
		return exchange.DepositAddress{}, apiErr(exchange.CodeTransferDisabled, "deposits of %s on %s are disabled", coin, n.NetWork)
	}
	return w.depositAddress(p.uid, c, n), nil
}

// DepositAddresses lists the account's generated addresses of a coin (of
// one network when network is set), in the order they were generated.
func (p *Port) DepositAddresses(coin, network string) ([]exchange.DepositAddress, error) {
	if _, err := p.enter(exchange.EpDepositAddresses); err != nil {
		return nil, err
	}
	defer p.leave()
	w := p.x.wal()
	c, err := w.coin(coin)
	if err != nil {
		return nil, err
	}
	if network != "" {
		if _, err := networkOf(c, network, false); err != nil {
			return nil, err
		}
	}
	out := []exchange.DepositAddress{}
	for _, a := range w.user(p.uid).addrs {
		if a.Coin == coin && (network == "" || a.Network == network) {
			out = append(out, a)
		}
	}
	return out, nil
}

// historyRange resolves a history window: End defaults to now and Start
// to 7 days before End; an explicit Start may reach back at most max, a
// defaulted one is clamped to it; the window must not be inverted or
// longer than max.
func historyRange(now, start, end time.Time, def, max time.Duration) (time.Time, time.Time, error) {
	if end.IsZero() {
		end = now
	}
	oldest := now.Add(-max)
	if start.IsZero() {
		start = end.Add(-def)
		if start.Before(oldest) {
			start = oldest
		}
	} else if start.Before(oldest) {
		return start, end, apiErr(exchange.CodeParameterError, "startTime %d is more than %s back", start.UnixMilli(), max)
	}
	if end.Before(start) {
		return start, end, apiErr(exchange.CodeParameterError, "endTime %d is before startTime %d", end.UnixMilli(), start.UnixMilli())
	}
	if end.Sub(start) > max {
		return start, end, apiErr(exchange.CodeParameterError, "the window from %d to %d is longer than %s", start.UnixMilli(), end.UnixMilli(), max)
	}
	return start, end, nil
}

// historyRequest checks the filters shared by deposit and withdrawal
// history and returns the window and limit.
func (x *Exchange) historyRequest(r exchange.HistoryRequest) (time.Time, time.Time, int, error) {
	start, end, err := historyRange(x.now, r.Start, r.End, historyDefault, historyMax)
	if err != nil {
		return start, end, 0, err
	}
	limit := r.Limit
	if limit == 0 {
		limit = historyLimit
	}
	if limit < 0 || limit > historyLimit {
		return start, end, 0, apiErr(exchange.CodeParameterError, "limit %d outside 1..%d", r.Limit, historyLimit)
	}
	if r.Status < 0 {
		return start, end, 0, apiErr(exchange.CodeParameterError, "status %d is negative", r.Status)
	}
	if r.Coin != "" {
		if _, err := x.wal().coin(r.Coin); err != nil {
			return start, end, 0, err
		}
	}
	return start, end, limit, nil
}

func inWindow(t, start, end time.Time) bool { return !t.Before(start) && !t.After(end) }

// DepositHistory lists the account's deposits in the window, newest first
// (records are kept in clock order, which never goes back).
func (p *Port) DepositHistory(r exchange.HistoryRequest) ([]exchange.DepositRecord, error) {
	if _, err := p.enter(exchange.EpDepositHistory); err != nil {
		return nil, err
	}
	defer p.leave()
	start, end, limit, err := p.x.historyRequest(r)
	if err != nil {
		return nil, err
	}
	out := []exchange.DepositRecord{}
	deps := p.x.wal().deposits
	for i := len(deps) - 1; i >= 0 && len(out) < limit; i-- {
		d := deps[i]
		if d.uid == p.uid && (r.Coin == "" || d.rec.Coin == r.Coin) && (r.Status == 0 || int(d.rec.Status) == r.Status) &&
			inWindow(d.rec.InsertTime, start, end) {
			out = append(out, d.rec)
		}
	}
	return out, nil
}
