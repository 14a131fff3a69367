// Package smacross is a long-only moving-average crossover strategy for
// spot markets.
//
// On each closed bar it updates a fast and a slow moving average of the
// close. When the fast average crosses above the slow one and the instance
// holds nothing, it buys at market; when it crosses below and the instance
// holds a position, it sells the whole position at market. While an order
// of the symbol is open it places no other.
//
// Parameters (defaults in brackets):
//
//	fast:      fast period [10]
//	slow:      slow period, > fast [30]
//	ma:        "sma" or "ema" [sma]
//	fraction:  share of the free quote balance spent on a buy, in (0, 1] [0.95]
//	quantity:  fixed base quantity per buy; when set, fraction is not used [0]
//	entry:     "cross" buys when the fast average crosses above the slow
//	           one; "state" buys on any bar where it stands above while
//	           the instance holds nothing (so on the first trading bar
//	           too, and again after an exit) [cross]
//
// Example:
//
//	strategies:
//	  - name: smacross
//	    id: btc-cross
//	    symbols: [BTCUSDT]
//	    interval: 1h
//	    params: {fast: 10, slow: 30, ma: ema, fraction: 0.5}
package smacross

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/indicator"
)

// The entry modes.
const (
	EntryCross = "cross"
	EntryState = "state"
)

// Name is the registered name.
const Name = "smacross"

// Params are the strategy's parameters.
type Params struct {
	Fast     int             `koanf:"fast"`
	Slow     int             `koanf:"slow"`
	MA       string          `koanf:"ma"`
	Fraction decimal.Decimal `koanf:"fraction"`
	Quantity decimal.Decimal `koanf:"quantity"`
	Entry    string          `koanf:"entry"`
}

// Defaults returns the default parameters.
func Defaults() Params {
	return Params{Fast: 10, Slow: 30, MA: "sma", Fraction: decimal.RequireFromString("0.95"), Entry: EntryCross}
}

// Validate checks the parameters, naming the field at fault.
func (p Params) Validate() error {
	switch {
	case p.Fast < 1:
		return errors.New("fast: must be at least 1")
	case p.Slow <= p.Fast:
		return errors.New("fast: must be < slow")
	case p.MA != "sma" && p.MA != "ema":
		return fmt.Errorf("ma: %q must be sma or ema", p.MA)
	case p.Entry != EntryCross && p.Entry != EntryState:
		return fmt.Errorf("entry: %q must be cross or state", p.Entry)
	case p.Quantity.IsNegative():
		return errors.New("quantity: must not be negative")
	case p.Quantity.IsZero() && (!p.Fraction.IsPositive() || p.Fraction.GreaterThan(decimal.NewFromInt(1))):
		return errors.New("fraction: must be in (0, 1]")
	}
	return nil
}

