package sim

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// Port is the trading port of one account.
type Port struct {
	x   *Exchange
	uid string
	// acct caches the account once found (accounts are never removed);
	// read and written under x.mu.
	acct *account
}

var (
	_ exchange.Trader      = (*Port)(nil)
	_ exchange.EventSource = (*Port)(nil)
)

// UID returns the account the port acts as.
func (p *Port) UID() string { return p.uid }

// Exchange returns the exchange behind the port.
func (p *Port) Exchange() *Exchange { return p.x }

// enter locks the exchange (unless one goroutine alone drives it:
// Options.SingleDriver) and returns the account, after the rate budget.
func (p *Port) enter(ep exchange.EndpointID) (*account, error) {
	p.x.lockFeed()
	a, ok := p.account()
	if !ok {
		p.x.unlockFeed()
		return nil, apiErr(exchange.CodeUserNotExist, "user %s does not exist", p.uid)
	}
	if err := p.x.budgetCheck(a, ep); err != nil {
		p.x.unlockFeed()
		return nil, err
	}
	return a, nil
}

func (p *Port) leave() { p.x.unlockFeed() }

// account returns the port's account; the caller holds x.mu.
func (p *Port) account() (*account, bool) {
	if p.acct == nil {
		p.acct = p.x.accounts[p.uid]
	}
	return p.acct, p.acct != nil
}

// ServerTime implements exchange.Trader.
func (p *Port) ServerTime(ctx context.Context) (time.Time, error) { return p.x.Now(), nil }

// ExchangeInfo implements exchange.Trader.
func (p *Port) ExchangeInfo(ctx context.Context, symbols ...string) (*exchange.ExchangeInfo, error) {
	if _, err := p.enter(exchange.EpExchangeInfo); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.x.exchangeInfo(symbols)
}

// Klines implements exchange.Trader (see Exchange.Klines).
func (p *Port) Klines(ctx context.Context, r exchange.KlinesRequest) ([]exchange.Kline, error) {
	if _, err := p.enter(exchange.EpKlines); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.x.klines(r)
}

// PlaceOrder implements exchange.Trader.
func (p *Port) PlaceOrder(ctx context.Context, o exchange.NewOrder) (exchange.OrderAck, error) {
	a, err := p.enter(exchange.EpNewOrder)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	defer p.leave()
	ord, err := p.x.place(a, o, false)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	return ack(ord), nil
}

func ack(o *order) exchange.OrderAck {
	return exchange.OrderAck{Symbol: o.m.info.Symbol, OrderID: o.oid, OrderListID: -1, ClientOrderID: o.cid,
		Price: o.price, OrigQty: o.qty, Type: o.typ.exchange(), Side: o.side.exchange(), STPMode: o.stp.exchange(), TransactTime: o.at}
}

// TestOrder implements exchange.Trader: it validates without booking.
func (p *Port) TestOrder(ctx context.Context, o exchange.NewOrder) error {
	a, err := p.enter(exchange.EpTestOrder)
	if err != nil {
		return err
	}
	defer p.leave()
	_, err = p.x.place(a, o, true)
	return err
}

// PlaceBatch implements exchange.Trader: a batch exchange.ValidateBatch
// refuses is refused whole; else each order is placed or refused on its
// own.
func (p *Port) PlaceBatch(ctx context.Context, orders []exchange.NewOrder) ([]exchange.BatchResult, error) {
	a, err := p.enter(exchange.EpBatchOrders)
	if err != nil {
		return nil, err
	}
	defer p.leave()
	if err := exchange.ValidateBatch(orders); err != nil {
		return nil, err
	}
	out := make([]exchange.BatchResult, len(orders))
	for i, o := range orders {
		ord, err := p.x.place(a, o, false)
		if err != nil {
			code, msg := codeOf(err)
			out[i] = exchange.BatchResult{ClientOrderID: o.NewClientOrderID, Code: code, Msg: msg}
			continue
		}
		ak := ack(ord)
		out[i] = exchange.BatchResult{Ack: &ak, ClientOrderID: ord.cid}
	}
	return out, nil
}

func codeOf(err error) (int, string) {
	if ae, ok := err.(*exchange.APIError); ok {
		return ae.Code, ae.Msg
	}
	if re, ok := err.(*exchange.RuleError); ok {
		return re.Code, re.Msg
	}
	return exchange.CodeInternalError, err.Error()
}

// openAuto returns the open order whose generated client order id is id
// (sim-<order id>), or nil. Generated ids stay out of the open map: placing
// and cancelling without a client id then costs no map entry.
func (a *account) openAuto(id string) *order {
	num, ok := strings.CutPrefix(id, "sim-")
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return nil
	}
	if o := a.order(n); o != nil && o.autoID && o.cid == id && !o.final() {
		return o
	}
	return nil
}

