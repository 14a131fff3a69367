package backtest

import (
	"math/rand/v2"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// walkBars returns n distinct one-minute ETHBTC bars, generated now (not
// committed): a random walk from 0.05 BTC, moves of about 0.1% a minute
// pulled back towards the start so that 50 million bars stay in a
// realistic range, prices in units of 10^-8 and volumes of 10^-4, the
// same for the same seed. Every bar is its own 48 bytes: no two share
// storage, as bars read from a file do not.
func walkBars(n int, seed uint64) (*marketdata.Series, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	t := make([]int64, n)
	var cols [5][]int64
	for f := range cols {
		cols[f] = make([]int64, n)
	}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	const base = 5_000_000.0
	price := base
	for i := range n {
		open := price
		price *= 1 + r.NormFloat64()*0.001 + (base-price)/base*1e-5
		o, c := int64(open), int64(price)
		hi := max(o, c) + int64(r.Float64()*open*0.0005)
		lo := min(o, c) - int64(r.Float64()*open*0.0005)
		t[i] = start + int64(i)*60_000
		cols[marketdata.Open][i], cols[marketdata.High][i], cols[marketdata.Low][i], cols[marketdata.Close][i] = o, hi, max(lo, 1), c
		cols[marketdata.Volume][i] = 1 + r.Int64N(5_000_000)
		price = float64(c)
	}
	return marketdata.NewSeries("ETHBTC", exchange.Interval1m, -8, -4, t,
		cols[marketdata.Open], cols[marketdata.High], cols[marketdata.Low], cols[marketdata.Close], cols[marketdata.Volume])
}
