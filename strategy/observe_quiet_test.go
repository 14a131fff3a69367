package strategy

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/risk"
)

// observeRun passes over a run's quiet bars by their prices
// (observeQuiet) and leaves the gate as observing every bar does
// (observeEach): over random hourly walks across days, in runs of random
// length, two runtimes, one each way, agree after every run on the
// gate's state (its Quiet, the peak, floors and day in it) and on the
// kill switch, with the drawdown limit, the day's loss limit or both.
func TestObserveQuietSameAsEachBar(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	feed := Feed{Symbol: "BTCUSDT", Interval: exchange.Interval60m}
	trips, runs, edges := 0, 0, 0
	for walk := range 40 {
		limits := []risk.Limits{
			{MaxDrawdown: decimal.RequireFromString("0.15")},
			{MaxDailyLoss: decimal.RequireFromString("25.5")},
			{MaxDrawdown: decimal.RequireFromString("0.2"), MaxDailyLoss: decimal.RequireFromString("40")},
		}[walk%3]
		runtime := func() *Runtime {
			h := newHarness(t, Options{Valuation: "USDT", Balances: compactReader{
				{Asset: "USDT", Free: d("500.5"), Locked: d("0")}, {Asset: "BTC", Free: d("0.01234567"), Locked: d("0.001")}}})
			g, err := risk.New(limits)
			if err != nil {
				t.Fatal(err)
			}
			h.rt.opts.Gate = g
			return h.rt
		}
		a, b := runtime(), runtime()
		price := int64(3_000_000) // 30,000.00
		at := day.Add(time.Duration(r.IntN(24)) * time.Hour)
		for bar := 0; bar < 24*20; runs++ {
			// A run of hourly bars, in a series of its own: a walk of ± 0.5%
			// an hour, its first close at times one cent either side of
			// an end of the quiet range the runtime finds now.
			k := 1 + r.IntN(60)
			times, closes, zeros := make([]int64, k), make([]int64, k), make([]int64, k)
			for i := range k {
				times[i] = at.UnixMilli()
				at = at.Add(time.Hour)
				price += price * (r.Int64N(101) - 50) / 10_000
				closes[i] = price
			}
			if lo, hi, _, _, ok := a.quietPrices(feed.Symbol, -2); ok && r.IntN(4) == 0 {
				at := []int64{lo, hi, hi + 1, lo - 1}[:3]
				if walk%4 == 0 {
					at = at[:4] // below the floor: these walks trip there
				}
				if c := at[r.IntN(len(at))]; c > 0 && c < 100_000_000 {
					closes[0] = c // the walk goes on from its own price
					edges++
				}
			}
			s, err := marketdata.NewSeries("BTCUSDT", feed.Interval, -2, 0, times, closes, closes, closes, closes, zeros)
			if err != nil {
				t.Fatal(err)
			}
			bars := NewBars(s, 0, k)
			a.observeRun([]Feed{feed}, []Bars{bars}, k)
			last := b.lastEntry(feed.Symbol)
			b.observeEach([]Feed{feed}, []Bars{bars}, []*lastPx{last}, 0, k)
			last.setFixed(bars.Close(k - 1))
			qa, qb := a.opts.Gate.Quiet(), b.opts.Gate.Quiet()
			if qa != qb || a.killed != b.killed || a.opts.Gate.Killed() != b.opts.Gate.Killed() {
				t.Fatalf("walk %d, bars %d to %d: by price %+v killed %v %q; each bar %+v killed %v %q",
					walk, bar, bar+k, qa, a.killed, a.opts.Gate.Killed(), qb, b.killed, b.opts.Gate.Killed())
			}
			bar += k
		}
		if a.killed {
			trips++
		}
	}
	if trips != 7 || runs != 680 || edges != 156 {
		t.Fatalf("%d walks tripped, %d runs, %d at an end of the range; want 7, 680 and 156", trips, runs, edges)
	}
}
