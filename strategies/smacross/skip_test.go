package smacross

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategy"
)

// walk is n one-minute bars of a random walk (closes with two decimals),
// generated afresh: distinct bars, none shared.
func walk(tb testing.TB, n int, seed uint64) *marketdata.Series {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	t := make([]int64, n)
	var cols [5][]int64
	for f := range cols {
		cols[f] = make([]int64, n)
	}
	p := int64(2_000_000) // 20,000.00
	for i := range n {
		t[i] = 1_699_999_980_000 + int64(i)*60_000
		o := p
		p += r.Int64N(2001) - 1000
		if p < 100 {
			p = 100
		}
		cols[0][i], cols[1][i], cols[2][i], cols[3][i], cols[4][i] = o, max(o, p), min(o, p), p, 1+r.Int64N(1e6)
	}
	s, err := marketdata.NewSeries("BTCUSDT", exchange.Interval1m, -2, -3, t, cols[0], cols[1], cols[2], cols[3], cols[4])
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkSkip is smacross's fast path alone over a million generated
// bars: Skip takes runs of bars and each bar it leaves (a cross) is
// taken as OnKline takes a bar that places nothing: both averages
// updated (the strategy's share of a backtest's no-order replay).
func BenchmarkSkip(b *testing.B) {
	for _, ma := range []string{"sma", "ema"} {
		b.Run("ma="+ma, func(b *testing.B) {
			s := walk(b, 1_000_000, 7)
			f := strategy.Feed{Symbol: "BTCUSDT", Interval: exchange.Interval1m}
			b.ReportAllocs()
			runs := 0
			for b.Loop() {
				st, err := New(strategy.Config{Symbols: []string{"BTCUSDT"}, Params: map[string]any{"ma": ma}})
				if err != nil {
					b.Fatal(err)
				}
				sk := st.(strategy.Skipper)
				runs = 0
				for i := 0; i < s.Len(); {
					n := sk.Skip(nil, f, strategy.NewBars(s, i, s.Len()))
					runs++
					if i += n; i < s.Len() {
						bk := st.(*Strategy).books["BTCUSDT"]
						c := s.Float(marketdata.Close, i)
						bk.fast.Update(c)
						bk.slow.Update(c)
						if bk.fast.Ready() && bk.slow.Ready() {
							bk.above, bk.primed = bk.fast.Value() > bk.slow.Value(), true
						}
						i++
					}
				}
			}
			b.ReportMetric(float64(s.Len())*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
			b.ReportMetric(float64(runs), "runs")
		})
	}
}

// TestSkipTakesWhatOnKlineWouldOnlyUpdate replays generated bars through
// Skip, each bar it leaves taken as OnKline takes a bar that places
// nothing, and checks it against a reference that updates the same
// averages bar by bar: Skip stops exactly at the bars where the reference
// sees a signal (a cross, or with entry state fast above slow), and the
// averages end the same to the bit. Bars are offered from each stop to
// the end, or cut short, so runs restart inside and past the closes Skip
// converted ahead.
func TestSkipTakesWhatOnKlineWouldOnlyUpdate(t *testing.T) {
	s := walk(t, 20_000, 3)
	f := strategy.Feed{Symbol: "BTCUSDT", Interval: exchange.Interval1m}
	for k, p := range []map[string]any{
		{"ma": "sma"}, {"ma": "ema"}, {"ma": "sma", "entry": "state"}, {"ma": "sma", "fast": 3, "slow": 200},
		{"ma": "sma"}, {"ma": "sma", "fast": 3, "slow": 200},
	} {
		// The last two take their closes from a cache the bars bring
		// (a replay's, which the backtest reads again): every run taken
		// is held in it whole unless longer than a quarter of it.
		var shared *strategy.FloatCache
		if k >= 4 {
			shared = strategy.NewFloatCache(256)
		}
		held, long := 0, 0
		st, err := New(strategy.Config{Symbols: []string{"BTCUSDT"}, Params: p})
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := New(strategy.Config{Symbols: []string{"BTCUSDT"}, Params: p})
		sk, b, rb := st.(strategy.Skipper), st.(*Strategy).books["BTCUSDT"], ref.(*Strategy).books["BTCUSDT"]
		state := p["entry"] == "state"
		var stops, want []int
		// The reference: every bar where OnKline would see a signal.
		for i := range s.Len() {
			c := s.Float(marketdata.Close, i)
			rb.fast.Update(c)
			rb.slow.Update(c)
			if !rb.fast.Ready() || !rb.slow.Ready() {
				continue
			}
			above := rb.fast.Value() > rb.slow.Value()
			if rb.primed && above != rb.above || above && state {
				want = append(want, i)
			}
			rb.above, rb.primed = above, true
		}
		for i, k := 0, 0; i < s.Len(); k++ {
			hi := s.Len()
			if k%3 == 2 {
				hi = min(hi, i+7) // a short offer, taken whole unless a signal comes first
			}
			bars := strategy.NewBars(s, i, hi).WithCache(shared)
			n := sk.Skip(nil, f, bars)
			if shared != nil && n > 0 {
				if vals, ok := shared.Held(bars.Head(n)); ok {
					held++
					for j, v := range vals {
						if math.Float64bits(v) != math.Float64bits(s.Float(marketdata.Close, i+j)) {
							t.Fatalf("%v: the cache holds %v for bar %d, want %v", p, v, i+j, s.Float(marketdata.Close, i+j))
						}
					}
				} else if n <= shared.Cap()/4 {
					t.Fatalf("%v: a run of %d bars from %d is not held", p, n, i)
				} else {
					long++
				}
			}
			if i += n; i == hi {
				continue
			}
			stops = append(stops, i)
			c := s.Float(marketdata.Close, i) // OnKline's update of a bar that places nothing
			b.fast.Update(c)
			b.slow.Update(c)
			b.above, b.primed = b.fast.Value() > b.slow.Value(), true
			i++
		}
		if !slices.Equal(stops, want) {
			t.Fatalf("%v: Skip stopped at %d bars, the reference signals at %d (first: %v, %v)", p, len(stops), len(want), stops[:min(5, len(stops))], want[:min(5, len(want))])
		}
		if shared != nil {
			t.Logf("%v: %d runs held by the shared cache, %d longer than a quarter of it", p, held, long)
		}
		if shared != nil && (held < 100 || long > held/10) {
			t.Fatalf("%v: %d runs held by the cache, %d longer than it", p, held, long)
		}
		if len(want) < 100 {
			t.Fatalf("%v: only %d signals in %d bars", p, len(want), s.Len())
		}
		if math.Float64bits(b.fast.Value()) != math.Float64bits(rb.fast.Value()) || math.Float64bits(b.slow.Value()) != math.Float64bits(rb.slow.Value()) {
			t.Fatalf("%v: averages %v %v, reference %v %v", p, b.fast.Value(), b.slow.Value(), rb.fast.Value(), rb.slow.Value())
		}
	}
}