// find locates an order of the account by id or client id.
func (a *account) find(orderID, clientID string) *order {
	if orderID != "" {
		n, err := strconv.ParseInt(orderID, 10, 64)
		if o := a.order(n); err == nil && o != nil && o.oid == orderID {
			return o
		}
		return nil
	}
	if o, ok := a.open[clientID]; ok {
		return o
	}
	if o := a.openAuto(clientID); o != nil {
		return o
	}
	for i := len(a.history) - 1; i >= 0; i-- {
		if a.history[i].cid == clientID {
			return a.history[i]
		}
	}
	return nil
}

// CancelOrder implements exchange.Trader. Cancelling an unknown or already
// final order answers -2011, as the live service does.
func (p *Port) CancelOrder(ctx context.Context, r exchange.CancelOrderRequest) (exchange.Order, error) {
	a, err := p.enter(exchange.EpCancelOrder)
	if err != nil {
		return exchange.Order{}, err
	}
	defer p.leave()
	if r.OrderID == "" && r.OrigClientOrderID == "" {
		return exchange.Order{}, apiErr(exchange.CodeOrderIDMissing, "neither origClientOrderId nor orderId sent")
	}
	m, err := p.x.market(r.Symbol)
	if err != nil {
		return exchange.Order{}, err
	}
	o := a.find(r.OrderID, r.OrigClientOrderID)
	if o == nil || o.m != m || o.final() {
		return exchange.Order{}, apiErr(exchange.CodeUnknownOrder, "Unknown order sent.")
	}
	p.x.finish(m, o, statusCanceled, false)
	p.x.flush(o)
	out := o.view()
	out.OrigClientOrderID = o.cid
	if r.NewClientOrderID != "" {
		out.ClientOrderID = r.NewClientOrderID
	}
	return out, nil
}

// CancelOpenOrders implements exchange.Trader.
func (p *Port) CancelOpenOrders(ctx context.Context, symbol string) ([]exchange.Order, error) {
	a, err := p.enter(exchange.EpCancelOpenOrders)
	if err != nil {
		return nil, err
	}
	defer p.leave()
	m, ok := p.x.markets[symbol]
	if !ok {
		return nil, apiErr(exchange.CodeBadSymbol, "bad symbol %q", symbol)
	}
	var out []exchange.Order
	for _, o := range a.history {
		if o.m == m && !o.final() {
			p.x.finish(m, o, statusCanceled, false)
			p.x.flush(o)
			out = append(out, o.view())
		}
	}
	return out, nil
}

// QueryOrder implements exchange.Trader.
func (p *Port) QueryOrder(ctx context.Context, r exchange.QueryOrderRequest) (exchange.Order, error) {
	a, err := p.enter(exchange.EpQueryOrder)
	if err != nil {
		return exchange.Order{}, err
	}
	defer p.leave()
	if r.OrderID == "" && r.OrigClientOrderID == "" {
		return exchange.Order{}, apiErr(exchange.CodeOrderIDMissing, "neither origClientOrderId nor orderId sent")
	}
	m, err := p.x.market(r.Symbol)
	if err != nil {
		return exchange.Order{}, err // an unknown symbol is 10007, as on every endpoint
	}
	o := a.find(r.OrderID, r.OrigClientOrderID)
	if o == nil || o.m != m {
		return exchange.Order{}, apiErr(exchange.CodeUnknownOrder, "Unknown order sent.")
	}
	return o.view(), nil
}

// OpenOrders implements exchange.Trader, oldest first.
func (p *Port) OpenOrders(ctx context.Context, symbol string) ([]exchange.Order, error) {
	a, err := p.enter(exchange.EpOpenOrders)
	if err != nil {
		return nil, err
	}
	defer p.leave()
	out := []exchange.Order{}
	for _, o := range a.history {
		if !o.final() && (symbol == "" || o.m.info.Symbol == symbol) {
			out = append(out, o.view())
		}
	}
	return out, nil
}

// AllOrders returns the account's orders of a symbol in a window (default
// the last 24 hours, at most 7 days), at most limit (default 500, max 1000).
func (p *Port) AllOrders(ctx context.Context, r exchange.AllOrdersRequest) ([]exchange.Order, error) {
	a, err := p.enter(exchange.EpAllOrders)
	if err != nil {
		return nil, err
	}
	defer p.leave()
	start, end := r.Start, r.End
	if end.IsZero() {
		end = p.x.now
	}
	if start.IsZero() {
		start = end.Add(-24 * time.Hour)
	}
	if end.Sub(start) > 7*24*time.Hour || end.Before(start) {
		return nil, apiErr(exchange.CodeParameterError, "the window must be at most 7 days")
	}
	limit := r.Limit
	if limit == 0 {
		limit = 500
	}
	if limit < 0 || limit > 1000 {
		return nil, apiErr(exchange.CodeParameterError, "limit %d outside 1..1000", r.Limit)
	}
	var out []exchange.Order
	for _, o := range a.history {
		if o.m.info.Symbol == r.Symbol && !o.at.Before(start) && !o.at.After(end) && len(out) < limit {
			out = append(out, o.view())
		}
	}
	return out, nil
}

