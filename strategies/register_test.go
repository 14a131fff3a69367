package strategies_test

import (
	"slices"
	"testing"

	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

func TestNewRegistryHoldsEveryBuiltIn(t *testing.T) {
	t.Parallel()
	r := strategies.NewRegistry()
	want := []string{"dca", "dust", "grid", "rebalance", "smacross"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	s, err := r.New(strategy.Config{Name: "smacross", ID: "x", Symbols: []string{"BTCUSDT"}, Interval: "1h"})
	if err != nil || s == nil {
		t.Fatalf("New(smacross) = %v, %v", s, err)
	}
	if _, err := r.New(strategy.Config{Name: "macd"}); err == nil ||
		err.Error() != `unknown strategy "macd" (known: dca, dust, grid, rebalance, smacross)` {
		t.Errorf("unknown name: %v", err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	t.Parallel()
	r := strategies.NewRegistry()
	defer func() {
		if p := recover(); p != "strategy: Register called twice for dca" {
			t.Errorf("panic %v", p)
		}
	}()
	strategies.Register(r)
}
