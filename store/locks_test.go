package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/spotbot/spotbot/strategy"
)

func TestExitReasonRecorded(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	in := intent("x1")
	in.Reason = strategy.ExitStopLoss
	if _, err := s.RecordIntent(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordIntent(t.Context(), intent("x2")); err != nil {
		t.Fatal(err)
	}
	if got := mustOrder(t, s, "x1").ExitReason + "|" + mustOrder(t, s, "x2").ExitReason; got != "stop_loss|" {
		t.Errorf("exit reasons %q", got)
	}
}

func TestLocksRecorded(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	a := strategy.Lock{Instance: "i", Symbol: "BTCUSDT", Reason: strategy.LockCooldown, From: t0, Until: t0.Add(2 * time.Hour)}
	b := strategy.Lock{Instance: "i", Symbol: "ETHUSDT", Reason: strategy.LockLowProfit, From: t0, Until: t0.Add(time.Hour)}
	for _, l := range []strategy.Lock{a, b} {
		if err := s.RecordLock(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	text := func(ls []strategy.Lock) string {
		out := ""
		for _, l := range ls {
			out += fmt.Sprintf("%s %s %s %s-%s;", l.Instance, l.Symbol, l.Reason, l.From.Format("15:04"), l.Until.Format("15:04"))
		}
		return out
	}
	now, err := s.Locks(ctx, t0.Add(30*time.Minute), false)
	if err != nil || text(now) != "i ETHUSDT low_profit 03:04-04:04;i BTCUSDT cooldown 03:04-05:04;" {
		t.Errorf("in force at 00:30: %s %v", text(now), err)
	}
	if later, _ := s.Locks(ctx, t0.Add(time.Hour), false); text(later) != "i BTCUSDT cooldown 03:04-05:04;" {
		t.Errorf("in force at 01:00: %s", text(later))
	}
	if all, _ := s.Locks(ctx, t0.Add(5*time.Hour), true); len(all) != 2 {
		t.Errorf("all: %s", text(all))
	}
	bad := a
	bad.Until = bad.From
	if err := s.RecordLock(ctx, bad); err == nil || err.Error() != "store: lock of BTCUSDT until 2024-01-02T03:04:05Z does not end after it starts" {
		t.Errorf("empty lock: %v", err)
	}
}
