package backtest

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/strategies/smacross"
	"github.com/spotbot/spotbot/strategy"
)

// keep is s with only the bars keep accepts, by index.
func keep(t *testing.T, s *marketdata.Series, keep func(i int) bool) *marketdata.Series {
	t.Helper()
	var ts []int64
	var cols [5][]int64
	for i := range s.Len() {
		if !keep(i) {
			continue
		}
		ts = append(ts, s.OpenMs(i))
		for f := marketdata.Open; f <= marketdata.Volume; f++ {
			cols[f] = append(cols[f], s.Int(f, i))
		}
	}
	out, err := marketdata.NewSeries(s.Symbol(), s.Interval(), s.Exp(marketdata.Close), s.Exp(marketdata.Volume), ts,
		cols[0], cols[1], cols[2], cols[3], cols[4])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFastPathSeveralSymbols runs smacross over several generated
// symbols with the fast path (strategy.SkipCounter: every symbol's bars
// of the same instants taken together) and stepwise, and finds the same
// results, the fast path having taken most bars: one instance trading all
// the symbols or one an instance, with and without fees (with them the
// account runs low, and Skip takes the signals it cannot follow), and
// series that start apart and have gaps, alone or together, where the
// fast path stops for the instants not every symbol has.
func TestFastPathSeveralSymbols(t *testing.T) {
	type variant struct {
		name    string
		symbols int
		edit    func(t *testing.T, s *Spec)
		// wantFills and wantSkipped are how many fills the run makes
		// and how many bars the fast path takes.
		wantFills, wantSkipped int
	}
	// With fees and every buy spending the whole free balance, a buy
	// signal of one symbol while another's position holds the quote is
	// one the account cannot follow, and Skip takes it.
	fees := func(t *testing.T, s *Spec) {
		s.Fill.MakerFee, s.Fill.TakerFee = nil, nil
		s.Instances[0].Params["fraction"] = "1"
	}
	variants := []variant{
		{name: "one instance, two symbols", symbols: 2, wantFills: 1653, wantSkipped: 33682},
		{name: "one instance, four symbols, fees", symbols: 4, edit: fees, wantFills: 1153, wantSkipped: 70936},
		{name: "an instance a symbol", symbols: 2, edit: func(t *testing.T, s *Spec) {
			second := s.Instances[0]
			s.Instances[0].Symbols, second.ID, second.Symbols = []string{"ETHBTC"}, "bench2", []string{"LTCBTC"}
			s.Instances = append(s.Instances, second)
		}, wantFills: 1653, wantSkipped: 33682},
		{name: "a symbol no instance trades", symbols: 2, edit: func(t *testing.T, s *Spec) {
			s.Instances[0].Symbols = []string{"LTCBTC"}
		}, wantFills: 834, wantSkipped: 18_334},
		{name: "ema, entry state", symbols: 2, edit: func(t *testing.T, s *Spec) {
			s.Instances[0].Params = map[string]any{"fast": 5, "slow": 20, "ma": "ema", "entry": "state", "fraction": "0.3"}
		}, wantFills: 2627, wantSkipped: 30580},
		{name: "apart, with gaps", symbols: 2, edit: func(t *testing.T, s *Spec) {
			// LTCBTC starts 1,000 bars later and misses bars 5,000 to
			// 5,009 and 8,000; both miss bar 12,000.
			s.Data["ETHBTC"] = keep(t, s.Data["ETHBTC"], func(i int) bool { return i != 12_000 })
			s.Data["LTCBTC"] = keep(t, s.Data["LTCBTC"], func(i int) bool {
				return i >= 1_000 && (i < 5_000 || i >= 5_010) && i != 8_000 && i != 12_000
			})
		}, wantFills: 1605, wantSkipped: 32042},
		// With the kill switch watching, each instant's bars are
		// observed symbol after symbol, as the steps deliver them: armed
		// and never tripped, the same bars taken as without it; tripped
		// at the first symbol's bar of a run's first instant, the second
		// symbol's bar of that instant still taken.
		{name: "kill switch armed", symbols: 2, edit: func(t *testing.T, s *Spec) {
			s.Risk = risk.Limits{MaxDailyLoss: decimal.NewFromInt(5)}
		}, wantFills: 1653, wantSkipped: 33682},
		{name: "kill switch trips", symbols: 2, edit: func(t *testing.T, s *Spec) {
			s.Risk = risk.Limits{MaxDrawdown: decimal.RequireFromString("0.02")}
		}, wantFills: 33, wantSkipped: 38202},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			spec := symbolsSpec(t, 20_000, v.symbols)
			if v.edit != nil {
				v.edit(t, &spec)
			}
			a, skipped, stepped := countBothWays(t, spec)
			bars := tradedBars(spec)
			if skipped+stepped != bars {
				t.Fatalf("fast: %d skipped + %d stepped, want %d bars", skipped, stepped, bars)
			}
			if a.Fills.Len() != v.wantFills || skipped != v.wantSkipped {
				t.Fatalf("fast: %d fills, %d of %d bars skipped; want %d fills, %d skipped", a.Fills.Len(), skipped, bars, v.wantFills, v.wantSkipped)
			}
		})
	}
}

