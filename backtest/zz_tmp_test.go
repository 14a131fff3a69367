package backtest

import (
	"testing"

	"github.com/spotbot/spotbot/strategy"
)

type noop struct{}

func (noop) OnKline(strategy.Context, strategy.Bar) error { return nil }

func BenchmarkZZNoop(b *testing.B) {
	bars := tiled(b, 1_000_000)[:1_000_000]
	s := millionSpec(bars)
	reg := strategy.NewRegistry()
	reg.Register("smacross", func(strategy.Config) (strategy.Strategy, error) { return noop{}, nil })
	s.Registry = reg
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(bars))*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
}
