package backtest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/strategies/smacross"
	"github.com/spotbot/spotbot/strategy"
)

// countingSkipper is smacross counting the bars its fast path took and
// the bars OnKline saw.
type countingSkipper struct {
	*smacross.Strategy
	skipped, stepped *int
}

func (c countingSkipper) OnKline(ctx strategy.Context, bar strategy.Bar) error {
	*c.stepped++
	return c.Strategy.OnKline(ctx, bar)
}

func (c countingSkipper) Skip(ctx strategy.Context, f strategy.Feed, bars strategy.Bars) int {
	n := c.Strategy.Skip(ctx, f, bars)
	*c.skipped += n
	return n
}

// smacrossAs is a registry whose smacross is wrap around the real one: a
// test's strategy built on it.
func smacrossAs(wrap func(*smacross.Strategy) strategy.Strategy) *strategy.Registry {
	reg := strategy.NewRegistry()
	reg.Register("smacross", func(cfg strategy.Config) (strategy.Strategy, error) {
		s, err := smacross.New(cfg)
		if err != nil {
			return nil, err
		}
		return wrap(s.(*smacross.Strategy)), nil
	})
	return reg
}

// countingRegistry registers countingSkipper as smacross.
func countingRegistry(skipped, stepped *int) *strategy.Registry {
	return smacrossAs(func(s *smacross.Strategy) strategy.Strategy {
		return countingSkipper{Strategy: s, skipped: skipped, stepped: stepped}
	})
}

// countBothWays runs spec with the fast path and stepwise, smacross
// counting in each run the bars Skip took and the bars OnKline saw; it
// fails unless the two results are the same and the stepwise run sent
// every bar through OnKline, and returns the fast run's result and counts.
func countBothWays(t *testing.T, spec Spec) (res *Result, skipped, stepped int) {
	t.Helper()
	var skipped2, stepped2 int
	fast, slow := spec, spec
	fast.Registry = countingRegistry(&skipped, &stepped)
	slow.Registry = countingRegistry(&skipped2, &stepped2)
	slow.Stepwise = true
	a, err := Run(t.Context(), fast)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(t.Context(), slow)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, a, b)
	bars := tradedBars(spec)
	if skipped2 != 0 || stepped2 != bars {
		t.Fatalf("stepwise: %d bars skipped, %d stepped; want 0 and %d", skipped2, stepped2, bars)
	}
	return a, skipped, stepped
}

// tradedBars is how many bars of spec's data its instances trade (a
// symbol two instances trade counted once: the tests here give each
// symbol one).
func tradedBars(spec Spec) int {
	traded := map[string]bool{}
	for _, in := range spec.Instances {
		for _, sym := range in.Symbols {
			traded[sym] = true
		}
	}
	bars := 0
	for sym, s := range spec.Data {
		if traded[sym] {
			bars += s.Len()
		}
	}
	return bars
}

// sameResult fails unless a and b are the same result (sameResults).
func sameResult(t *testing.T, a, b *Result) {
	t.Helper()
	if err := sameResults(a, b); err != nil {
		t.Fatal(err)
	}
}

