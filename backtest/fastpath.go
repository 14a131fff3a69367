package backtest

import (
	"context"
	"fmt"
	"math"
	"reflect"
)

// VerifyFastPath runs s twice, with the strategies' fast path
// (strategy.Skipper) and stepwise (Spec.Stepwise), and returns an error
// naming the first difference between the two results: an equity point
// (time or value, to the bit), then the fills, trades, metrics, exact
// equity values, exposure, balances, buy-and-hold, stopped instances and
// protection locks. nil means the fast path changed nothing. An author of
// a strategy with a Skip method checks it with this, over the data and
// parameters their strategy will meet.
func VerifyFastPath(ctx context.Context, s Spec) error {
	s.Stepwise = false
	fast, err := Run(ctx, s)
	if err != nil {
		return fmt.Errorf("with the fast path: %w", err)
	}
	s.Stepwise = true
	slow, err := Run(ctx, s)
	if err != nil {
		return fmt.Errorf("stepwise: %w", err)
	}
	return sameResults(fast, slow)
}

// sameResults returns an error naming the first difference between a
// (the fast path's) and b (stepwise).
func sameResults(a, b *Result) error {
	if a.Curve.Len() != b.Curve.Len() {
		return fmt.Errorf("backtest: the fast path's equity curve has %d points, stepwise %d", a.Curve.Len(), b.Curve.Len())
	}
	for i := range a.Curve.Len() {
		pa, pb := a.Curve.Point(i), b.Curve.Point(i)
		if pa.At != pb.At || math.Float64bits(pa.Value) != math.Float64bits(pb.Value) {
			return fmt.Errorf("backtest: equity point %d: the fast path's %s %v, stepwise %s %v",
				i, stamp(pa.Time()), pa.Value, stamp(pb.Time()), pb.Value)
		}
	}
	for _, c := range []struct {
		name string
		a, b any
	}{
		{"fills", a.Fills.Slice(), b.Fills.Slice()}, {"trades", a.Trades, b.Trades}, {"metrics", a.Metrics, b.Metrics},
		{"exact equity values", a.Exact, b.Exact}, {"exposure", a.Exposure, b.Exposure},
		{"balances", a.Balances, b.Balances}, {"buy-and-hold prices", a.BuyHold, b.BuyHold},
		{"stopped instances", a.Stopped, b.Stopped}, {"protection locks", a.Locks, b.Locks},
	} {
		if !reflect.DeepEqual(c.a, c.b) {
			return fmt.Errorf("backtest: the %s differ between the fast path and stepwise:\n%+v\n%+v", c.name, c.a, c.b)
		}
	}
	return nil
}
