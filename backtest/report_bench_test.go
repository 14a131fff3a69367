package backtest

import (
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// benchTrades is a run's result with n round trips generated here, like a
// million-bar smacross run's on ETHBTC (10,813 of them): one-minute times
// a few hours apart, quantities and prices to 8 decimals, fees and PnL to
// 14 to 16, returns of a fraction of a percent either way.
func benchTrades(n int) (Spec, *Result) {
	rng := rand.New(rand.NewPCG(16, 1))
	at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	res := &Result{Trades: make([]Trade, n)}
	for i := range res.Trades {
		entry := at.Add(time.Duration(1+rng.IntN(120)) * time.Minute)
		exit := entry.Add(time.Duration(1+rng.IntN(180)) * time.Minute)
		at = exit
		reason := strategy.ExitSignal
		if i%5 == 0 {
			reason = strategy.ExitStopLoss
		}
		res.Trades[i] = Trade{Symbol: "ETHBTC", EntryTime: entry, ExitTime: exit,
			Qty:        decimal.New(9_000_000_000+rng.Int64N(1_000_000_000), -8),
			EntryPrice: decimal.New(5_000_000+rng.Int64N(100_000), -8),
			ExitPrice:  decimal.New(5_000_000+rng.Int64N(100_000), -8),
			Fees:       decimal.New(rng.Int64N(1e14), -16),
			PnL:        decimal.New(rng.Int64N(2e12)-1e12, -14),
			ReturnPct:  (rng.Float64() - 0.5) * 2, ExitReason: reason}
	}
	s := Spec{Instances: []strategy.Config{{Name: "smacross", ID: "bench", Symbols: []string{"ETHBTC"}, Interval: "1m"}},
		Interval: exchange.Interval1m, Quote: "BTC", Balances: map[string]decimal.Decimal{"BTC": decimal.NewFromInt(10)}}
	return s, res
}

// BenchmarkNewReport makes the report of 10,000 round trips: their rows'
// texts.
func BenchmarkNewReport(b *testing.B) {
	s, res := benchTrades(10_000)
	b.ReportAllocs()
	for b.Loop() {
		if r := NewReport("bench", s, res); len(r.Trades) != 10_000 {
			b.Fatalf("%d rows", len(r.Trades))
		}
	}
}

// BenchmarkWriteTradesCSV writes the trades.csv of 10,000 round trips to
// io.Discard.
func BenchmarkWriteTradesCSV(b *testing.B) { benchWrite(b, Report.WriteTradesCSV) }

// BenchmarkWriteJSON writes the report.json of 10,000 round trips to
// io.Discard.
func BenchmarkWriteJSON(b *testing.B) { benchWrite(b, Report.WriteJSON) }

// benchWrite times write over the report of 10,000 round trips.
func benchWrite(b *testing.B, write func(Report, io.Writer) error) {
	s, res := benchTrades(10_000)
	r := NewReport("bench", s, res)
	b.ReportAllocs()
	for b.Loop() {
		if err := write(r, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
