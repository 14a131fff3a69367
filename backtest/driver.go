package backtest

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// driver runs a backtest: the session loop over a replay of the bars (exchange first, then the
// runtime's fills, bars and schedules at each instant, so a strategy never
// sees bar t+1 before its orders for bar t are placed) with the engine's
// own ledger and equity curve kept at each instant.
type driver struct {
	s       *Spec
	x       *sim.Exchange
	rt      *strategy.Runtime
	clock   *session.SimClock
	symbols []string
	rules   []exchange.SymbolInfo
	quote   string
	journal *strategy.MemoryJournal

	// last and first are each symbol's latest close and first trading
	// close, compact: decimals are built only where money is computed.
	last  []exchange.Fixed
	first []exchange.Fixed
	// Float shadows of the ledger and closes for the per-bar equity; a
	// symbol is valued only when quoted in the valuation asset (and once
	// it has a bar). A close is converted only when a position needs it:
	// staleF marks a close newer than its float.
	quoted []bool
	valued []bool
	lastF  []float64
	staleF []bool
	baseF  []float64
	stepF  []float64
	quoteF float64
	peak   float64

	// holdings is the account derived from the starting balances and the
	// fills: the engine's own ledger, checked against the exchange's at
	// the end. assets[i] holds holdings[i]; held[i] says whether the
	// asset is in the ledger (a starting balance or touched by a fill).
	assets   []string
	holdings []decSum
	held     []bool
	base     []int // each symbol's base asset, an index into holdings
	quoteOf  []int // each symbol's quote asset
	quoteAt  int   // the valuation asset
	applied  int   // fills folded into holdings
	curve    Curve
	exact    map[int]decimal.Decimal // exact equity by curve index
	exposure Exposure
	closes   []float64 // closesOf's buffer
}

func (d *driver) run(ctx context.Context) (*Result, error) {
	n := len(d.symbols)
	d.last = make([]exchange.Fixed, n)
	d.first = make([]exchange.Fixed, n)
	feed := &session.Replay{Interval: d.s.Interval, Symbols: d.symbols, Series: d.s.Data, WarmUp: d.rt.WarmUpBars()}
	total := feed.Total()
	d.valued, d.lastF, d.baseF, d.stepF = make([]bool, n), make([]float64, n), make([]float64, n), make([]float64, n)
	d.quoted, d.staleF = make([]bool, n), make([]bool, n)
	for i := range d.symbols {
		d.quoted[i] = d.rules[i].QuoteAsset == d.quote
		d.stepF[i] = decimal.New(1, -d.rules[i].QtyScale()).InexactFloat64()
	}
	for _, a := range slices.Sorted(maps.Keys(d.s.Balances)) {
		i := d.asset(a)
		d.holdings[i].Add(d.s.Balances[a])
		d.held[i] = true
	}
	d.quoteAt = d.asset(d.quote)
	d.base, d.quoteOf = make([]int, n), make([]int, n)
	for i := range d.rules {
		d.base[i], d.quoteOf[i] = d.asset(d.rules[i].BaseAsset), d.asset(d.rules[i].QuoteAsset)
	}
	d.quoteF = d.holdings[d.quoteAt].Float()
	for i := range d.symbols {
		d.baseF[i] = d.holdings[d.base[i]].Float()
	}
	d.curve.Values = make([]float64, 0, total/n+1)
	d.exposure = make(Exposure, 0, (total/n)/64+1)
	d.exact = map[int]decimal.Decimal{}
	step := max(total/1000, 1)
	nextReport := step
	done := 0
	loop := session.Loop{Runtime: d.rt, Sim: d.x, SetClock: d.clock.Set,
		Bar: func(b *session.Bar) {
			i := b.Index
			d.last[i] = b.K.Close
			d.staleF[i] = true
			d.valued[i] = d.quoted[i]
			if !b.Warm && d.first[i].Coef == 0 {
				d.first[i] = b.K.Close
			}
		},
		After: func(_ context.Context, s *session.Step, trading bool) error {
			if trading {
				d.sample()
				d.stream()
			}
			done += len(s.Bars)
			if d.s.Progress != nil && done >= nextReport {
				d.s.Progress(done, total)
				nextReport += step
			}
			return nil
		},
	}
	if !d.s.Stepwise {
		// The fast path's runs of bars: each bar's equity sampled as
		// the Bar and After hooks would have, at its close.
		loop.Span = func(runs []strategy.Bars) {
			d.sampleRun(runs)
			d.stream()
			done += runs[0].Len() * len(runs)
			if d.s.Progress != nil && done >= nextReport {
				d.s.Progress(done, total)
				nextReport = (done/step + 1) * step
			}
		}
	}
	// The loop's last Sync brings fills of orders placed on the last bar
	// that the exchange already settled into the ledger too.
	if err := loop.Run(ctx, feed); err != nil {
		return nil, fmt.Errorf("backtest: %w", err)
	}
	if d.s.Progress != nil {
		d.s.Progress(total, total)
	}
	return d.result(ctx)
}

