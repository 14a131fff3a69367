package sim

import (
	"fmt"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// FeedKline delivers a closed kline of a symbol: pending orders fill at its
// open, resting orders fill by the fill model along the bar's path, the
// last price becomes its close, the clock moves to its close time, and the
// kline is kept for the klines endpoint. Klines of one feed must arrive in
// time order.
func (x *Exchange) FeedKline(symbol string, iv exchange.Interval, k exchange.Kline) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	m, err := x.market(symbol)
	if err != nil {
		return err
	}
	m.flush()
	p := m.feed(iv)
	ks := *p
	if n := len(ks); n > 0 && !k.OpenTime.After(ks[n-1].OpenTime) {
		return notAfter(symbol, iv, k.OpenTime, ks[n-1].OpenTime)
	}
	if exchange.CmpDecimal(k.Low, k.High) > 0 || !k.Low.IsPositive() {
		return fmt.Errorf("sim: %s %s kline at %s has low %s above high %s or not positive", symbol, iv, k.OpenTime, k.Low, k.High)
	}
	if open := k.OpenTime; open.After(x.now) {
		x.setNow(open)
	}
	if len(m.pending) > 0 {
		x.fillPending(m, numOf(k.Open))
	}
	if len(m.bids) > 0 || len(m.asks) > 0 {
		x.fillResting(m, k)
	}
	m.setLast(k.Close)
	m.tape.updates++
	if closeAt := iv.Next(k.OpenTime); closeAt.After(x.now) {
		x.setNow(closeAt)
	}
	m.store(p, k)
	return nil
}

// FeedBar is FeedKline for a bar with Fixed numbers, with the same
// checks, fills and results, building decimals only where something
// needs them: the open's alone when orders wait for it, the bar's kline
// when a resting order is reached (the fills are then FeedKline's), the close's
// when the last price is asked for, and the kline when klines are asked
// for or stored beside others (a feed keeping one kline, a replay's,
// holds the latest bar compact instead).
func (x *Exchange) FeedBar(symbol string, iv exchange.Interval, k *exchange.FixedKline) error {
	x.lockFeed()
	defer x.unlockFeed()
	m, err := x.market(symbol)
	if err != nil {
		return err
	}
	return x.feedBar(m, symbol, iv, k)
}

// lockFeed and unlockFeed take and release the lock around the per-bar
// calls (FeedBar, FeedRun, Idle) and the port's (an order, its events,
// the balances read after a fill), unless one goroutine alone drives the
// exchange (Options.SingleDriver): a backtest calls them at every bar and
// every order.
func (x *Exchange) lockFeed() {
	if !x.opts.SingleDriver {
		x.mu.Lock()
	}
}

func (x *Exchange) unlockFeed() {
	if !x.opts.SingleDriver {
		x.mu.Unlock()
	}
}

// Idle reports whether no order of the symbol waits for a bar (none
// pending for the next open, none resting): a bar then fills nothing, and
// FeedRun may stand for many.
func (x *Exchange) Idle(symbol string) bool {
	x.lockFeed()
	defer x.unlockFeed()
	m, err := x.market(symbol)
	return err == nil && m.idle()
}

func (m *market) idle() bool { return len(m.pending) == 0 && len(m.bids) == 0 && len(m.asks) == 0 }

// FeedRun stands for n FeedBar calls of an Idle symbol whose last bar is
// last: the exchange ends as they would leave it (nothing fills; the
// clock, the last price and the bar kept are the last bar's; the book's
// update id counts n). The caller vouches that the n bars were in order
// and well formed, as a series' bars are; last is checked as FeedBar
// checks a bar. A symbol with orders waiting is refused.
func (x *Exchange) FeedRun(symbol string, iv exchange.Interval, n int, last *exchange.FixedKline) error {
	x.lockFeed()
	defer x.unlockFeed()
	m, err := x.market(symbol)
	if err != nil {
		return err
	}
	if n < 1 {
		return fmt.Errorf("sim: %s %s: a run of %d bars", symbol, iv, n)
	}
	if !m.idle() {
		return fmt.Errorf("sim: %s %s: a run of bars fed while orders wait for them", symbol, iv)
	}
	if m.retain != 1 {
		return fmt.Errorf("sim: %s %s: a run of bars fed to an exchange that keeps more than one kline (it would lose all but the last)", symbol, iv)
	}
	if err := x.feedBar(m, symbol, iv, last); err != nil {
		return err
	}
	m.tape.updates += int64(n - 1)
	return nil
}

