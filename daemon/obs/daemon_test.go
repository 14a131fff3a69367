package obs

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
)

// A real bot replays configs/paper.yaml while the listener is scraped
// (the race detector watches Status), then every counter served equals
// the bot's own.
// newBot builds a bot of the configuration text (with overrides) on the
// built-in strategies, an in-memory store closed with the test and a
// stepped clock at 2026-03-01.
func newBot(t *testing.T, text []byte, overrides map[string]any) (*daemon.Bot, *config.Config, *store.Store) {
	t.Helper()
	reg := strategies.NewRegistry()
	cfg, err := config.Load(text, nil, overrides, reg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), store.Memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bot, err := daemon.New(daemon.Options{Config: cfg, Registry: reg, Store: st, Clock: exchangetest.NewStepClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	return bot, cfg, st
}

func TestListenerOverARunningBot(t *testing.T) {
	t.Parallel()
	text, err := configs.FS.ReadFile("paper.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bot, cfg, st := newBot(t, text, map[string]any{"data.speed": 0})
	opts, err := ForBot(bot.Status, cfg, nil, st)
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, opts)
	done := make(chan error, 1)
	go func() { done <- bot.Run(t.Context()) }()
	scrapes := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		default:
		}
		for _, p := range []string{"/metrics", "/status", "/readyz"} {
			if code, _, body := get(t, srv.URL+p); code != http.StatusOK {
				t.Fatalf("%s while running: %d %s", p, code, body)
			}
		}
		scrapes++
	}
	s := bot.Status()
	if s.Phase != daemon.PhaseStopped || s.Counters.OrdersPlaced == 0 || s.Counters.Fills == 0 {
		t.Fatalf("the bot did not trade: %+v", s.Counters)
	}
	_, _, body := get(t, srv.URL+"/metrics")
	lines := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		lines[l] = true
	}
	want := []string{
		fmt.Sprintf("spotbot_orders_placed_total %d", s.Counters.OrdersPlaced),
		fmt.Sprintf("spotbot_fills_total %d", s.Counters.Fills),
		fmt.Sprintf("spotbot_bars_total %d", s.Counters.Bars),
		fmt.Sprintf(`spotbot_open_orders{instance="eth-grid"} %d`, len(s.OpenOrders)),
		`spotbot_phase{phase="stopped"} 1`,
		`spotbot_strategy_running{instance="btc-cross",strategy="smacross"} 1`,
		`spotbot_strategy_running{instance="eth-grid",strategy="grid"} 1`,
	}
	for reason, n := range s.Counters.OrdersRefused {
		want = append(want, fmt.Sprintf(`spotbot_orders_refused_total{reason=%q} %d`, reason, n))
	}
	for _, p := range s.Positions {
		want = append(want, fmt.Sprintf(`spotbot_realized_pnl{instance=%q,symbol=%q} %v`, p.Instance, p.Symbol, p.Realized.InexactFloat64()))
	}
	for _, w := range want {
		if !lines[w] {
			t.Errorf("missing %q", w)
		}
	}
	var got struct {
		Phase      string `json:"phase"`
		LastKlines []struct {
			Symbol string `json:"symbol"`
		} `json:"last_klines"`
	}
	_, _, body = get(t, srv.URL+"/status")
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Phase != "stopped" || len(got.LastKlines) != 2 || got.LastKlines[0].Symbol != "BTCUSDT" || got.LastKlines[1].Symbol != "ETHUSDT" {
		t.Errorf("status %+v", got)
	}
	t.Logf("%d scrapes while the bot ran; %d orders, %d fills", scrapes, s.Counters.OrdersPlaced, s.Counters.Fills)
}
