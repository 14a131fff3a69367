package strategy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// testClock is a settable clock.
type testClock struct{ t time.Time }

func (c *testClock) Now() time.Time { return c.t }

// outcome scripts what the fake exchange does with the next order.
type outcome int

const (
	accept          outcome = iota
	unknownPlaced           // acts, then answers 5XX
	unknownNotPlace         // fails before acting with an unknown outcome
	refuse                  // answers 30004
)

// fakeTrader is a scripted exchange for runtime tests: orders are accepted,
// refused or left with an unknown outcome as scripted, and filled by the
// test. The simulator's conformance suite covers real matching.
type fakeTrader struct {
	mu          sync.Mutex
	script      []outcome
	orders      map[string]*exchange.Order // by client order id
	trades      map[string][]exchange.OwnTrade
	places      int
	journal     *memJournal
	sawIntent   []bool // for each place: was the intent journaled before the call
	balances    []exchange.Balance
	nextID      int
	staleStatus map[string]exchange.OrderStatus // status to report on the next query
}

func newFakeTrader(j *memJournal) *fakeTrader {
	return &fakeTrader{orders: map[string]*exchange.Order{}, trades: map[string][]exchange.OwnTrade{}, journal: j,
		balances:    []exchange.Balance{{Asset: "USDT", Free: d("10000")}, {Asset: "BTC", Free: d("1")}},
		staleStatus: map[string]exchange.OrderStatus{}}
}

var errNotImplemented = errors.New("fake: not used by the runtime tests")

func (f *fakeTrader) ServerTime(context.Context) (time.Time, error) {
	return time.Time{}, errNotImplemented
}
func (f *fakeTrader) ExchangeInfo(context.Context, ...string) (*exchange.ExchangeInfo, error) {
	return &exchange.ExchangeInfo{Symbols: []exchange.SymbolInfo{{
		Symbol: "BTCUSDT", Status: exchange.SymbolOnline, BaseAsset: "BTC", QuoteAsset: "USDT",
		BaseAssetPrecision: 4, QuotePrecision: 2, IsSpotTradingAllowed: true, TradeSideType: exchange.TradeSideAll,
		OrderTypes: []exchange.OrderType{exchange.TypeLimit, exchange.TypeMarket},
	}}}, nil
}
func (f *fakeTrader) Klines(context.Context, exchange.KlinesRequest) ([]exchange.Kline, error) {
	return nil, errNotImplemented
}
func (f *fakeTrader) TestOrder(context.Context, exchange.NewOrder) error { return errNotImplemented }
func (f *fakeTrader) CancelOpenOrders(context.Context, string) ([]exchange.Order, error) {
	return nil, errNotImplemented
}
func (f *fakeTrader) OpenOrders(context.Context, string) ([]exchange.Order, error) {
	return nil, errNotImplemented
}
func (f *fakeTrader) TradeFee(context.Context, string) (exchange.TradeFee, error) {
	return exchange.TradeFee{}, errNotImplemented
}
func (f *fakeTrader) DustCandidates(context.Context) ([]exchange.DustCandidate, error) {
	return nil, errNotImplemented
}
func (f *fakeTrader) ConvertDust(context.Context, []string) (exchange.DustResult, error) {
	return exchange.DustResult{}, errNotImplemented
}

func (f *fakeTrader) Account(context.Context) (*exchange.Account, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &exchange.Account{Balances: append([]exchange.Balance(nil), f.balances...)}, nil
}

func (f *fakeTrader) PlaceOrder(_ context.Context, o exchange.NewOrder) (exchange.OrderAck, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.places++
	f.sawIntent = append(f.sawIntent, f.journal.hasIntent(o.NewClientOrderID))
	oc := accept
	if len(f.script) > 0 {
		oc, f.script = f.script[0], f.script[1:]
	}
	switch oc {
	case refuse:
		return exchange.OrderAck{}, &exchange.APIError{Status: 400, Code: exchange.CodeInsufficientPosition, Msg: "insufficient position"}
	case unknownNotPlace:
		return exchange.OrderAck{}, &exchange.UnknownOutcomeError{Endpoint: "newOrder", Status: 503}
	}
	f.nextID++
	id := fmt.Sprint(f.nextID)
	f.orders[o.NewClientOrderID] = &exchange.Order{Symbol: o.Symbol, OrderID: id, ClientOrderID: o.NewClientOrderID,
		Price: o.Price, OrigQty: o.Quantity, Status: exchange.StatusNew, Type: o.Type, Side: o.Side}
	if oc == unknownPlaced {
		return exchange.OrderAck{}, &exchange.UnknownOutcomeError{Endpoint: "newOrder", Status: 503}
	}
	return exchange.OrderAck{Symbol: o.Symbol, OrderID: id, ClientOrderID: o.NewClientOrderID}, nil
}

