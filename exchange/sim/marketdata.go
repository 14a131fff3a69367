package sim

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// BookShape is the synthetic depth shown around the last price, standing
// for the market outside the simulated accounts (whose volume the klines
// carry but whose orders they do not). It is indicative only: takers fill
// at the last price (or the next open), never by walking these levels.
type BookShape struct {
	// Levels per side (default 10); negative shows only the accounts'
	// own orders.
	Levels int
	// SpreadBps is the gap between the best synthetic bid and ask, in basis
	// points of the last price (default 10).
	SpreadBps decimal.Decimal
	// StepBps is the gap between neighbouring levels (default 10).
	StepBps decimal.Decimal
	// LevelQuote is each level's size in the quote asset (default 10000).
	LevelQuote decimal.Decimal
}

func (b BookShape) withDefaults() BookShape {
	if b.Levels == 0 {
		b.Levels = 10
	}
	if b.SpreadBps.IsZero() {
		b.SpreadBps = decimal.NewFromInt(10)
	}
	if b.StepBps.IsZero() {
		b.StepBps = decimal.NewFromInt(10)
	}
	if b.LevelQuote.IsZero() {
		b.LevelQuote = decimal.NewFromInt(10000)
	}
	return b
}

// avgPriceMins is the window of the average price endpoint.
const avgPriceMins = 5

var two = decimal.NewFromInt(2)

// ExchangeInfo returns the rules of every symbol, or of those named
// (unknown names answer 10007 bad symbol).
func (x *Exchange) ExchangeInfo(symbols ...string) (*exchange.ExchangeInfo, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.exchangeInfo(symbols)
}

func (x *Exchange) exchangeInfo(symbols []string) (*exchange.ExchangeInfo, error) {
	out := &exchange.ExchangeInfo{Timezone: "UTC", ServerTime: exchange.MillisOf(x.now)}
	want := map[string]bool{}
	for _, s := range symbols {
		if _, ok := x.markets[s]; !ok {
			return nil, apiErr(exchange.CodeBadSymbol, "bad symbol %q", s)
		}
		want[s] = true
	}
	for _, s := range x.symbols {
		if len(want) == 0 || want[s] {
			out.Symbols = append(out.Symbols, x.markets[s].info)
		}
	}
	return out, nil
}

// DefaultSymbols lists the symbols open to API trading: online and API
// tradable, sorted.
func (x *Exchange) DefaultSymbols() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := []string{}
	for _, s := range x.symbols {
		info := &x.markets[s].info
		if (info.Status == "" || info.Status == exchange.SymbolOnline) && info.IsSpotTradingAllowed {
			out = append(out, s)
		}
	}
	return out
}

// OfflineSymbols lists paused symbols (state 2, suspended) and offline
// ones (state 3, delisted, with the time they went offline), sorted.
func (x *Exchange) OfflineSymbols() []exchange.OfflineSymbol {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := []exchange.OfflineSymbol{}
	for _, s := range x.symbols {
		m := x.markets[s]
		switch m.info.Status {
		case exchange.SymbolPaused:
			out = append(out, exchange.OfflineSymbol{Symbol: s, State: 2})
		case exchange.SymbolOffline:
			out = append(out, exchange.OfflineSymbol{Symbol: s, State: 3, OfflineTime: m.tape.offlineAt})
		}
	}
	return out
}

// Depth returns a symbol's order book: the accounts' resting orders merged
// level by level with the synthetic book around the last price, best
// first, at most limit levels a side (0 means 100; at most 5000).
func (x *Exchange) Depth(symbol string, limit int) (*exchange.OrderBook, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(symbol)
	if err != nil {
		return nil, err
	}
	if limit, err = listLimit(limit, 100, 5000); err != nil {
		return nil, err
	}
	bids, asks := x.mergedBook(m, limit)
	return &exchange.OrderBook{LastUpdateID: m.tape.updates, Bids: bids, Asks: asks}, nil
}

// mergedBook builds both sides of the merged book, at most limit levels each.
func (x *Exchange) mergedBook(m *market, limit int) (bids, asks []exchange.PriceLevel) {
	sb, sa := x.synthetic(m)
	bids = mergeLevels(levelsOf(m.bids), sb, limit, true)
	asks = mergeLevels(levelsOf(m.asks), sa, limit, false)
	return bids, asks
}

// levelsOf sums resting orders (already best first) by price.
func levelsOf(orders []*order) []exchange.PriceLevel {
	var out []exchange.PriceLevel
	for _, o := range orders {
		if n := len(out); n > 0 && out[n-1].Price.Equal(o.price) {
			out[n-1].Qty = out[n-1].Qty.Add(o.left)
			continue
		}
		out = append(out, exchange.PriceLevel{Price: o.price, Qty: o.left})
	}
	return out
}