// feedBar is FeedBar on the symbol's market, the lock held (or not needed).
// Times compare and the clock moves on the integer shadows of clock.go
// when the bar's open time and the time compared have one, as time.Time
// otherwise, with the same results.
func (x *Exchange) feedBar(m *market, symbol string, iv exchange.Interval, k *exchange.FixedKline) error {
	// same says the bar continues the held bars' feed; dur is the
	// interval's length, looked up once while the bars of one interval
	// are held (Interval.Duration compares strings).
	same := m.holding && m.heldIv == iv
	var dur time.Duration
	if same {
		dur = m.heldDur
	} else if iv != exchange.Interval1M {
		dur = iv.Duration()
	}
	if m.holding && (!same || m.retain != 1) {
		m.flush()
	}
	kNs, kFast := fastNanos(k.OpenTime)
	if m.holding && m.heldFast && kFast {
		if kNs <= m.heldNs {
			return notAfter(symbol, iv, k.OpenTime, m.held.OpenTime)
		}
	} else if err := m.follows(symbol, iv, k); err != nil {
		return err
	}
	if k.Low.Cmp(k.High) > 0 || !k.Low.IsPositive() {
		return badRange(symbol, iv, k)
	}
	if kFast && x.nowFast {
		if kNs > x.nowNs {
			x.now, x.nowNs = k.OpenTime, kNs
		}
	} else if open := k.OpenTime; open.After(x.now) {
		x.setNow(open)
	}
	if !m.idle() {
		x.fillBar(m, k)
	}
	m.lastFix, m.lastHeld = k.Close, true
	m.tape.updates++
	if kFast && x.nowFast && dur > 0 && dur <= fastDurMax {
		// k.OpenTime.Add(dur), built from its shadow: the same fields.
		if c := kNs + int64(dur); c > x.nowNs {
			x.now, x.nowNs = time.Unix(0, c).UTC(), c
		}
	} else {
		x.closeBar(iv, dur, k.OpenTime)
	}
	if m.retain == 1 {
		m.held, m.heldNs, m.heldFast = *k, kNs, kFast
		if !same {
			m.heldIv, m.heldDur, m.holding = iv, dur, true
		}
		return nil
	}
	m.store(m.feed(iv), k.Kline())
	return nil
}

// follows checks, as time.Time, that the bar opens after the last of its
// feed (held or stored; a zero open time counts as none).
func (m *market) follows(symbol string, iv exchange.Interval, k *exchange.FixedKline) error {
	var prev time.Time
	if m.holding {
		prev = m.held.OpenTime
	} else if ks := *m.feed(iv); len(ks) > 0 {
		prev = ks[len(ks)-1].OpenTime
	}
	if !prev.IsZero() && !k.OpenTime.After(prev) {
		return notAfter(symbol, iv, k.OpenTime, prev)
	}
	return nil
}

// fillBar fills the orders a bar reaches: those pending fill at its open,
// then the resting ones it reaches.
func (x *Exchange) fillBar(m *market, k *exchange.FixedKline) {
	if len(m.pending) > 0 {
		// Pending orders need the open alone.
		x.fillPending(m, numFixed(k.Open))
	}
	if x.reachesFixed(m, k) {
		x.fillResting(m, k.Kline())
	}
}

// closeBar moves the clock, as time.Time, to the close of the bar opening
// at open: dur later, or the interval's next open when dur is 0 (a month).
func (x *Exchange) closeBar(iv exchange.Interval, dur time.Duration, open time.Time) {
	var closeAt time.Time
	if dur > 0 {
		closeAt = open.Add(dur)
	} else {
		closeAt = iv.Next(open)
	}
	if closeAt.After(x.now) {
		x.setNow(closeAt)
	}
}

