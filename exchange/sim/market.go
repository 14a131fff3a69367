package sim

import (
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// market is one symbol: rules, last price, the accounts' book and klines.
type market struct {
	info    exchange.SymbolInfo
	last    decimal.Decimal
	bids    []*order                                // best (highest price, then oldest) first
	asks    []*order                                // best (lowest price, then oldest) first
	pending []*order                                // waiting for the next kline's open
	klines  map[exchange.Interval]*[]exchange.Kline // pointers: feeding a bar writes no map entry
	// lastIv and lastBars are the feed of the last kline fed: a replay of
	// one interval finds it without a map lookup.
	lastIv   exchange.Interval
	lastBars *[]exchange.Kline
	tape     tape // public trades and book changes
	// A bar fed by FeedBar is held compact (held, heldIv) until its
	// kline is asked for or the next bar of another feed, or a feed
	// keeping more than one kline, needs it stored: a replay keeping one
	// kline a feed builds no decimal per bar. Likewise its close is the
	// last price (lastFix) until a decimal is asked for.
	held     exchange.FixedKline
	heldIv   exchange.Interval
	heldDur  time.Duration // heldIv's length; 0 for a month, whose length varies
	holding  bool
	heldNs   int64 // held.OpenTime's shadow when heldFast (clock.go)
	heldFast bool
	lastFix  exchange.Fixed
	lastHeld bool
	retain   int // Options.KlineRetention
}

// price is the last trade price.
func (m *market) price() decimal.Decimal {
	if m.lastHeld {
		m.last, m.lastHeld = m.lastFix.Decimal(), false
	}
	return m.last
}

func (m *market) setLast(p decimal.Decimal) { m.last, m.lastHeld = p, false }

// checkRules applies the symbol's rules to a valid order at the last
// price as the market holds it: a quote-sized market order's rules read
// none, and a bar's close is compared as a Fixed, its decimal built only
// if a rule needs it (exchange.SymbolInfo.CheckRulesFixed).
func (m *market) checkRules(no exchange.NewOrder) error {
	switch {
	case !exchange.RulesReadLast(no):
		return m.info.CheckRules(no, decimal.Decimal{})
	case m.lastHeld:
		return m.info.CheckRulesFixed(no, m.lastFix)
	}
	return m.info.CheckRules(no, m.last)
}

// flush stores the held bar's kline.
func (m *market) flush() {
	if !m.holding {
		return
	}
	m.holding = false
	m.store(m.feed(m.heldIv), m.held.Kline())
}

// store appends k to the feed p, keeping at most retain klines.
func (m *market) store(p *[]exchange.Kline, k exchange.Kline) {
	ks := *p
	if ret := m.retain; ret > 0 && len(ks) >= ret {
		copy(ks, ks[1:])
		ks = ks[:len(ks)-1]
	}
	*p = append(ks, k)
}

// feed returns the klines fed at iv, for appending to.
func (m *market) feed(iv exchange.Interval) *[]exchange.Kline {
	if m.lastBars != nil && m.lastIv == iv {
		return m.lastBars
	}
	p := m.klines[iv]
	if p == nil {
		p = new([]exchange.Kline)
		m.klines[iv] = p
	}
	m.lastIv, m.lastBars = iv, p
	return p
}

// bars returns the klines fed at iv.
func (m *market) bars(iv exchange.Interval) []exchange.Kline {
	m.flush()
	if p := m.klines[iv]; p != nil {
		return *p
	}
	return nil
}

// insert places a resting order in price-time priority.
func (m *market) insert(o *order) {
	m.tape.updates++
	if o.buy() {
		i := sort.Search(len(m.bids), func(i int) bool { return exchange.CmpDecimal(m.bids[i].price, o.price) < 0 })
		m.bids = append(m.bids, nil)
		copy(m.bids[i+1:], m.bids[i:])
		m.bids[i] = o
		return
	}
	i := sort.Search(len(m.asks), func(i int) bool { return exchange.CmpDecimal(m.asks[i].price, o.price) > 0 })
	m.asks = append(m.asks, nil)
	copy(m.asks[i+1:], m.asks[i:])
	m.asks[i] = o
}

// remove takes an order off the book.
func (m *market) remove(o *order) {
	m.tape.updates++
	book := &m.asks
	if o.buy() {
		book = &m.bids
	}
	for i, r := range *book {
		if r == o {
			*book = append((*book)[:i], (*book)[i+1:]...)
			return
		}
	}
	for i, r := range m.pending {
		if r == o {
			m.pending = append(m.pending[:i], m.pending[i+1:]...)
			return
		}
	}
}

// opposite returns the resting orders an order on side s would match
// against.
func (m *market) opposite(s orderSide) []*order {
	if s == sideBuy {
		return m.asks
	}
	return m.bids
}
