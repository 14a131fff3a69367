package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies"
)

// eightyOrders is a grid laying 80 resting orders on ETHUSDT, followed
// every second.
const eightyOrders = `
poll: {orders: 1s, kline_delay: 2s}
strategies:
  - name: grid
    id: eth-grid
    symbols: [ETHUSDT]
    interval: 1h
    params: {lower: 300, upper: 900, levels: 80, quantity: 0.02}
`

// A first start and ten restarts of a live bot within one minute over the
// same store, with 80 open orders synced every second (each sync asks 160
// of the UID pool's 500 per 10 s, so the server's window is always full
// as a process stops), against the simulated server enforcing the spec's
// limits: not one 429 or 418. A supervisor restarts the bot every 5 s;
// three of the stops are graceful (SIGTERM: the bot's own shutdown, as
// long as it takes), the others kills (nothing more is sent, the store
// still says the bot runs).
func TestRestartsDrawNo429(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 120, false, noFaults)
	graceful := h.liveConfig(eightyOrders + "daemon: {clock_sync: 1m}\n")
	// A shutdown with no time left sends nothing: a kill, in-process.
	kill := h.liveConfig(eightyOrders + "daemon: {clock_sync: 1m, shutdown_timeout: 1ns}\n")
	st := memStore(t)
	t0 := h.clock.Now()
	clean := map[int]bool{2: true, 5: true, 8: true}
	var starts []time.Duration
	var open []int
	next := t0.Add(10 * time.Second) // the grid lays its orders first
	for i := range 11 {
		cfg, stop := kill, next
		h.clock.passWaits = time.Nanosecond // the kill stops time at stop
		if clean[i] {
			cfg = graceful
			h.clock.passWaits = time.Minute // the shutdown takes its time
		}
		starts = append(starts, h.clock.Now().Sub(t0))
		bot, err := New(Options{Config: cfg, Registry: strategies.NewRegistry(), Store: st, Clock: h.clock, Client: h.client()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		h.clock.runUntil(stop, cancel)
		err = bot.Run(ctx)
		cancel()
		if clean[i] && err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		open = append(open, len(bot.Status().OpenOrders))
		raw, _, err := st.LoadState(t.Context(), budgetKey)
		var saved savedBudget
		if err == nil {
			err = json.Unmarshal(raw, &saved)
		}
		if err != nil || saved.Running == clean[i] {
			t.Fatalf("start %d: the store says running %v (%v); want %v", i+1, saved.Running, err, !clean[i])
		}
		next = stop.Add(5 * time.Second)
		if now := h.clock.Now(); now.After(stop) {
			next = now.Add(5 * time.Second)
		}
	}
	last := starts[len(starts)-1] - starts[1]
	if last > time.Minute {
		t.Errorf("ten restarts took %s of exchange time (starts at %v), want at most a minute", last, starts)
	}
	statuses := map[int]int{}
	queries := 0
	for _, r := range h.srv.Requests() {
		statuses[r.Status]++
		if r.Endpoint == exchange.EpQueryOrder {
			queries++
		}
	}
	if statuses[http.StatusTooManyRequests] != 0 || statuses[http.StatusTeapot] != 0 {
		t.Errorf("server answers by status %v: want no 429 and no 418", statuses)
	}
	eth, err := h.x.Master().OpenOrders(t.Context(), "ETHUSDT")
	if err != nil {
		t.Fatal(err)
	}
	if len(eth) != 80 || open[0] != 80 {
		t.Errorf("%d open orders on the exchange, %d followed after the first start; want 80", len(eth), open[0])
	}
	t.Logf("starts at %v; %d requests (%d order queries); open orders followed at each stop %v", starts, len(h.srv.Requests()), queries, open)
}