// synthetic returns the synthetic levels, best first: bids rounded down and
// asks rounded up to the price precision, each worth LevelQuote.
func (x *Exchange) synthetic(m *market) (bids, asks []exchange.PriceLevel) {
	shape := x.opts.Book.withDefaults()
	if shape.Levels < 0 || !m.price().IsPositive() {
		return nil, nil
	}
	half := shape.SpreadBps.Div(bpsScale).Div(two)
	step := shape.StepBps.Div(bpsScale)
	sc := m.info.PriceScale()
	for i := 0; i < shape.Levels; i++ {
		off := half.Add(step.Mul(decimal.NewFromInt(int64(i))))
		if bp := m.price().Mul(one.Sub(off)).RoundFloor(sc); bp.IsPositive() {
			bids = addLevel(bids, bp, m.info.FloorQty(shape.LevelQuote.Div(bp)))
		}
		ap := m.price().Mul(one.Add(off)).RoundCeil(sc)
		asks = addLevel(asks, ap, m.info.FloorQty(shape.LevelQuote.Div(ap)))
	}
	return bids, asks
}

// addLevel appends a level, merging it into the previous one when rounding
// gave both the same price.
func addLevel(ls []exchange.PriceLevel, p, q decimal.Decimal) []exchange.PriceLevel {
	if !q.IsPositive() {
		return ls
	}
	if n := len(ls); n > 0 && ls[n-1].Price.Equal(p) {
		ls[n-1].Qty = ls[n-1].Qty.Add(q)
		return ls
	}
	return append(ls, exchange.PriceLevel{Price: p, Qty: q})
}

// mergeLevels merges two best-first sides, summing equal prices.
func mergeLevels(a, b []exchange.PriceLevel, limit int, bids bool) []exchange.PriceLevel {
	out := make([]exchange.PriceLevel, 0, min(limit, len(a)+len(b)))
	better := func(p, q decimal.Decimal) bool {
		if bids {
			return p.GreaterThan(q)
		}
		return p.LessThan(q)
	}
	i, j := 0, 0
	for len(out) < limit && (i < len(a) || j < len(b)) {
		switch {
		case j == len(b) || (i < len(a) && better(a[i].Price, b[j].Price)):
			out = append(out, a[i])
			i++
		case i == len(a) || better(b[j].Price, a[i].Price):
			out = append(out, b[j])
			j++
		default:
			out = append(out, exchange.PriceLevel{Price: a[i].Price, Qty: a[i].Qty.Add(b[j].Qty)})
			i++
			j++
		}
	}
	return out
}

// opt wraps a decimal that is known.
func opt(d decimal.Decimal) exchange.OptDecimal { return exchange.OptDecimal{Decimal: d, Valid: true} }

// BookTicker returns a symbol's best bid and ask (of the merged book);
// sides without a level are absent.
func (x *Exchange) BookTicker(symbol string) (exchange.BookTicker, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(symbol)
	if err != nil {
		return exchange.BookTicker{}, err
	}
	return x.bookTicker(m), nil
}

// BookTickers returns every symbol's book ticker, sorted by symbol.
func (x *Exchange) BookTickers() []exchange.BookTicker {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]exchange.BookTicker, 0, len(x.symbols))
	for _, s := range x.symbols {
		out = append(out, x.bookTicker(x.markets[s]))
	}
	return out
}

func (x *Exchange) bookTicker(m *market) exchange.BookTicker {
	t := exchange.BookTicker{Symbol: m.info.Symbol}
	bids, asks := x.mergedBook(m, 1)
	if len(bids) > 0 {
		t.BidPrice, t.BidQty = opt(bids[0].Price), opt(bids[0].Qty)
	}
	if len(asks) > 0 {
		t.AskPrice, t.AskQty = opt(asks[0].Price), opt(asks[0].Qty)
	}
	return t
}

// TickerPrice returns a symbol's last price (absent before any kline or
// trade).
func (x *Exchange) TickerPrice(symbol string) (exchange.PriceTicker, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(symbol)
	if err != nil {
		return exchange.PriceTicker{}, err
	}
	return priceTicker(m), nil
}

// TickerPrices returns every symbol's last price, sorted by symbol.
func (x *Exchange) TickerPrices() []exchange.PriceTicker {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]exchange.PriceTicker, 0, len(x.symbols))
	for _, s := range x.symbols {
		out = append(out, priceTicker(x.markets[s]))
	}
	return out
}

