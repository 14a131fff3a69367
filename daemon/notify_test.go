package daemon

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/notify"
	"github.com/spotbot/spotbot/strategies"
)

// TestNotificationsReachTheWebhook replays a grid in paper-replay mode
// with a notifier posting to a local receiver that verifies every
// signature: the start, every fill the store recorded, and the stop with
// the final counters arrive, in that order, exactly.
func TestNotificationsReachTheWebhook(t *testing.T) {
	t.Parallel()
	const secret = "whsec-daemon-test"
	var mu sync.Mutex
	var got []notify.Payload
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if sig := r.Header.Get(notify.SignatureHeader); !hmac.Equal([]byte(sig), []byte(notify.Sign([]byte(secret), body))) {
			t.Errorf("bad signature %q on %s", sig, body)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var p notify.Payload
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("body %s: %v", body, err)
		}
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}))
	defer srv.Close()
	wh, err := notify.NewWebhook(srv.URL, secret, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	n, err := notify.New(notify.Options{Clock: exchangetest.NewStepClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)),
		Queue: 100000, RatePerMinute: 100000, DedupWindow: -1}, wh)
	if err != nil {
		t.Fatal(err)
	}

	c := loadExample(t, "paper.yaml")
	c.Strategies = c.Strategies[1:] // the grid alone
	c.Data.Speed = 0
	st := memStore(t)
	clock := exchangetest.NewStepClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: clock, Notify: n})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s := bot.Status()
	fills, err := st.FillsSince(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fills) < 10 || s.Counters.Fills != len(fills) {
		t.Fatalf("%d fills recorded, %d counted", len(fills), s.Counters.Fills)
	}
	if len(got) != len(fills)+2 {
		t.Fatalf("%d notifications for %d fills; want a start, the fills and a stop", len(got), len(fills))
	}
	stamp := func(tm time.Time) string { return tm.UTC().Format(time.RFC3339Nano) }
	start := notify.Payload{Kind: notify.KindStart, Text: "trading started (paper-replay)",
		Fields: map[string]string{"mode": "paper-replay", "strategies": "1", "symbols": "ETHUSDT"}, Time: stamp(s.FirstPoll)}
	if !payloadEqual(got[0], start) {
		t.Fatalf("start\n got %+v\nwant %+v", got[0], start)
	}
	stop := notify.Payload{Kind: notify.KindStop, Text: "bot stopped", Fields: map[string]string{
		"fills": fmt.Sprint(len(fills)), "orders_placed": fmt.Sprint(s.Counters.OrdersPlaced), "open_orders": fmt.Sprint(len(s.OpenOrders))},
		Time: stamp(s.Updated)}
	if !payloadEqual(got[len(got)-1], stop) {
		t.Fatalf("stop\n got %+v\nwant %+v", got[len(got)-1], stop)
	}
	// Fills arrive in the order they were recorded; the store lists them
	// by time, so match them by trade id.
	byID := map[string]notify.Payload{}
	for _, p := range got[1 : len(got)-1] {
		if p.Kind != notify.KindFill {
			t.Fatalf("unexpected %+v", p)
		}
		byID[p.Fields["trade_id"]] = p
	}
	for _, f := range fills {
		p, ok := byID[f.TradeID]
		want := map[string]string{"symbol": f.Symbol, "side": string(f.Side), "price": f.Price.String(), "qty": f.Qty.String(),
			"fee": f.Commission.String() + " " + f.CommissionAsset, "client_order_id": f.ClientOrderID, "trade_id": f.TradeID}
		text := fmt.Sprintf("%s %s %s at %s", f.Side, f.Qty, f.Symbol, f.Price)
		if !ok || p.Instance != f.Instance || p.Text != text || !maps.Equal(p.Fields, want) {
			t.Fatalf("fill %s\n got %+v\nwant instance %s, %q, %v", f.TradeID, p, f.Instance, text, want)
		}
	}
}

func payloadEqual(a, b notify.Payload) bool {
	return a.Kind == b.Kind && a.Instance == b.Instance && a.Text == b.Text && a.Time == b.Time && a.Repeats == b.Repeats &&
		maps.Equal(a.Fields, b.Fields)
}

// recorder is a Notifier keeping every event, safe for the bot's
// goroutines.
type recorder struct {
	mu     sync.Mutex
	events []notify.Event
}

func (r *recorder) Notify(ev notify.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// lines is each event as kind, instance, time and text, fields aside.
func (r *recorder) lines(kinds ...notify.Kind) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		if len(kinds) == 0 || slices.Contains(kinds, ev.Kind) {
			out = append(out, fmt.Sprintf("%s %s %s %s", ev.Time.UTC().Format(time.RFC3339), ev.Kind, ev.Instance, ev.Text))
		}
	}
	return out
}

// TestKillSwitchAndRefusalsNotify: a replay whose drawdown limit trips
// tells the kill switch once, with its reason, and the refusals that
// follow once (the wall clock stands still in this replay, so the next
// notice would come a minute later).
func TestKillSwitchAndRefusalsNotify(t *testing.T) {
	t.Parallel()
	c := loadExample(t, "paper.yaml")
	c.Data.Speed = 0
	c.Risk.MaxDrawdown = decimal.RequireFromString("0.001")
	notes := &recorder{}
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: memStore(t),
		Clock: exchangetest.NewStepClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)), Notify: notes})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"2026-03-01T00:00:00Z kill_switch  kill switch tripped: drawdown 0.22% exceeds 0.1%",
		"2026-03-01T00:00:00Z refusals  5 orders refused since the last notice (5 in all)",
		"2026-03-01T00:00:00Z stop  bot stopped",
	}
	if got := notes.lines(notify.KindKillSwitch, notify.KindRefusals, notify.KindStop); !slices.Equal(got, want) {
		t.Fatalf("notifications\n got %q\nwant %q", got, want)
	}
	notes.mu.Lock()
	defer notes.mu.Unlock()
	for _, ev := range notes.events {
		if ev.Kind == notify.KindRefusals && !maps.Equal(ev.Fields, map[string]string{"kill-switch": "5"}) {
			t.Fatalf("refusal fields %v", ev.Fields)
		}
	}
}