func (f *fakeTrader) PlaceBatch(ctx context.Context, orders []exchange.NewOrder) ([]exchange.BatchResult, error) {
	out := make([]exchange.BatchResult, len(orders))
	for i, o := range orders {
		ack, err := f.PlaceOrder(ctx, o)
		var api *exchange.APIError
		if errors.As(err, &api) {
			out[i] = exchange.BatchResult{ClientOrderID: o.NewClientOrderID, Code: api.Code, Msg: api.Msg}
			continue
		}
		out[i] = exchange.BatchResult{Ack: &ack, ClientOrderID: o.NewClientOrderID}
	}
	return out, nil
}

func (f *fakeTrader) QueryOrder(_ context.Context, r exchange.QueryOrderRequest) (exchange.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.orders[r.OrigClientOrderID]
	if !ok {
		return exchange.Order{}, &exchange.APIError{Status: 400, Code: exchange.CodeUnknownOrder, Msg: "Unknown order sent."}
	}
	out := *o
	if st, ok := f.staleStatus[r.OrigClientOrderID]; ok {
		out.Status = st
		delete(f.staleStatus, r.OrigClientOrderID)
	}
	return out, nil
}

func (f *fakeTrader) CancelOrder(_ context.Context, r exchange.CancelOrderRequest) (exchange.Order, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.orders[r.OrigClientOrderID]
	if !ok || o.Status.Final() {
		return exchange.Order{}, &exchange.APIError{Status: 400, Code: exchange.CodeUnknownOrder}
	}
	o.Status = exchange.StatusCanceled
	if o.ExecutedQty.IsPositive() {
		o.Status = exchange.StatusPartiallyCanceled
	}
	return *o, nil
}

func (f *fakeTrader) MyTrades(_ context.Context, r exchange.MyTradesRequest) ([]exchange.OwnTrade, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]exchange.OwnTrade(nil), f.trades[r.OrderID]...), nil
}

// fill executes qty of an order at price.
func (f *fakeTrader) fill(cid string, qty, price string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.orders[cid]
	q := d(qty)
	o.ExecutedQty = o.ExecutedQty.Add(q)
	o.CummulativeQuoteQty = o.CummulativeQuoteQty.Add(q.Mul(d(price)))
	o.Status = exchange.StatusPartiallyFilled
	if o.ExecutedQty.Equal(o.OrigQty) {
		o.Status = exchange.StatusFilled
	}
	n := len(f.trades[o.OrderID]) + 1
	f.trades[o.OrderID] = append(f.trades[o.OrderID], exchange.OwnTrade{Symbol: o.Symbol, ID: fmt.Sprintf("%s-%d", o.OrderID, n),
		OrderID: o.OrderID, Price: d(price), Qty: q, QuoteQty: q.Mul(d(price)), Commission: d("0"), CommissionAsset: "USDT", Time: at})
}

// memJournal is an in-memory Journal for runtime tests.
type memJournal struct {
	mu      sync.Mutex
	intents map[string]Intent
	acks    map[string]string
	unknown map[string]bool
	refused map[string]string
	orders  map[string]exchange.OrderStatus
	fills   map[string]bool
	state   map[string][]byte
	runs    []Run
}

func newMemJournal() *memJournal {
	return &memJournal{intents: map[string]Intent{}, acks: map[string]string{}, unknown: map[string]bool{},
		refused: map[string]string{}, orders: map[string]exchange.OrderStatus{}, fills: map[string]bool{}, state: map[string][]byte{}}
}

func (j *memJournal) hasIntent(cid string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.intents[cid]
	return ok
}

func (j *memJournal) RecordIntent(_ context.Context, in Intent) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.intents[in.ClientOrderID]; ok {
		return false, nil
	}
	j.intents[in.ClientOrderID] = in
	return true, nil
}
func (j *memJournal) RecordAck(_ context.Context, cid, oid string, _ time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.acks[cid] = oid
	return nil
}
func (j *memJournal) RecordUnknown(_ context.Context, cid string, _ error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.unknown[cid] = true
	return nil
}
func (j *memJournal) RecordRefused(_ context.Context, cid string, cause error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refused[cid] = cause.Error()
	return nil
}
func (j *memJournal) RecordOrder(_ context.Context, _ string, o exchange.Order) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if o.Status.Rank() > j.orders[o.ClientOrderID].Rank() {
		j.orders[o.ClientOrderID] = o.Status
	}
	return nil
}
func (j *memJournal) RecordFill(_ context.Context, _, _ string, t exchange.OwnTrade) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := t.Symbol + "/" + t.ID
	if j.fills[k] {
		return false, nil
	}
	j.fills[k] = true
	return true, nil
}
func (j *memJournal) SaveState(_ context.Context, inst string, b []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.state[inst] = append([]byte(nil), b...)
	return nil
}
func (j *memJournal) LoadState(_ context.Context, inst string) ([]byte, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, ok := j.state[inst]
	return b, ok, nil
}
func (j *memJournal) RecordRun(_ context.Context, r Run) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.runs = append(j.runs, r)
	return nil
}
