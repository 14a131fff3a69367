package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
)

func loadExample(t *testing.T, name string, env ...string) *config.Config {
	t.Helper()
	text, err := configs.FS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(text, env, nil, strategies.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func memStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), store.Memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestPaperReplayTradesLikeTheBacktest replays configs/paper.yaml on the
// embedded sample and compares every fill with a backtest of the same
// configuration over the same bars: same instance, order side, price,
// quantity, fee and time, and the same trade numbers.
func TestPaperReplayTradesLikeTheBacktest(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		config   string
		minFills int
	}{
		{"paper.yaml", 200}, // smacross and a grid
		{"jobs.yaml", 15},   // scheduled dust, rebalance and DCA jobs
		{"grid-only", 40},   // no warm-up: Begin at the first bar
	} {
		t.Run(tt.config, func(t *testing.T) {
			t.Parallel()
			replayLikeBacktest(t, tt.config, tt.minFills)
		})
	}
}

func replayLikeBacktest(t *testing.T, name string, minFills int) {
	var c *config.Config
	if name == "grid-only" {
		c = loadExample(t, "paper.yaml")
		c.Strategies = c.Strategies[1:]
	} else {
		c = loadExample(t, name)
	}
	c.Data.Speed = 0
	reg := strategies.NewRegistry()
	spec, err := backtest.FromConfig(c, reg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := backtest.Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if want.Fills.Len() < minFills {
		t.Fatalf("the backtest made %d fills; the comparison needs at least %d", want.Fills.Len(), minFills)
	}
	st := memStore(t)
	prefix := "" // the first session's trade-id tag
	for session := 0; session < 2; session++ {
		// A second session over the same store replays from the start
		// again and must make the same trades, under new ids.
		bot, err := New(Options{Config: c, Registry: reg, Store: st, Clock: exchangetest.NewStepClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))})
		if err != nil {
			t.Fatal(err)
		}
		if err := bot.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		got, err := st.FillsSince(t.Context(), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		var fills []store.Fill
		for _, f := range got {
			p, id, _ := strings.Cut(f.TradeID, "-")
			if session == 0 && prefix == "" {
				prefix = p
			}
			if (session == 0) == (p == prefix) {
				f.TradeID = id
				fills = append(fills, f)
			}
		}
		if len(fills) != want.Fills.Len() {
			t.Fatalf("session %d: %d fills, the backtest made %d", session, len(fills), want.Fills.Len())
		}
		// The store lists fills by time, symbol and trade id; the backtest
		// in the order they happened.
		bySymbolID := map[[2]string]store.Fill{}
		for _, f := range fills {
			bySymbolID[[2]string{f.Symbol, f.TradeID}] = f
		}
		for i, w := range want.Fills.All() {
			g := bySymbolID[[2]string{w.Symbol, w.ID}]
			side := "SELL"
			if w.IsBuyer {
				side = "BUY"
			}
			switch {
			case g.Instance != w.Instance, g.Symbol != w.Symbol, string(g.Side) != side, g.TradeID != w.ID, g.OrderID != w.OrderID,
				!g.Price.Equal(w.Price), !g.Qty.Equal(w.Qty), !g.QuoteQty.Equal(w.QuoteQty), !g.Commission.Equal(w.Commission),
				g.CommissionAsset != w.CommissionAsset, g.Maker != w.IsMaker, !g.Time.Equal(w.Time):
				t.Fatalf("session %d fill %d:\n got %+v\nwant %+v", session, i, g, w)
			}
		}
		s := bot.Status()
		if s.Phase != PhaseStopped || s.Counters.Fills != want.Fills.Len() {
			t.Fatalf("session %d: phase %s, %d fills counted; want stopped and %d", session, s.Phase, s.Counters.Fills, want.Fills.Len())
		}
		total := 0
		for _, bars := range spec.Data {
			total += bars.Len()
		}
		if s.Counters.Bars != total {
			t.Fatalf("session %d: %d bars delivered, want %d", session, s.Counters.Bars, total)
		}
	}
}

// TestReplayEndsOnCancel stops a paced replay through its context: Run
// returns nil and the status says stopped.
func TestReplayEndsOnCancel(t *testing.T) {
	t.Parallel()
	c := loadExample(t, "paper.yaml")
	c.Data.Speed = 3600
	ctx, cancel := context.WithCancel(t.Context())
	clk := &cancelClock{StepClock: exchangetest.NewStepClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)), after: 5, cancel: cancel}
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: memStore(t), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Run(ctx); err != nil {
		t.Fatal(err)
	}
	s := bot.Status()
	// Warm-up (30 bars of BTCUSDT; ETHUSDT starts a day later) is not
	// paced; then one paced wait per trading instant until the fifth.
	if s.Phase != PhaseStopped || clk.waits != 5 || clk.Now() != time.Date(2026, 3, 1, 0, 0, 5, 0, time.UTC) {
		t.Fatalf("phase %s after %d waits at %s", s.Phase, clk.waits, clk.Now())
	}
}

// cancelClock cancels after a number of waits and never fires again.
type cancelClock struct {
	*exchangetest.StepClock
	after, waits int
	cancel       context.CancelFunc
}

func (c *cancelClock) After(d time.Duration) <-chan time.Time {
	c.waits++
	if c.waits >= c.after {
		c.cancel()
		c.StepClock.After(d)
		return make(chan time.Time)
	}
	return c.StepClock.After(d)
}
