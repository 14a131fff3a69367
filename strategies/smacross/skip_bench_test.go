package smacross

import (
	"math/rand/v2"
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
