package exchange

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// BenchmarkNewOrderRequest measures building and signing a new-order
// request: validation, the query, the signature and the *http.Request.
// Target: ≤ 2 µs and ≤ 10 allocations per op.
func BenchmarkNewOrderRequest(b *testing.B) {
	c, err := New(WithBaseURL("https://api.example.com"), WithCredentials(NewSecret(testKey), NewSecret(testSecret)),
		WithClock(newFakeClock(testNow)), WithRecvWindow(5*time.Second))
	if err != nil {
		b.Fatal(err)
	}
	o := NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: decimal.RequireFromString("0.0123"),
		Price: decimal.RequireFromString("20000.15"), NewClientOrderID: "smacross-lqb8x2-1f"}
	ctx := context.Background()
	ep := endpoint(EpNewOrder)
	b.ReportAllocs()
	for b.Loop() {
		if err := o.Validate(); err != nil {
			b.Fatal(err)
		}
		q := query{buf: make([]byte, 0, 256)}
		orderQuery(&q, &o)
		if _, err := c.newRequest(ctx, ep, &q); err != nil {
			b.Fatal(err)
		}
	}
}