func priceTicker(m *market) exchange.PriceTicker {
	t := exchange.PriceTicker{Symbol: m.info.Symbol}
	if m.price().IsPositive() {
		t.Price = opt(m.price())
	}
	return t
}

// LastPrice returns a symbol's last trade price (zero before any).
func (x *Exchange) LastPrice(symbol string) (decimal.Decimal, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(symbol)
	if err != nil {
		return decimal.Zero, err
	}
	return m.price(), nil
}

// AvgPrice returns the volume-weighted average close of the bars of the
// last 5 minutes (of the finest interval fed), their plain average when
// they carry no volume, or the last price when there are none; rounded to
// the price precision.
func (x *Exchange) AvgPrice(symbol string) (exchange.AvgPrice, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(symbol)
	if err != nil {
		return exchange.AvgPrice{}, err
	}
	from := x.now.Add(-avgPriceMins * time.Minute)
	var pv, vol, sum decimal.Decimal
	n := 0
	for _, k := range m.finest() {
		if k.OpenTime.Before(from) {
			continue
		}
		pv = pv.Add(k.Close.Mul(k.Volume))
		vol = vol.Add(k.Volume)
		sum = sum.Add(k.Close)
		n++
	}
	price := m.price()
	switch {
	case vol.IsPositive():
		price = pv.Div(vol)
	case n > 0:
		price = sum.Div(decimal.NewFromInt(int64(n)))
	}
	return exchange.AvgPrice{Mins: avgPriceMins, Price: m.info.RoundPrice(price)}, nil
}

// finest returns the klines of the shortest fixed interval fed (or the
// monthly ones when only those were fed).
func (m *market) finest() []exchange.Kline {
	var best exchange.Interval
	for _, iv := range exchange.Intervals() {
		if len(m.bars(iv)) > 0 {
			best = iv
			break
		}
	}
	return m.bars(best)
}

// Ticker24h returns a symbol's statistics over the last 24 hours of
// simulated time: open, high, low and volumes from the bars of the finest
// interval fed that opened in the window, the last price and the last
// trade's quantity, the best bid and ask of the merged book, and the count
// of public trades in the window.
func (x *Exchange) Ticker24h(symbol string) (exchange.Ticker24h, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(symbol)
	if err != nil {
		return exchange.Ticker24h{}, err
	}
	return x.ticker24h(m), nil
}

// Tickers24h returns every symbol's 24-hour statistics, sorted by symbol.
func (x *Exchange) Tickers24h() []exchange.Ticker24h {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]exchange.Ticker24h, 0, len(x.symbols))
	for _, s := range x.symbols {
		out = append(out, x.ticker24h(x.markets[s]))
	}
	return out
}

func (x *Exchange) ticker24h(m *market) exchange.Ticker24h {
	from := x.now.Add(-24 * time.Hour)
	t := exchange.Ticker24h{Symbol: m.info.Symbol, OpenTime: from, CloseTime: x.now, Count: m.tradesSince(from)}
	var vol, qvol decimal.Decimal
	var prev *exchange.Kline
	ks := m.finest()
	for i := range ks {
		k := &ks[i]
		if k.OpenTime.Before(from) {
			prev = k
			continue
		}
		if !t.OpenPrice.Valid {
			t.OpenPrice, t.HighPrice, t.LowPrice, t.OpenTime = opt(k.Open), opt(k.High), opt(k.Low), k.OpenTime
		}
		if k.High.GreaterThan(t.HighPrice.Decimal) {
			t.HighPrice = opt(k.High)
		}
		if k.Low.LessThan(t.LowPrice.Decimal) {
			t.LowPrice = opt(k.Low)
		}
		vol, qvol = vol.Add(k.Volume), qvol.Add(k.QuoteVolume)
	}
	t.Volume, t.QuoteVolume = opt(vol), opt(qvol)
	if prev != nil {
		t.PrevClosePrice = opt(prev.Close)
	}
	if m.price().IsPositive() {
		t.LastPrice = opt(m.price())
		if t.OpenPrice.Valid && t.OpenPrice.Decimal.IsPositive() {
			ch := m.price().Sub(t.OpenPrice.Decimal)
			t.PriceChange = opt(ch)
			t.PriceChangePercent = opt(ch.Div(t.OpenPrice.Decimal).Round(4))
		}
	}
	if n := len(m.tape.trades); n > 0 {
		t.LastQty = opt(m.tape.trades[n-1].qty)
	}
	bt := x.bookTicker(m)
	t.BidPrice, t.BidQty, t.AskPrice, t.AskQty = bt.BidPrice, bt.BidQty, bt.AskPrice, bt.AskQty
	return t
}
