package reliability

import (
	"context"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/simserver"
)

// wallWorkers retires workers on the wall clock, where nothing waits for
// them.
type wallWorkers struct{}

func (wallWorkers) Done() {}

// TestBurstInRealTime runs a burst on the wall clock, so the latency
// between the client drawing from its budget and the server counting the
// arrival is real and the client's default 100 ms window margin has to
// absorb it. To stay near ten seconds it asks for ten times the
// per-second pools (120 orders and cancels, 20 batches, 20 account reads)
// but less of the ten-second weights (598 IP, twice its budget, so one
// window boundary is crossed; 465 UID, just under its budget).
func TestBurstInRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 12 s of wall time")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	r := newRig(t, simserver.Options{Clock: exchange.SystemClock{}})
	ack, err := r.x.Master().PlaceOrder(ctx, bid("BTCUSDT", "0.001", "12000"))
	must(t, err)
	c := r.client(t, masterKey, masterSecret) // system clock, spec budgets, 100 ms margin
	calls := map[string]int{"queries": 16, "market data A": 29, "market data B": 29}
	var strategies []strategy
	for _, st := range burstStrategies(ack.OrderID) {
		if n, ok := calls[st.name]; ok {
			st.calls = n
		}
		strategies = append(strategies, st)
	}
	start := time.Now()
	for _, err := range runBurst(ctx, c, wallWorkers{}, strategies, false) {
		t.Error(err)
	}
	log := r.s.Requests()
	for _, l := range log {
		if l.Status != 200 {
			t.Fatalf("%s at %s answered %d code %d", l.Endpoint, l.Time.Format(time.StampMilli), l.Status, l.Code)
		}
	}
	report, excess := checkWindows(log, exchange.DefaultLimits())
	for _, e := range excess {
		t.Error(e)
	}
	want := map[exchange.Pool]int{exchange.PoolIP: 598, exchange.PoolUID: 465, exchange.PoolOrder: 120, exchange.PoolBatch: 20, exchange.PoolAccount: 20}
	for _, p := range report {
		if p.drawn != want[p.limit.Pool] {
			t.Errorf("%s: %d drawn, want %d", p.limit.Pool, p.drawn, want[p.limit.Pool])
		}
		t.Logf("%-7s drawn %4d in %4d requests over %5.2fs, peak window %3d of %3d", p.limit.Pool, p.drawn, p.requests,
			p.span.Seconds(), p.peak, p.limit.Max)
	}
	t.Logf("%d requests in %s; client waited %s on its budget", len(log), time.Since(start).Round(time.Millisecond), c.Budget().Waited().Round(time.Millisecond))
}