// stream hands Spec.Equity the points that can no longer change (all but
// the last) once there are a chunk's worth.
func (d *driver) stream() {
	if e := d.s.Equity; e != nil && e.due(d.curve.Len()-1) {
		e.handOver(&d.curve, d.exposure, d.curve.Len()-1)
	}
}

// sample folds new fills into the ledger and appends the equity at the
// current closes. The value is computed in float64 every bar; the exact
// decimal only at the first point and at each new peak (the last point is
// done in result), which is all the reports show exactly.
func (d *driver) sample() { d.sampleAt(d.clock.Now().UnixMilli()) }

// sampleAt is sample at a time given in milliseconds.
func (d *driver) sampleAt(ms int64) {
	d.applyNewFills()
	v := d.quoteF
	exposed := false
	for i := range d.symbols {
		q := d.baseF[i]
		if q == 0 || !d.valued[i] {
			continue
		}
		if d.staleF[i] {
			d.lastF[i], d.staleF[i] = d.last[i].Float64(), false
		}
		v += q * d.lastF[i]
		if q >= d.stepF[i] {
			exposed = true // a residue below the quantity step cannot be sold
		}
	}
	n := d.curve.Len()
	if n == 0 || v > d.peak {
		d.exact[n] = d.exactEquity()
		d.peak = v
	}
	d.exposure.mark(n, exposed)
	d.curve.Append(ms, v)
}

// sampleRun samples each instant of a run the fast path took, as the Bar
// hook and sample would have at each: no fill arrives during a run, so
// only the closes move, and every symbol has a bar at each instant
// (runs[i] are symbol i's bars), so the equity at an instant is the quote
// balance plus each valued holding at its symbol's close, added in the
// symbols' order as sample adds them.
func (d *driver) sampleRun(runs []strategy.Bars) {
	d.applyNewFills()
	n0, m := d.curve.Len(), runs[0].Len()
	vals := d.curve.grow(m)
	held := func(i int) bool { return d.baseF[i] != 0 && d.valued[i] }
	last, exposed := -1, false // the last symbol held, and whether any position counts
	for i, bars := range runs {
		d.valued[i] = d.quoted[i]
		if d.first[i].Coef == 0 {
			d.first[i] = bars.Close(0) // the symbol's first bar while trading
		}
		if held(i) {
			last = i
			exposed = exposed || d.baseF[i] >= d.stepF[i] // a residue below the quantity step cannot be sold
		}
	}
	// A new peak (or the first point) takes the exact equity at that
	// instant's closes.
	peak := func(j int) {
		for i, bars := range runs {
			d.last[i] = bars.Close(j)
		}
		d.exact[n0+j] = d.exactEquity()
		d.peak = vals[j]
	}
	qf, pk := d.quoteF, d.peak // locals: vals could alias d, so d's would be read at every point
	for j := range vals {
		vals[j] = qf
	}
	if last < 0 {
		// Flat: every point is the quote balance, so only the first can
		// be a new peak.
		if qf > pk || n0 == 0 {
			peak(0)
		}
	} else {
		// The holdings before the last one held are added into vals;
		// the last one's loop finishes each point and finds the peaks.
		for i := range last {
			if held(i) {
				q, closes := d.baseF[i], d.closesOf(runs[i])
				for j, c := range closes {
					vals[j] += q * c
				}
			}
		}
		q, closes := d.baseF[last], d.closesOf(runs[last])
		for j, c := range closes {
			v := vals[j] + q*c
			vals[j] = v
			if v > pk || n0+j == 0 {
				peak(j)
				pk = v
			}
		}
	}
	// The replay offers runs only at a fixed interval, so each bar closes
	// one length after it opens, and the series' open times rise on the
	// interval's boundaries: a run whose ends are (m-1) lengths apart has
	// no gap, and its times need not be read. Every symbol's bars open at
	// the same instants.
	s, lo, hi := runs[0].Series()
	opens, length := s.Times()[lo:hi], s.CloseMs(lo)-s.OpenMs(lo)
	if opens[len(opens)-1]-opens[0] == int64(len(opens)-1)*length {
		d.curve.appendEven(opens[0]+length, length, len(opens))
	} else {
		d.curve.appendTimes(opens, length)
	}
	d.exposure.markRange(n0, d.curve.Len(), exposed)
	for i, bars := range runs {
		d.last[i], d.staleF[i] = bars.Close(m-1), true
	}
}