// badRange is the refusal of a bar whose low is above its high or not
// positive.
func badRange(symbol string, iv exchange.Interval, k *exchange.FixedKline) error {
	return fmt.Errorf("sim: %s %s kline at %s has low %s above high %s or not positive", symbol, iv, k.OpenTime, k.Low, k.High)
}

// notAfter is the refusal of a bar that does not follow its feed's last.
func notAfter(symbol string, iv exchange.Interval, open, prev time.Time) error {
	return fmt.Errorf("sim: %s %s kline at %s is not after %s", symbol, iv, open, prev)
}

// reachesFixed reports whether the bar reaches the best resting order of
// either side: reaches on Fixed prices.
func (x *Exchange) reachesFixed(m *market, k *exchange.FixedKline) bool {
	touch := x.opts.LimitFill == Touch
	if len(m.bids) > 0 {
		if c := k.Low.CmpDecimal(m.bids[0].price); c < 0 || (c == 0 && touch) {
			return true
		}
	}
	if len(m.asks) > 0 {
		if c := k.High.CmpDecimal(m.asks[0].price); c > 0 || (c == 0 && touch) {
			return true
		}
	}
	return false
}

// fillPending fills orders waiting for this bar's open.
func (x *Exchange) fillPending(m *market, open num) {
	// The list is taken while its orders fill (nothing places an order
	// meanwhile) and its array serves the next bar's.
	pend := m.pending
	m.pending = nil
	for _, o := range pend {
		o.pending = false
		if o.final() {
			continue
		}
		if o.typ == typeMarket || priceOK(o, open.d) {
			x.takeMarket(m, o, open)
		} else if o.typ == typeLimit {
			m.insert(o) // the open moved away: it rests as a maker
		} else {
			x.finish(m, o, statusCanceled, false)
		}
		x.flush(o)
	}
	if m.pending == nil {
		clear(pend)
		m.pending = pend[:0]
	}
}

// fillResting fills resting orders the bar reached. When both sides fill
// in one bar the path within it is the conservative one: from the open to
// the nearer extreme first (open→high→low→close when the high is nearer,
// else open→low→high→close), so the order the bar reached first fills
// first. When one side fills, or none, the path does not matter and is not
// computed: a bar that fills nothing costs comparisons only.
func (x *Exchange) fillResting(m *market, k exchange.Kline) {
	buys, sells := x.reaches(m, sideBuy, k), x.reaches(m, sideSell, k)
	switch {
	case buys && sells:
		if k.High.Sub(k.Open).LessThanOrEqual(k.Open.Sub(k.Low)) {
			x.fillSide(m, sideSell, k)
			x.fillSide(m, sideBuy, k)
			return
		}
		x.fillSide(m, sideBuy, k)
		x.fillSide(m, sideSell, k)
	case buys:
		x.fillSide(m, sideBuy, k)
	case sells:
		x.fillSide(m, sideSell, k)
	}
}

// reaches reports whether the bar fills the best resting order of side s.
func (x *Exchange) reaches(m *market, s orderSide, k exchange.Kline) bool {
	touch := x.opts.LimitFill == Touch
	if s == sideBuy {
		if len(m.bids) == 0 {
			return false
		}
		c := exchange.CmpDecimal(k.Low, m.bids[0].price)
		return c < 0 || (c == 0 && touch)
	}
	if len(m.asks) == 0 {
		return false
	}
	c := exchange.CmpDecimal(k.High, m.asks[0].price)
	return c > 0 || (c == 0 && touch)
}

// fillSide fills resting orders of one side, best first, while the bar
// trades through (or touches) their price.
func (x *Exchange) fillSide(m *market, s orderSide, k exchange.Kline) {
	for x.reaches(m, s, k) {
		var o *order
		if s == sideBuy {
			o = m.bids[0]
		} else {
			o = m.asks[0]
		}
		m.remove(o)
		qty := o.left
		x.fill(m, o, numOf(qty), numOf(o.price), true, false)
		x.tapeTrade(m, o.oid, o.price, qty, s == sideBuy)
		x.flush(o)
	}
}
