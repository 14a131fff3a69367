package strategy

import (
	"errors"
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

func TestMemoryJournal(t *testing.T) {
	t.Parallel()
	j, ctx := NewMemoryJournal(), t.Context()
	if ok, _ := j.RecordIntent(ctx, Intent{ClientOrderID: "a"}); !ok {
		t.Error("first intent not created")
	}
	if ok, _ := j.RecordIntent(ctx, Intent{ClientOrderID: "a"}); ok {
		t.Error("second intent with the same id created")
	}
	for _, tr := range []exchange.OwnTrade{{Symbol: "BTCUSDT", ID: "1"}, {Symbol: "ETHUSDT", ID: "1"}, {Symbol: "BTCUSDT", ID: "1"}} {
		if _, err := j.RecordFill(ctx, "s", "a", tr); err != nil {
			t.Fatal(err)
		}
	}
	if all, tail := j.Fills(0), j.Fills(1); len(all) != 2 || len(tail) != 1 || tail[0].Symbol != "ETHUSDT" || all[0].Instance != "s" ||
		all[0].ClientOrderID != "a" || len(j.Fills(5)) != 0 {
		t.Errorf("fills %+v", all)
	}
	_ = j.RecordRefused(ctx, "b", errors.New("no funds"))
	state := []byte("x")
	_ = j.SaveState(ctx, "s", state)
	state[0] = 'y' // the journal keeps its own copy
	_ = j.RecordRun(ctx, Run{Schedule: "daily"})
	if j.Refused("b") != "no funds" || j.Refused("a") != "" || string(j.State("s")) != "x" || len(j.Runs()) != 1 {
		t.Errorf("refused %q, state %q, runs %v", j.Refused("b"), j.State("s"), j.Runs())
	}
}