// closesOf returns the closes of the bars as float64: read where the
// strategy's Skip converted them (the bars' cache), else converted into
// the driver's buffer, valid until the next call.
func (d *driver) closesOf(bars strategy.Bars) []float64 {
	if closes, ok := bars.Cache().Held(bars); ok {
		return closes
	}
	d.closes = slices.Grow(d.closes[:0], bars.Len())[:bars.Len()]
	bars.Floats(marketdata.Close).Fill(d.closes, 0)
	return d.closes
}

// exactEquity is the account's equity in the quote asset at the current
// closes.
func (d *driver) exactEquity() decimal.Decimal {
	eq := d.holdings[d.quoteAt] // a copy: the sum is the quote balance's and each holding's value
	for i := range d.symbols {
		if !d.valued[i] {
			continue
		}
		if q := &d.holdings[d.base[i]]; q.Sign() != 0 {
			eq.addMulFixed(q, d.last[i])
		}
	}
	return eq.Decimal()
}

// asset is the index of an asset in holdings, added (at zero, not yet
// held) when new.
func (d *driver) asset(a string) int {
	if i := slices.Index(d.assets, a); i >= 0 {
		return i
	}
	d.assets = append(d.assets, a)
	d.holdings = append(d.holdings, decSum{})
	d.held = append(d.held, false)
	return len(d.assets) - 1
}

// applyNewFills folds the fills recorded since the last call into the
// ledger.
func (d *driver) applyNewFills() {
	if d.journal.FillCount() == d.applied {
		return
	}
	fs := d.journal.Fills(d.applied)
	for i := range fs {
		d.apply(&fs[i])
	}
	d.applied += len(fs)
}

// apply folds one fill into the ledger.
func (d *driver) apply(f *Fill) {
	r := d.rule(f.Symbol)
	if r < 0 {
		return
	}
	b, q := d.base[r], d.quoteOf[r]
	if f.IsBuyer {
		d.holdings[b].Add(f.Qty)
		d.holdings[q].Sub(f.QuoteQty)
	} else {
		d.holdings[b].Sub(f.Qty)
		d.holdings[q].Add(f.QuoteQty)
	}
	d.held[b], d.held[q] = true, true
	if f.CommissionAsset != "" {
		c := d.asset(f.CommissionAsset)
		d.holdings[c].Sub(f.Commission)
		d.held[c] = true
	}
	d.quoteF = d.holdings[d.quoteAt].Float()
	for i := range d.symbols {
		d.baseF[i] = d.holdings[d.base[i]].Float()
	}
}

// rule is the index of a symbol's rules, or -1.
func (d *driver) rule(symbol string) int {
	for i := range d.rules {
		if d.rules[i].Symbol == symbol {
			return i
		}
	}
	return -1
}