// TestFastPathSameResult runs smacross backtests with the fast path
// (strategy.Skipper) and stepwise, and finds the same results, the fast
// path having taken most bars. Entry modes, averages and the fill model
// vary, on the embedded sample and on 200,000 real one-minute bars.
func TestFastPathSameResult(t *testing.T) {
	type variant struct {
		name   string
		params map[string]any
		fill   func(*FillModel)
		// protect are protections (they act at fills and orders, so the
		// fast path stays on).
		protect *strategy.Protections
		// limits are the risk gate's: with a limit on equity the kill
		// switch observes every bar, the fast path's too (observeRun).
		limits risk.Limits
		// wantFills and wantSkipped are how many fills the run makes and
		// how many bars the fast path takes; wantKilled how many orders
		// the kill switch refused.
		wantFills, wantSkipped, wantLocks, wantKilled int
	}
	variants := []variant{
		{name: "sma cross", params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.95"},
			wantFills: 182, wantSkipped: 3922},
		{name: "ema cross", params: map[string]any{"fast": 5, "slow": 20, "ma": "ema", "fraction": "0.5"},
			wantFills: 276, wantSkipped: 3758},
		// With entry: state every bar above the slow average asks to buy;
		// while the position is held the buy does nothing, so Skip takes
		// those bars too.
		{name: "sma state", params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.95", "entry": "state"},
			wantFills: 184, wantSkipped: 3919},
		{name: "signal close, slippage", params: map[string]any{"fast": 8, "slow": 21, "fraction": "0.9"},
			fill:      func(f *FillModel) { f.AtSignalClose = true; f.SlippageBps = decimal.NewFromInt(5) },
			wantFills: 236, wantSkipped: 3827},
		{name: "protections", params: map[string]any{"fast": 5, "slow": 15, "fraction": "0.9"},
			protect: &strategy.Protections{
				LowProfit:   strategy.LowProfitLock{Trades: 2, Percent: decimal.NewFromInt(0), Window: 48 * time.Hour, Lock: 24 * time.Hour},
				MaxDrawdown: strategy.DrawdownLock{Percent: decimal.NewFromInt(3), Window: 96 * time.Hour, Lock: 12 * time.Hour}},
			wantFills: 228, wantSkipped: 3798, wantLocks: 84},
		{name: "kill switch armed", params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.95"},
			limits:    risk.Limits{MaxDrawdown: decimal.RequireFromString("0.5"), MaxDailyLoss: decimal.NewFromInt(5000)},
			wantFills: 182, wantSkipped: 3922},
		// The two trips fall inside runs the fast path took (bars 19 of
		// 26 and 79 of 81); the orders after them are refused.
		{name: "kill switch trips on drawdown", params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.95"},
			limits:    risk.Limits{MaxDrawdown: decimal.RequireFromString("0.08")},
			wantFills: 33, wantSkipped: 4140, wantKilled: 75},
		{name: "kill switch trips on a day's loss", params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.95"},
			limits:    risk.Limits{MaxDailyLoss: decimal.NewFromInt(400)},
			wantFills: 11, wantSkipped: 4170, wantKilled: 86},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			base := sampleSpec(t)
			base.Instances[0].Params = v.params
			base.Instances[0].Protections = v.protect
			base.Risk = v.limits
			if v.fill != nil {
				v.fill(&base.Fill)
			}
			a, skipped, stepped := countBothWays(t, base)
			if len(a.Locks) != v.wantLocks {
				t.Fatalf("%d protection locks, want %d", len(a.Locks), v.wantLocks)
			}
			bars := base.Data["BTCUSDT"].Len()
			if skipped+stepped != bars {
				t.Fatalf("fast: %d skipped + %d stepped, want %d bars", skipped, stepped, bars)
			}
			if a.Fills.Len() != v.wantFills || skipped != v.wantSkipped || a.Metrics.Rejected["kill-switch"] != v.wantKilled {
				t.Fatalf("fast: %d fills, %d of %d bars skipped, %d orders refused by the kill switch; want %d, %d and %d",
					a.Fills.Len(), skipped, bars, a.Metrics.Rejected["kill-switch"], v.wantFills, v.wantSkipped, v.wantKilled)
			}
		})
	}
}

// TestFastPathSameResultMinuteBars is TestFastPathSameResult over
// 200,000 real one-minute bars (ETH/BTC, ../shared/data).
func TestFastPathSameResultMinuteBars(t *testing.T) {
	bars := tiled(t, 200_000)
	a, skipped, stepped := countBothWays(t, millionSpec(bars))
	if skipped != 178_789 || stepped != 21_211 || a.Fills.Len() != 11_585 {
		t.Fatalf("%d skipped + %d stepped of %d bars, %d fills; want 178,789 + 21,211, and 11,585 fills", skipped, stepped, bars.Len(), a.Fills.Len())
	}
}

// TestFastPathOff checks the cases where the fast path must not take
// bars: exits (checked at every bar), two instances on the symbol, two
// symbols, a higher interval aggregated from the replayed one. Each runs
// stepwise whatever Stepwise says.
func TestFastPathOff(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Spec)
	}{
		{"exits", func(s *Spec) {
			s.Instances[0].Exits = &strategy.Exits{StopLoss: strategy.Level{Kind: strategy.LevelPercent, Value: decimal.NewFromInt(2)}}
		}},
		{"two instances", func(s *Spec) {
			second := s.Instances[0]
			second.ID = "btc2"
			s.Instances = append(s.Instances, second)
		}},
		{"higher interval", func(s *Spec) { s.Instances[0].Interval = "4h" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := sampleSpec(t)
			c.edit(&spec)
			var skipped, stepped int
			spec.Registry = countingRegistry(&skipped, &stepped)
			if _, err := Run(t.Context(), spec); err != nil {
				t.Fatal(err)
			}
			if skipped != 0 || stepped == 0 {
				t.Fatalf("%d bars skipped, %d stepped: want none skipped", skipped, stepped)
			}
		})
	}
}

