package risk

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// BenchmarkGateCheck measures one limit order through every check of the
// gate, with portfolio limits on and no budget (no I/O). Target: ≤ 3 µs.
func BenchmarkGateCheck(b *testing.B) {
	g, err := New(Limits{MaxOpenOrders: 100, MaxOrderValue: decimal.NewFromInt(10000), MaxPositionValue: decimal.NewFromInt(50000)})
	if err != nil {
		b.Fatal(err)
	}
	v := newView()
	v.info.Filters = []exchange.Filter{{FilterType: exchange.FilterPercentPriceBySide, BidMultiplierUp: d("1.1"), AskMultiplierDown: d("0.9")}}
	o := buy("0.01", "20000")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := g.Check(ctx, o, v); err != nil {
			b.Fatal(err)
		}
	}
}
