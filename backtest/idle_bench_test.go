package backtest

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/strategy"
)

// idleStrategy counts its bars and does nothing else; it has no fast
// path (strategy.Skipper), so every bar goes through OnKline.
type idleStrategy struct{ n int }

func (s *idleStrategy) OnKline(ctx strategy.Context, bar strategy.Bar) error { s.n++; return nil }

// BenchmarkIdleMillion is the engine's own cost a bar: a strategy that
// does nothing and has no fast path, over the million tiled bars of
// BenchmarkSMACrossMillionBars (bars/s).
func BenchmarkIdleMillion(b *testing.B) {
	bars := tiled(b, 1_000_000)
	spec := millionSpec(bars)
	reg := strategy.NewRegistry()
	reg.Register("smacross", func(cfg strategy.Config) (strategy.Strategy, error) { return &idleStrategy{}, nil })
	spec.Registry = reg
	spec.Balances = map[string]decimal.Decimal{"BTC": decimal.NewFromInt(1)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(b.Context(), spec); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(bars.Len())*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
}