// New builds an instance from its configuration.
func New(cfg strategy.Config) (strategy.Strategy, error) {
	p := Defaults()
	if err := strategy.DecodeParams(cfg.Params, &p); err != nil {
		return nil, err
	}
	if len(cfg.Symbols) == 0 {
		return nil, errors.New("symbols: smacross needs at least one symbol")
	}
	s := &Strategy{p: p, books: map[string]*book{}, closes: strategy.NewFloatCache(1024)}
	for _, sym := range cfg.Symbols {
		b := &book{}
		var err error
		if p.MA == "ema" {
			b.fast, err = indicator.NewEMA(p.Fast)
			if err == nil {
				b.slow, err = indicator.NewEMA(p.Slow)
			}
		} else {
			b.fast, err = indicator.NewSMA(p.Fast)
			if err == nil {
				b.slow, err = indicator.NewSMA(p.Slow)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
		s.books[sym] = b
	}
	return s, nil
}

// average is the part of an indicator the strategy uses.
type average interface {
	Update(v float64)
	Value() float64
	Ready() bool
	Advance(v float64) (float64, bool)
	Undo()
}

// book is the per-symbol state.
type book struct {
	fast, slow average
	above      bool // fast was above slow at the previous ready bar
	primed     bool // a previous ready bar exists
	memo       memo // the amounts last derived for an order of the symbol
}

// Strategy is a smacross instance.
type Strategy struct {
	p     Params
	books map[string]*book
	// closes holds closes converted for Skip, for bars that come without
	// a cache of their own (Bars.Cache).
	closes *strategy.FloatCache
	// last is the book of the symbol of the last bar, found again
	// without a map lookup while bars of one symbol follow each other.
	last struct {
		symbol string
		b      *book
	}
	// frozen is the Context of the current Skip call, reading what
	// cannot change during it once.
	frozen frozen
	// scratch is the copy of a book SkipCount runs Skip over.
	scratch book
}

// book is the book of a symbol, nil for one the instance does not trade.
func (s *Strategy) book(symbol string) *book {
	if b := s.last.b; b != nil && symbol == s.last.symbol {
		return b
	}
	b := s.books[symbol]
	if b != nil {
		s.last.symbol, s.last.b = symbol, b
	}
	return b
}

// WarmUp asks for enough history to fill the slow average.
func (s *Strategy) WarmUp() int { return s.p.Slow }

// OnKline implements strategy.Strategy.
func (s *Strategy) OnKline(ctx strategy.Context, bar strategy.Bar) error {
	b := s.book(bar.Symbol)
	if b == nil {
		return nil
	}
	c := bar.Close.Float64()
	fast, fastReady := b.fast.Advance(c) // Update, Value and Ready in one call
	slow, slowReady := b.slow.Advance(c)
	if !fastReady || !slowReady {
		return nil
	}
	above := fast > slow
	crossed := b.primed && above != b.above
	b.above, b.primed = above, true
	if ctx.WarmingUp() || len(ctx.OpenOrders(bar.Symbol)) > 0 {
		return nil
	}
	_, err := s.act(ctx, b, bar.Symbol, above, crossed, bar.Close, false)
	return err
}

// act is what OnKline does once the averages stand above or not and
// crossed or not: buy, sell or nothing. It reports whether it placed an
// order or logged; dry does neither, and reports whether it would (Skip
// takes a signal bar that would do nothing).
func (s *Strategy) act(ctx strategy.Context, b *book, symbol string, above, crossed bool, last exchange.Fixed, dry bool) (bool, error) {
	if !crossed {
		if above && s.p.Entry == EntryState {
			return s.buy(ctx, b, symbol, last, dry) // it buys only while flat
		}
		return false, nil
	}
	if above {
		return s.buy(ctx, b, symbol, last, dry)
	}
	return s.sell(ctx, b, symbol, last, dry)
}

// Skip implements strategy.Skipper: it takes bars while the averages
// neither cross nor (entry: state) stand fast above slow, the bars on
// which OnKline would only update them. The closes are converted a chunk
// at a time into a strategy.FloatCache (the bars' own, which the backtest
// then reads the closes from again, else the instance's); two primed
// simple averages go through indicator.AdvanceCross (indicator.AdvancePair
// with entry state), others bar by bar (Advance, and Undo for the bar
// that would buy or sell, which is left for OnKline). A signal on which
// act would do nothing (dry: quiet, quietCross) is taken too.
func (s *Strategy) Skip(ctx strategy.Context, f strategy.Feed, bars strategy.Bars) int {
	b := s.book(f.Symbol)
	if b == nil {
		return bars.Len() // OnKline ignores a symbol it has no book for
	}
	return s.skip(ctx, f, bars, b)
}

// SkipCount implements strategy.SkipCounter: Skip over a copy of the
// symbol's book (its averages copied into the instance's scratch book),
// so the book itself is left as it was. A book's state is its own
// symbol's, so Skip reads nothing of the other symbols' bars.
func (s *Strategy) SkipCount(ctx strategy.Context, f strategy.Feed, bars strategy.Bars) int {
	b := s.book(f.Symbol)
	if b == nil {
		return bars.Len()
	}
	s.scratch.copyFrom(b)
	return s.skip(ctx, f, bars, &s.scratch)
}

// skip is Skip over book b, the symbol's or a copy of it.
func (s *Strategy) skip(ctx strategy.Context, f strategy.Feed, bars strategy.Bars, b *book) int {
	state := s.p.Entry == EntryState
	fastSMA, _ := b.fast.(*indicator.SMA)
	slowSMA, _ := b.slow.(*indicator.SMA)
	closes := bars.Cache()
	if closes == nil {
		closes = s.closes
	}
	if ctx != nil {
		s.frozen.reset(ctx)
		defer s.frozen.reset(nil) // the instance's Context is not kept past the call
	}
	// A run usually ends within a few dozen bars (at a cross), so the
	// chunks start small and double.
	size := 32
	for done := 0; done < bars.Len(); {
		vals := closes.Closes(bars, done, size)
		var took int
		// Primed, both averages are ready at every bar.
		crosses := fastSMA != nil && slowSMA != nil && b.primed && !state
		switch {
		case crosses:
			// A cross on which act would do nothing is taken in the
			// loop; the first on which it would act stops the run, and
			// is left for OnKline.
			at := done
			took, b.above = indicator.AdvanceCross(fastSMA, slowSMA, vals, b.above, func(i int, above bool) bool {
				return s.quietCross(f.Symbol, b, above, bars.Close(at+i))
			})
		case fastSMA != nil && slowSMA != nil && b.primed:
			// With entry state a bar stops the run when fast crosses
			// slow or stands above it.
			took = indicator.AdvancePair(fastSMA, slowSMA, vals, true, b.above)
		default:
			took = b.advance(vals, state)
		}
		if done += took; took < len(vals) {
			if crosses || !s.quiet(f.Symbol, b, vals[took], bars.Close(done)) {
				return done
			}
			done++ // taken as OnKline would take it
			continue
		}
		size = min(2*size, closes.Cap())
	}
	return bars.Len()
}

// quiet advances the averages over the bar Skip stopped at (its close c,
// and last as a Fixed) and reports whether OnKline would do nothing else
// on it: a signal the position or the balance cannot follow, with no log
// line (act, dry). When it would act, the averages are taken back and the
// bar is left for OnKline. It asks the Skip call's Context (s.frozen);
// without one (a nil ctx: no instance) it leaves every such bar.
func (s *Strategy) quiet(symbol string, b *book, c float64, last exchange.Fixed) bool {
	if s.frozen.Context == nil {
		return false
	}
	fast, fastReady := b.fast.Advance(c)
	slow, slowReady := b.slow.Advance(c)
	if !fastReady || !slowReady {
		return true // no signal before both are ready
	}
	above := fast > slow
	if acts, err := s.act(&s.frozen, b, symbol, above, b.primed && above != b.above, last, true); acts || err != nil {
		b.fast.Undo()
		b.slow.Undo()
		return false
	}
	b.above, b.primed = above, true
	return true
}

// quietCross reports whether OnKline would do nothing on a cross of
// symbol's averages to above at a bar closing at last, as quiet does for
// a bar Skip stopped at (the averages are not advanced here: AdvanceCross
// takes the bar when this reports true).
func (s *Strategy) quietCross(symbol string, b *book, above bool, last exchange.Fixed) bool {
	if s.frozen.Context == nil {
		return false
	}
	acts, err := s.act(&s.frozen, b, symbol, above, true, last, true)
	return !acts && err == nil
}

// copyFrom sets c to a copy of b that goes on alike, reusing c's
// averages when they are of b's kinds and periods.
func (c *book) copyFrom(b *book) {
	c.fast, c.slow = copyAverage(c.fast, b.fast), copyAverage(c.slow, b.slow)
	c.above, c.primed, c.memo = b.above, b.primed, b.memo
}

// copyAverage returns a copy of src, made in dst when dst is of its kind.
func copyAverage(dst, src average) average {
	switch src := src.(type) {
	case *indicator.SMA:
		return copyInto(dst, src)
	case *indicator.EMA:
		return copyInto(dst, src)
	}
	panic(fmt.Sprintf("smacross: no copy of a %T", src))
}

// copyInto is copyAverage for an average of type *T.
func copyInto[T any, P interface {
	*T
	average
	CopyTo(*T)
}](dst average, src P) average {
	d, ok := dst.(P)
	if !ok {
		d = new(T)
	}
	src.CopyTo(d)
	return d
}

// advance is Skip over vals bar by bar, through the average interface:
// it returns how many bars it took.
func (b *book) advance(vals []float64, state bool) int {
	for i, c := range vals {
		fast, fastReady := b.fast.Advance(c)
		slow, slowReady := b.slow.Advance(c)
		if !fastReady || !slowReady {
			continue
		}
		above := fast > slow
		if b.primed && above != b.above || above && state {
			b.fast.Undo()
			b.slow.Undo()
			return i
		}
		b.above, b.primed = above, true
	}
	return len(vals)
}

// buy places a market buy of symbol unless the instance holds a
// position or the amount is below the minimum. last is the bar's close,
// the symbol's last price in OnKline (the runtime sets it from the bar it
// delivers), compared as it is: no decimal of it is built unless a log
// line quotes a product, so the risk gate finds it compact too. The
// amount comes from b's memo when the rules and balance are those it was
// derived from.
func (s *Strategy) buy(ctx strategy.Context, b *book, symbol string, last exchange.Fixed, dry bool) (bool, error) {
	info, err := ctx.Rules(symbol)
	if err != nil {
		return true, err
	}
	// The comparisons below run on every bar of a buy signal while flat;
	// CmpMulFixed and CmpDecimal give decimal's answers without building
	// the products (a flat position's value is zero at any price).
	min := info.MinNotional(exchange.TypeMarket)
	// A holding too small to sell (the residue of a fee paid in the base
	// asset) does not count as a position.
	if held := heldQty(ctx, symbol); held.IsZero() && min.Sign() <= 0 ||
		!held.IsZero() && exchange.CmpMulFixed(min, held, last) <= 0 {
		return false, nil
	}
	var o exchange.NewOrder
	if s.p.Quantity.IsPositive() {
		o.Quantity = b.memo.quantity(info, s.p.Quantity)
		if exchange.CmpMulFixed(min, o.Quantity, last) > 0 {
			l := ctx.Log()
			if !l.Enabled(context.Background(), slog.LevelInfo) || dry {
				return l.Enabled(context.Background(), slog.LevelInfo), nil
			}
			l.Info("buy signal skipped: amount below the minimum", "symbol", symbol, "amount", o.Quantity.Mul(last.Decimal()))
			return true, nil
		}
	} else {
		// The amount is free × fraction floored to the quote's decimals;
		// it is below the minimum whenever free is (fraction ≤ 1), and
		// not positive when free is not (fraction > 0).
		free := freeOf(ctx, info.QuoteAsset)
		if b.memo.buyAmount(s, info, free, min) {
			l := ctx.Log()
			if !l.Enabled(context.Background(), slog.LevelInfo) || dry {
				return l.Enabled(context.Background(), slog.LevelInfo), nil
			}
			l.Info("buy signal skipped: amount below the minimum", "symbol", symbol, "amount", info.FloorQuote(free.dec().Mul(s.p.Fraction)))
			return true, nil
		}
		if !dry {
			o.QuoteOrderQty = b.memo.order() // the decimal built for an order only
		}
	}
	if dry {
		return true, nil
	}
	o.Symbol, o.Side, o.Type = symbol, exchange.SideBuy, exchange.TypeMarket
	_, err = ctx.Place(o)
	return true, ignoreRefusal(err)
}

// sell places a market sell of the whole position, floored to the
// symbol's quantity step and capped by the free balance, unless it is
// below the minimum at last, the bar's close (as buy). The quantity
// comes from b's memo when the rules, position and balance are those it
// was derived from.
func (s *Strategy) sell(ctx strategy.Context, b *book, symbol string, last exchange.Fixed, dry bool) (bool, error) {
	info, err := ctx.Rules(symbol)
	if err != nil {
		return true, err
	}
	held := heldQty(ctx, symbol)
	if held.Sign() <= 0 {
		return false, nil // nothing to sell: floored and capped by the free balance, still not positive
	}
	qty := b.memo.sellQty(info, held, freeOf(ctx, info.BaseAsset))
	if !qty.IsPositive() || exchange.CmpMulFixed(info.MinNotional(exchange.TypeMarket), qty, last) > 0 {
		l := ctx.Log()
		logs := qty.IsPositive() && l.Enabled(context.Background(), slog.LevelInfo)
		if logs && !dry {
			l.Info("sell signal skipped: amount below the minimum", "symbol", symbol, "qty", qty)
		}
		return logs, nil
	}
	if dry {
		return true, nil
	}
	_, err = ctx.Place(exchange.NewOrder{Symbol: symbol, Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: qty})
	return true, ignoreRefusal(err)
}

// ignoreRefusal keeps a refused order from stopping the instance: the
// runtime has recorded and counted the refusal, and the next signal tries
// again.
func ignoreRefusal(err error) error {
	if err == nil || strategy.IsRefusal(err) {
		return nil
	}
	return err
}

var (
	_ strategy.Plotter     = (*Strategy)(nil)
	_ strategy.SkipCounter = (*Strategy)(nil)
)

// Plot draws the fast and the slow average over the price.
func (s *Strategy) Plot(symbol string, bars []exchange.Kline) []strategy.PlotSeries {
	newAvg := func(n int) average {
		if s.p.MA == "ema" {
			e, _ := indicator.NewEMA(n) // periods were checked by New
			return e
		}
		a, _ := indicator.NewSMA(n)
		return a
	}
	out := []strategy.PlotSeries{
		{Name: fmt.Sprintf("%s(%d)", s.p.MA, s.p.Fast), Values: make([]float64, len(bars))},
		{Name: fmt.Sprintf("%s(%d)", s.p.MA, s.p.Slow), Values: make([]float64, len(bars))},
	}
	for k, n := range []int{s.p.Fast, s.p.Slow} {
		a := newAvg(n)
		for i, b := range bars {
			a.Update(b.Close.InexactFloat64())
			out[k].Values[i] = math.NaN()
			if a.Ready() {
				out[k].Values[i] = a.Value()
			}
		}
	}
	return out
}