// skipperOnly is smacross without SkipCount, counting the bars its Skip
// takes: a Skipper alone.
type skipperOnly struct {
	s       *smacross.Strategy
	skipped *int
}

func (o skipperOnly) OnKline(ctx strategy.Context, bar strategy.Bar) error {
	return o.s.OnKline(ctx, bar)
}
func (o skipperOnly) WarmUp() int { return o.s.WarmUp() }
func (o skipperOnly) Skip(ctx strategy.Context, f strategy.Feed, bars strategy.Bars) int {
	n := o.s.Skip(ctx, f, bars)
	*o.skipped += n
	return n
}

// A Skipper that is not a SkipCounter keeps its fast path to one symbol:
// over two, every bar goes through OnKline, with the same result as
// smacross's own fast path; over one, its Skip takes bars.
func TestFastPathSeveralSymbolsNeedsCount(t *testing.T) {
	for _, c := range []struct {
		symbols, wantSkipped int
	}{{2, 0}, {1, 4567}} {
		spec := symbolsSpec(t, 5_000, c.symbols)
		want, err := Run(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
		}
		var skipped int
		spec.Registry = smacrossAs(func(s *smacross.Strategy) strategy.Strategy { return skipperOnly{s: s, skipped: &skipped} })
		got, err := Run(t.Context(), spec)
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, got, want)
		if skipped != c.wantSkipped {
			t.Fatalf("%d symbols: Skip took %d bars, want %d", c.symbols, skipped, c.wantSkipped)
		}
	}
}

// shortSkipper's Skip takes one bar fewer than its SkipCount counted (a
// broken SkipCounter) once it is offered more than one.
type shortSkipper struct{ *smacross.Strategy }

func (s shortSkipper) Skip(ctx strategy.Context, f strategy.Feed, bars strategy.Bars) int {
	n := s.Strategy.Skip(ctx, f, bars)
	if n > 1 && f.Symbol == "LTCBTC" {
		return n - 1
	}
	return n
}

// A Skip that takes fewer of several symbols' bars than its SkipCount
// counted stops its instance, naming the feed and both counts.
func TestFastPathSkipShortOfCount(t *testing.T) {
	spec := symbolsSpec(t, 2_000, 2)
	spec.Registry = smacrossAs(func(s *smacross.Strategy) strategy.Strategy { return shortSkipper{s} })
	res, err := Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	want := "strategy: Skip took 11 of LTCBTC's 12 bars, all of which SkipCount counted (strategy.SkipCounter)"
	if len(res.Stopped) != 1 || res.Stopped[0].ID != "bench" || res.Stopped[0].Stopped != want {
		t.Fatalf("stopped: %+v\nwant bench stopped with %q", res.Stopped, want)
	}
}
