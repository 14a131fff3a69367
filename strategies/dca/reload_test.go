package dca

import (
	"fmt"
	"testing"

	"github.com/spotbot/spotbot/strategy"
)

// Reload takes a new amount and dip and refuses what needs a restart,
// leaving the parameters as they were.
func TestReload(t *testing.T) {
	st, err := New(strategy.Config{Name: Name, ID: "d", Symbols: []string{"BTCUSDT"}, Interval: "1h",
		Params: map[string]any{"amount": "25", "dip": "0.02", "lookback": 12}})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*Strategy)
	if err := s.Reload(map[string]any{"amount": "40", "dip": "0.05"}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%s %s %d %s", s.p.Amount, s.p.Dip, s.p.Lookback, s.p.Schedule); got != "40 0.05 12 0 0 * * *" {
		t.Errorf("after reload: %s", got)
	}
	for params, want := range map[string]map[string]any{
		"lookback: changes at a restart, not by a reload": {"amount": "50", "lookback": 24},
		"schedule: changes at a restart, not by a reload": {"schedule": "0 9 * * *"},
		"params.amount: must be positive":                 {"amount": "-1"},
	} {
		if err := s.Reload(want); err == nil || err.Error() != params {
			t.Errorf("reload %v: %v, want %q", want, err, params)
		}
	}
	if got := fmt.Sprintf("%s %s %d", s.p.Amount, s.p.Dip, s.p.Lookback); got != "40 0.05 12" {
		t.Errorf("after refused reloads: %s", got)
	}
}