// Account implements exchange.Trader.
func (p *Port) Account(ctx context.Context) (*exchange.Account, error) {
	a, err := p.enter(exchange.EpAccount)
	if err != nil {
		return nil, err
	}
	defer p.leave()
	// The reply and its permissions are one allocation, the balances
	// another.
	r := &accountReply{perms: [1]string{"SPOT"}}
	r.acct = exchange.Account{CanTrade: true, CanWithdraw: true, CanDeposit: true, UpdateTime: p.x.now, AccountType: "SPOT",
		Balances: a.snapshot(), Permissions: r.perms[:]}
	return &r.acct, nil
}

type accountReply struct {
	acct  exchange.Account
	perms [1]string
}

// AppendBalances appends to dst the balances Account lists (every asset
// with a free or locked amount, in asset order) and returns the slice. It
// is the cheap read for a caller that refreshes balances after every fill,
// as a backtest's runtime does: no account reply is built, dst's array is
// reused, and a balance unchanged since it was last read reuses its
// decimals, so a read allocates only the decimals of the balances that
// changed.
func (p *Port) AppendBalances(dst []exchange.Balance) ([]exchange.Balance, error) {
	a, err := p.enter(exchange.EpAccount)
	if err != nil {
		return dst, err
	}
	defer p.leave()
	return a.appendBalances(dst), nil
}

// AppendCompactBalances is AppendBalances with each balance's amounts as
// exchange.Fixed while they fit: no decimal is built (the reader builds
// those of the balances it reads). It is the same account read: the same
// balances in the same order, the same rate budget drawn.
func (p *Port) AppendCompactBalances(dst []exchange.CompactBalance) ([]exchange.CompactBalance, error) {
	a, err := p.enter(exchange.EpAccount)
	if err != nil {
		return dst, err
	}
	defer p.leave()
	return a.appendCompact(dst), nil
}

// MyTrades implements exchange.Trader: the account's trades of a symbol
// (of one order if OrderID is set), at most limit (default and max 100),
// from Start when set, within the past month.
func (p *Port) MyTrades(ctx context.Context, r exchange.MyTradesRequest) ([]exchange.OwnTrade, error) {
	a, err := p.enter(exchange.EpMyTrades)
	if err != nil {
		return nil, err
	}
	defer p.leave()
	limit := r.Limit
	if limit == 0 {
		limit = 100
	}
	if limit < 0 || limit > 100 {
		return nil, apiErr(exchange.CodeParameterError, "limit %d outside 1..100", r.Limit)
	}
	oldest := p.x.now.AddDate(0, -1, 0)
	var out []exchange.OwnTrade
	for _, t := range a.trades {
		switch {
		case t.Symbol != r.Symbol, r.OrderID != "" && t.OrderID != r.OrderID, t.Time.Before(oldest),
			!r.Start.IsZero() && t.Time.Before(r.Start), !r.End.IsZero() && t.Time.After(r.End):
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, t)
	}
	return out, nil
}

// TradeFee implements exchange.Trader.
func (p *Port) TradeFee(ctx context.Context, symbol string) (exchange.TradeFee, error) {
	if _, err := p.enter(exchange.EpTradeFee); err != nil {
		return exchange.TradeFee{}, err
	}
	defer p.leave()
	m, ok := p.x.markets[symbol]
	if !ok {
		return exchange.TradeFee{}, apiErr(exchange.CodeBadSymbol, "bad symbol %q", symbol)
	}
	return exchange.TradeFee{MakerCommission: m.info.MakerCommission, TakerCommission: m.info.TakerCommission}, nil
}

// SetTokDeduct switches paying fees in the token.
func (p *Port) SetTokDeduct(ctx context.Context, on bool) (bool, error) {
	a, err := p.enter(exchange.EpSetTokDeduct)
	if err != nil {
		return false, err
	}
	defer p.leave()
	a.tokDeduct = on
	return on, nil
}

// DrainEvents implements exchange.EventSource.
func (p *Port) DrainEvents(dst []exchange.OrderEvent) []exchange.OrderEvent {
	p.x.lockFeed()
	defer p.x.unlockFeed()
	a, ok := p.account()
	if !ok {
		return dst
	}
	n := len(dst)
	dst = slices.Grow(dst, len(a.events))[:n+len(a.events)]
	for i := range a.events {
		a.events[i].into(&dst[n+i])
	}
	p.x.queued.Add(-int64(len(a.events)))
	clear(a.events)
	a.events = a.events[:0]
	// The trades handed out now stay until the next drain; those of the
	// last one are free for the events to come.
	clear(a.drained) // no stale strings or numbers kept alive
	a.evTrades, a.drained = a.drained[:0], a.evTrades
	return dst
}

// MayHaveEvents reports whether DrainEvents could return anything: false
// means no account has undrained events. It takes no lock, so a runtime
// polling every bar skips the drain cheaply.
func (p *Port) MayHaveEvents() bool { return p.x.queued.Load() > 0 }
