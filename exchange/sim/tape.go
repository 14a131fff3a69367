package sim

import (
	"sort"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// defaultTradeRetention is how many public trades a symbol keeps when
// Options.TradeRetention is zero: ten full pages of the trades endpoint.
const defaultTradeRetention = 10000

// publicTrade is one trade as the market's public tape shows it.
type publicTrade struct {
	id         int64
	agg        int64 // aggregate trade id
	price, qty decimal.Decimal
	at         time.Time
	buyerMaker bool
}

// tape is a symbol's public record: its trades, aggregated as the live
// service aggregates them, and a counter of book changes for the depth
// endpoint's lastUpdateId.
type tape struct {
	trades   []publicTrade // oldest first
	seq      int64         // last trade id
	aggSeq   int64         // last aggregate id
	aggOrder string        // the order the last aggregate belongs to
	updates  int64         // book and price changes
	// offlineAt is when the symbol went offline (delisted).
	offlineAt time.Time
}

// tapeTrade records a trade of order orderID (the taker, or the account's
// order when it trades with the kline-driven market) on the public tape.
// Trades at the same time, from the same order, at the same price share an
// aggregate id.
func (x *Exchange) tapeTrade(m *market, orderID string, price, qty decimal.Decimal, buyerMaker bool) {
	t := &m.tape
	t.seq++
	t.updates++
	n := len(t.trades)
	if n == 0 || t.aggOrder != orderID || !t.trades[n-1].price.Equal(price) || !t.trades[n-1].at.Equal(x.now) || t.trades[n-1].buyerMaker != buyerMaker {
		t.aggSeq++
		t.aggOrder = orderID
	}
	keep := x.opts.TradeRetention
	if keep <= 0 {
		keep = defaultTradeRetention
	}
	if n >= 2*keep {
		// Trim in bulk so recording stays amortised O(1).
		t.trades = t.trades[:copy(t.trades, t.trades[n-keep+1:])]
	}
	t.trades = append(t.trades, publicTrade{id: t.seq, agg: t.aggSeq, price: price, qty: qty, at: x.now, buyerMaker: buyerMaker})
}

// recent returns the trades the tape still holds, at most keep of them.
func (t *tape) recent(keep int) []publicTrade {
	if keep > 0 && len(t.trades) > keep {
		return t.trades[len(t.trades)-keep:]
	}
	return t.trades
}

func (x *Exchange) retention() int {
	if x.opts.TradeRetention > 0 {
		return x.opts.TradeRetention
	}
	return defaultTradeRetention
}

// Trades returns a symbol's most recent public trades, oldest first: at
// most limit (0 means the default 500; at most 1000).
func (x *Exchange) Trades(symbol string, limit int) ([]exchange.PublicTrade, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(symbol)
	if err != nil {
		return nil, err
	}
	if limit, err = listLimit(limit, 500, 1000); err != nil {
		return nil, err
	}
	ts := m.tape.recent(x.retention())
	if len(ts) > limit {
		ts = ts[len(ts)-limit:]
	}
	out := make([]exchange.PublicTrade, len(ts))
	for i, t := range ts {
		out[i] = exchange.PublicTrade{ID: strconv.FormatInt(t.id, 10), Price: t.price, Qty: t.qty, QuoteQty: t.price.Mul(t.qty),
			Time: t.at, IsBuyerMaker: t.buyerMaker, IsBestMatch: true}
	}
	return out, nil
}

// AggTrades returns a symbol's aggregate trades, oldest first. With a
// window (Start and End together, both inclusive) the aggregates from its
// start; otherwise the most recent. At most Limit (0 means 500; at most
// 1000).
func (x *Exchange) AggTrades(r exchange.AggTradesRequest) ([]exchange.AggTrade, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(r.Symbol)
	if err != nil {
		return nil, err
	}
	limit, err := listLimit(r.Limit, 500, 1000)
	if err != nil {
		return nil, err
	}
	if r.Start.IsZero() != r.End.IsZero() {
		return nil, apiErr(exchange.CodeParameterError, "startTime and endTime must be used together")
	}
	if !r.Start.IsZero() && r.End.Before(r.Start) {
		return nil, apiErr(exchange.CodeParameterError, "endTime is before startTime")
	}
	ts := m.tape.recent(x.retention())
	var aggs []exchange.AggTrade
	for i := 0; i < len(ts); {
		j := i + 1
		for j < len(ts) && ts[j].agg == ts[i].agg {
			j++
		}
		if r.Start.IsZero() || (!ts[i].at.Before(r.Start) && !ts[i].at.After(r.End)) {
			a := exchange.AggTrade{ID: strconv.FormatInt(ts[i].agg, 10), FirstTradeID: strconv.FormatInt(ts[i].id, 10),
				LastTradeID: strconv.FormatInt(ts[j-1].id, 10), Price: ts[i].price, Time: ts[i].at,
				IsBuyerMaker: ts[i].buyerMaker, IsBestMatch: true}
			for _, t := range ts[i:j] {
				a.Qty = a.Qty.Add(t.qty)
			}
			aggs = append(aggs, a)
			if !r.Start.IsZero() && len(aggs) == limit {
				break
			}
		}
		i = j
	}
	if len(aggs) > limit {
		aggs = aggs[len(aggs)-limit:]
	}
	if aggs == nil {
		aggs = []exchange.AggTrade{}
	}
	return aggs, nil
}

// listLimit applies a list endpoint's default and maximum.
func listLimit(limit, def, max int) (int, error) {
	if limit == 0 {
		return def, nil
	}
	if limit < 0 || limit > max {
		return 0, apiErr(exchange.CodeParameterError, "limit %d outside 1..%d", limit, max)
	}
	return limit, nil
}

// market returns a symbol's market or the live service's refusal. The
// last market asked for is found again without a map lookup (markets are
// never removed); the caller holds x.mu.
func (x *Exchange) market(symbol string) (*market, error) {
	if m := x.lastMarket; m != nil && m.info.Symbol == symbol {
		return m, nil
	}
	m, ok := x.markets[symbol]
	if !ok {
		return nil, apiErr(exchange.CodeBadSymbol, "bad symbol %q", symbol)
	}
	x.lastMarket = m
	return m, nil
}

// tradesSince counts the public trades at or after t.
func (m *market) tradesSince(t time.Time) int64 {
	ts := m.tape.trades
	i := sort.Search(len(ts), func(i int) bool { return !ts[i].at.Before(t) })
	return int64(len(ts) - i)
}
