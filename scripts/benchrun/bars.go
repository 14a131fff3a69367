// Package benchrun makes the bars of the whole-command benchmarks: n
// distinct one-minute ETHBTC bars from 2020-01-01, a random walk that is
// the same for the same seed (or the same walk at BTCUSDT's prices).
// scripts/bench-backtest-run.sh writes them as a CSV (main.go); app's
// BenchmarkBacktestRun generates them in process.
package benchrun

import (
	"bufio"
	"math/rand/v2"
	"os"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// Series returns the n bars of seed.
func Series(n int, seed uint64) (*marketdata.Series, error) {
	return SeriesOf("ETHBTC", -8, n, seed)
}

// SeriesOf is Series's random walk for another symbol, its prices'
// coefficients at exponent priceExp: about 0.05 at -8 (ETHBTC), 50,000 at
// -2 (BTCUSDT, whose averages of 16 decimals need more than an int64).
func SeriesOf(symbol string, priceExp int32, n int, seed uint64) (*marketdata.Series, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	t := make([]int64, n)
	var cols [5][]int64
	for f := range cols {
		cols[f] = make([]int64, n)
	}
	const base = 5_000_000.0
	price := base
	for i := range n {
		open := price
		price *= 1 + r.NormFloat64()*0.001 + (base-price)/base*1e-5
		o, c := int64(open), int64(price)
		t[i] = start + int64(i)*60_000
		cols[0][i], cols[3][i] = o, c
		cols[1][i] = max(o, c) + int64(r.Float64()*open*0.0005)
		cols[2][i] = max(min(o, c)-int64(r.Float64()*open*0.0005), 1)
		cols[4][i] = 1 + r.Int64N(5_000_000)
		price = float64(c)
	}
	return marketdata.NewSeries(symbol, exchange.Interval1m, priceExp, -4, t, cols[0], cols[1], cols[2], cols[3], cols[4])
}

// WriteCSV writes the n bars of seed to path as a spotbot CSV.
func WriteCSV(path string, n int, seed uint64) error {
	s, err := Series(n, seed)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := marketdata.WriteSeries(w, s); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