// greedySkipper takes every bar offered, as a broken Skip would: it
// misses the crosses that smacross trades on.
type greedySkipper struct{ *smacross.Strategy }

func (greedySkipper) Skip(_ strategy.Context, _ strategy.Feed, bars strategy.Bars) int {
	return bars.Len()
}

// VerifyFastPath passes a correct Skip and names the first difference a
// wrong one makes.
func TestVerifyFastPath(t *testing.T) {
	spec := sampleSpec(t)
	if err := VerifyFastPath(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	spec.Registry = smacrossAs(func(s *smacross.Strategy) strategy.Strategy { return greedySkipper{s} })
	// The greedy Skip takes the first cross, whose buy the stepwise run
	// makes: from the fill on, the stepwise equity moves with the price
	// and the greedy run's stays at its starting 10,000.
	err := VerifyFastPath(t.Context(), spec)
	want := "backtest: equity point 36: the fast path's 2020-11-19T19:00:00Z 10000, stepwise 2020-11-19T19:00:00Z 9971.872133976398"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// placingSkipper tries to buy from Skip, which the fast path refuses.
type placingSkipper struct {
	*smacross.Strategy
	errs *[]error
}

func (p placingSkipper) Skip(ctx strategy.Context, f strategy.Feed, bars strategy.Bars) int {
	_, err := ctx.Place(exchange.NewOrder{Symbol: f.Symbol, Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: decimal.NewFromInt(100)})
	*p.errs = append(*p.errs, err)
	return p.Strategy.Skip(ctx, f, bars)
}

// An order placed from Skip is refused with ErrSkipping and reaches no
// exchange: the run is smacross's own.
func TestSkipCannotPlace(t *testing.T) {
	spec := sampleSpec(t)
	want, err := Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	spec.Registry = smacrossAs(func(s *smacross.Strategy) strategy.Strategy { return placingSkipper{s, &errs} })
	got, err := Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, got, want)
	if len(errs) != 175 { // one fewer since Skip takes signal bars that do nothing
		t.Fatalf("%d calls of Skip", len(errs))
	}
	for _, err := range errs {
		if !errors.Is(err, strategy.ErrSkipping) {
			t.Fatalf("Place from Skip: %v", err)
		}
	}
}

// offerRecorder takes every bar offered, as greedySkipper does, and
// records how many each offer held.
type offerRecorder struct {
	*smacross.Strategy
	offers *[]int
}

func (o offerRecorder) Skip(_ strategy.Context, _ strategy.Feed, bars strategy.Bars) int {
	*o.offers = append(*o.offers, bars.Len())
	return bars.Len()
}

// A long run of one symbol's bars is offered to the fast path in pieces
// of 32,768, so that the run's progress (and equity.csv's stream) moves
// on during it rather than once at its end: after the 30 bars of warm-up
// and the first one traded, each piece is taken whole and the bar after
// it steps through OnKline.
func TestFastPathOneSymbolInPieces(t *testing.T) {
	spec := symbolsSpec(t, 100_000, 1)
	var offers []int
	spec.Registry = smacrossAs(func(s *smacross.Strategy) strategy.Strategy { return offerRecorder{Strategy: s, offers: &offers} })
	var progress []int
	spec.Progress = func(done, total int) { progress = append(progress, done) }
	if _, err := Run(t.Context(), spec); err != nil {
		t.Fatal(err)
	}
	if want := []int{32768, 32768, 32768, 1662}; !slices.Equal(offers, want) {
		t.Errorf("offers %v, want %v", offers, want)
	}
	if want := []int{32799, 32800, 65568, 98337, 100000, 100000}; !slices.Equal(progress, want) {
		t.Errorf("progress %v, want %v", progress, want)
	}
}