// result assembles the metrics, trades and ledger check.
func (d *driver) result(ctx context.Context) (*Result, error) {
	d.applyNewFills()
	if n := d.curve.Len(); n > 0 {
		// The last point is the ledger at the last closes, fills of the
		// final Sync included.
		eq := d.exactEquity()
		d.exact[n-1] = eq
		d.curve.Values[n-1] = eq.InexactFloat64()
	}
	if e := d.s.Equity; e != nil {
		// Every point is final: the rest of equity.csv is written while
		// the metrics and trades are worked out.
		e.handOver(&d.curve, d.exposure, d.curve.Len())
	}
	acct, err := d.x.Master().Account(ctx)
	if err != nil {
		return nil, fmt.Errorf("backtest: %w", err)
	}
	bal := map[string]decimal.Decimal{}
	for _, b := range acct.Balances {
		bal[b.Asset] = b.Free.Add(b.Locked)
	}
	// The ledger and the exchange must agree to the last digit; a
	// difference is a bug in one of them, never rounding.
	for i, a := range d.assets {
		if v := d.holdings[i].Decimal(); d.held[i] && !bal[a].Equal(v) {
			return nil, fmt.Errorf("backtest: ledger %s %s differs from the exchange's %s", a, v, bal[a])
		}
	}
	// The curve's metrics and the round trips read different things, so
	// with a core to spare (the command's case; a sweep's workers take
	// every core) the curve is gone through on it meanwhile.
	in := ComputeInput{Curve: d.curve, Exact: d.exact, Exposed: d.exposure, Rejected: d.rt.Stats().Refused}
	var curve Metrics
	var wg sync.WaitGroup
	spare := runtime.GOMAXPROCS(0) > 1
	if spare {
		cin := in // in takes the trades' part meanwhile
		wg.Go(func() { curve = curveMetrics(cin) })
	}
	fills := fillsOf(d.journal.FillBlocks())
	res := &Result{Curve: d.curve, Exact: d.exact, Exposure: d.exposure, Fills: fills, Balances: bal, BuyHold: map[string][2]decimal.Decimal{},
		Stopped: stopped(d.rt.Instances()), Locks: d.journal.Locks()}
	res.Trades, in.Fees, in.Volume = d.roundTrips(fills)
	for i, sym := range d.symbols {
		if d.first[i].Coef != 0 {
			res.BuyHold[sym] = [2]decimal.Decimal{d.first[i].Decimal(), d.last[i].Decimal()}
		}
	}
	in.Trades, in.BuyHoldPct = res.Trades, buyHoldPct(res.BuyHold)
	if spare {
		wg.Wait()
	} else {
		curve = curveMetrics(in)
	}
	curve.addTrades(in)
	res.Metrics = curve
	return res, nil
}

// roundTrips folds the fills into round trips (RoundTrips' folding, fed
// straight from the fills rather than through FillRecords) and sums the
// fees, valued in the quote asset, and the volume traded.
func (d *driver) roundTrips(fills Fills) (trades []Trade, fees, volume decimal.Decimal) {
	sells := 0
	for _, f := range fills.All() {
		if !f.IsBuyer {
			sells++
		}
	}
	rt := newRoundTripper(sells)
	steps := make([]term, len(d.rules))
	for i := range d.rules {
		steps[i] = termOf(decimal.New(1, -d.rules[i].QtyScale()))
	}
	var feeSum, volSum decSum
	for _, f := range fills.All() {
		ri := d.rule(f.Symbol)
		r := &d.rules[ri]
		tf := tripFill{instance: f.Instance, symbol: f.Symbol, buy: f.IsBuyer, time: f.Time,
			price: termOf(f.Price), qty: termOf(f.Qty), quoteQty: termOf(f.QuoteQty), step: steps[ri]}
		if !f.IsBuyer {
			tf.reason = d.journal.Reason(f.ClientOrderID)
		}
		switch f.CommissionAsset {
		case r.QuoteAsset:
			tf.feeQuote = termOf(f.Commission)
			feeSum.addTerm(&tf.feeQuote, false)
		case r.BaseAsset:
			// Valued at the fill's price, without building the product.
			tf.feeInBase, tf.baseFee = termOf(f.Commission), true
			feeSum.addMul(&tf.feeInBase, &tf.price, false)
		case "":
		default:
			tf.feeQuote = termOf(f.Commission.Mul(d.price(f.CommissionAsset + r.QuoteAsset)))
			feeSum.addTerm(&tf.feeQuote, false)
		}
		volSum.addTerm(&tf.quoteQty, false)
		rt.fold(&tf)
	}
	return rt.trades(), feeSum.Decimal(), volSum.Decimal()
}

// price is the last close of a symbol, zero when it has no data.
func (d *driver) price(symbol string) decimal.Decimal {
	for i, s := range d.symbols {
		if s == symbol {
			return d.last[i].Decimal()
		}
	}
	return decimal.Zero
}

func stopped(all []strategy.InstanceStatus) []strategy.InstanceStatus {
	var out []strategy.InstanceStatus
	for _, s := range all {
		if s.Stopped != "" {
			out = append(out, s)
		}
	}
	return out
}
