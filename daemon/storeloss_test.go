package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
)

// The store's file deleted, replaced or made read-only under a running
// live bot is seen within one order poll: trading stops (no order is sent
// after the loss), and Run returns an error that says what happened.
func TestStoreLossStopsTheBot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		lose func(path string)
		msg  string
	}{
		{"deleted", func(p string) { os.Remove(p) }, "the file was deleted"},
		{"replaced", func(p string) {
			b, _ := os.ReadFile(p)
			os.WriteFile(p+".new", b, 0o644)
			os.Rename(p+".new", p)
		}, "another file was put in its place"},
		{"read-only", func(p string) { os.Chmod(p, 0o444) }, "the file was made read-only (mode -r--r--r--)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newExchangeHarness(t, 120, false, noFaults)
			c := h.liveConfig(`
poll: {orders: 5s, kline_delay: 2s}
daemon: {clock_sync: 1m}
` + twoStrategies)
			path := filepath.Join(t.TempDir(), "bot.db")
			st, err := store.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: h.clock, Client: h.client()})
			if err != nil {
				t.Fatal(err)
			}
			t0 := h.clock.Now()
			lost := t0.Add(2*time.Hour + 30*time.Second)
			h.clock.hook(lost, func() { tc.lose(path) })
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			h.clock.runUntil(t0.Add(24*time.Hour), cancel)
			err = bot.Run(ctx)
			want := "daemon: store " + path + ": the database file was lost: " + tc.msg
			if !errors.Is(err, store.ErrLost) || err.Error() != want {
				t.Fatalf("Run: %v\nwant %s", err, want)
			}
			if end := h.clock.Now(); end.After(lost.Add(5 * time.Second)) {
				t.Errorf("stopped at %s, %s after the loss; want within one poll (5s)", end, end.Sub(lost))
			}
			placed := 0
			for _, r := range h.srv.Requests() {
				if r.Endpoint == exchange.EpNewOrder || r.Endpoint == exchange.EpBatchOrders {
					if r.Time.After(lost) {
						t.Errorf("an order was sent at %s, after the loss", r.Time)
					}
					placed++
				}
			}
			s := bot.Status()
			if placed == 0 || s.Phase != PhaseStopped || s.LastError != "store: "+want[len("daemon: "):] {
				t.Errorf("%d orders placed before the loss; phase %s; last error %q", placed, s.Phase, s.LastError)
			}
		})
	}
}
