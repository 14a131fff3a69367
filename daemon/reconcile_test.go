package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

// A strategy that places nothing during the short sessions below: the bot
// starts (reconciliation, warm-up, first sync) and stops at its first wait.
const quietStrategy = `
strategies:
  - name: smacross
    id: btc
    symbols: [BTCUSDT]
    interval: 1h
    params: {fast: 5, slow: 20, fraction: 0.5}
`

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// place puts an order on the exchange directly; with record set, the store
// holds its intent and acknowledgement as the runtime would have left them.
func (h *exchangeHarness) place(st *store.Store, instance string, o exchange.NewOrder, record bool) exchange.OrderAck {
	t := h.t
	t.Helper()
	if record {
		if _, err := st.RecordIntent(t.Context(), strategy.Intent{Instance: instance, ClientOrderID: o.NewClientOrderID, Order: o, At: h.clock.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	ack, err := h.x.Master().PlaceOrder(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if record {
		if err := st.RecordAck(t.Context(), o.NewClientOrderID, ack.OrderID, h.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return ack
}

// startOnce runs a bot through start-up and shutdown.
func (h *exchangeHarness) startOnce(c *config.Config, st *store.Store) Status {
	return h.run(c, st, h.clock.Now()).Status()
}

// TestReconcileOrderFilledWhileDown: an order the store holds as
// acknowledged was filled on the exchange while the bot was down. At start
// the bot finds it filled, imports the trade, delivers the fill to its
// instance (position) and records the final status.
func TestReconcileOrderFilledWhileDown(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 100, false, noFaults)
	st := memStore(t)
	// BTCUSDT's close at hour 100 is 18,3xx; a buy at 30,000 crosses and
	// fills at the next bar's open.
	ack := h.place(st, "btc", exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Price: dec("30000"), Quantity: dec("0.01"), NewClientOrderID: "btc-down-1"}, true)
	h.clock.Advance(h.clock.Now().Add(3 * time.Hour))
	eo, err := h.x.Master().QueryOrder(t.Context(), exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: ack.OrderID})
	if err != nil || eo.Status != exchange.StatusFilled {
		t.Fatalf("the exchange should have filled the order: %+v %v", eo, err)
	}
	s := h.startOnce(h.liveConfig(quietStrategy), st)

	so, _, err := st.Order(t.Context(), "btc-down-1")
	if err != nil || so.Status != exchange.StatusFilled || so.Intent != store.IntentFinal || !so.ExecutedQty.Equal(dec("0.01")) {
		t.Fatalf("store order %+v (%v)", so, err)
	}
	fills, err := st.FillsByOrder(t.Context(), "btc-down-1")
	if err != nil || len(fills) != 1 || fills[0].Instance != "btc" || !fills[0].Qty.Equal(dec("0.01")) || fills[0].OrderID != ack.OrderID {
		t.Fatalf("store fills %+v (%v)", fills, err)
	}
	if s.Counters.Fills != 1 || s.Counters.Reconciled.Checked != 1 || len(s.OpenOrders) != 0 {
		t.Fatalf("status: %d fills delivered, %d checked, open %v", s.Counters.Fills, s.Counters.Reconciled.Checked, s.OpenOrders)
	}
	// The fill reached the instance: its position holds the quantity less
	// the fee taken in BTC.
	want := dec("0.01").Sub(fills[0].Commission)
	if len(s.Positions) != 1 || s.Positions[0].Instance != "btc" || !s.Positions[0].Qty.Equal(want) || !s.Positions[0].AvgPrice.Equal(fills[0].Price.Mul(dec("0.01")).Div(want)) {
		t.Fatalf("positions %+v; want %s BTC", s.Positions, want)
	}
}

// TestReconcileFillRecordedButNotTheStatus: the bot crashed after
// recording a fill and before recording the order's final status. At start
// the status is brought up to date, the fill is not recorded or delivered
// twice, and the position is rebuilt from the recorded fill.
func TestReconcileFillRecordedButNotTheStatus(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 100, false, noFaults)
	st := memStore(t)
	ack := h.place(st, "btc", exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Price: dec("30000"), Quantity: dec("0.02"), NewClientOrderID: "btc-crash-1"}, true)
	h.clock.Advance(h.clock.Now().Add(2 * time.Hour))
	trades, err := h.x.Master().MyTrades(t.Context(), exchange.MyTradesRequest{Symbol: "BTCUSDT", OrderID: ack.OrderID})
	if err != nil || len(trades) != 1 {
		t.Fatalf("trades %v (%v)", trades, err)
	}
	if _, err := st.RecordFill(t.Context(), "btc", "btc-crash-1", trades[0]); err != nil {
		t.Fatal(err)
	}
	s := h.startOnce(h.liveConfig(quietStrategy), st)
	so, _, _ := st.Order(t.Context(), "btc-crash-1")
	fills, _ := st.FillsByOrder(t.Context(), "btc-crash-1")
	if so.Status != exchange.StatusFilled || len(fills) != 1 {
		t.Fatalf("store order %s with %d fills", so.Status, len(fills))
	}
	want := dec("0.02").Sub(trades[0].Commission)
	if s.Counters.Fills != 0 || len(s.Positions) != 1 || !s.Positions[0].Qty.Equal(want) {
		t.Fatalf("%d fills delivered again; positions %+v (want %s)", s.Counters.Fills, s.Positions, want)
	}
}

// TestReconcileIntentNeverSent: the bot crashed between recording an
// intent and sending it. The exchange does not know the client order id,
// so the intent is recorded as refused.
func TestReconcileIntentNeverSent(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 100, false, noFaults)
	st := memStore(t)
	o := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Price: dec("10000"),
		Quantity: dec("0.01"), NewClientOrderID: "btc-lost-1"}
	if _, err := st.RecordIntent(t.Context(), strategy.Intent{Instance: "btc", ClientOrderID: o.NewClientOrderID, Order: o, At: h.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	s := h.startOnce(h.liveConfig(quietStrategy), st)
	so, _, _ := st.Order(t.Context(), "btc-lost-1")
	if so.Intent != store.IntentRefused || !strings.Contains(so.Error, "Unknown order sent") || len(s.OpenOrders) != 0 {
		t.Fatalf("store order %+v; open %v", so, s.OpenOrders)
	}
}

// TestReconcileUnknownExchangeOrders: orders open on the exchange that the
// store does not know are adopted (an id with a configured instance's
// prefix goes back to that instance, another is followed for the store) or
// cancelled, by daemon.unknown_orders.
func TestReconcileUnknownExchangeOrders(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		option               string
		status               exchange.OrderStatus
		adopted, cancelled   int
		runtimeOpen          int
		instanceOfPrefixedID string
	}{
		{config.UnknownAdopt, exchange.StatusNew, 2, 0, 1, "btc"},
		{config.UnknownCancel, exchange.StatusCanceled, 0, 2, 0, "btc"},
	} {
		t.Run(tt.option, func(t *testing.T) {
			t.Parallel()
			h := newExchangeHarness(t, 100, false, noFaults)
			st := memStore(t)
			for _, cid := range []string{"btc-manual-1", "someone-else-1"} {
				h.place(st, "", exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
					Price: dec("9000"), Quantity: dec("0.01"), NewClientOrderID: cid}, false)
			}
			s := h.startOnce(h.liveConfig(quietStrategy+"daemon: {unknown_orders: "+tt.option+"}\n"), st)
			rc := s.Counters.Reconciled
			if rc.Adopted != tt.adopted || rc.Cancelled != tt.cancelled || len(s.OpenOrders) != tt.runtimeOpen {
				t.Fatalf("reconciled %+v, runtime open orders %v", rc, s.OpenOrders)
			}
			for cid, inst := range map[string]string{"btc-manual-1": tt.instanceOfPrefixedID, "someone-else-1": ""} {
				so, found, err := st.Order(t.Context(), cid)
				if err != nil || !found || so.Instance != inst || so.Status != tt.status {
					t.Fatalf("%s in the store: %+v found=%v err=%v", cid, so, found, err)
				}
				eo, err := h.x.Master().QueryOrder(t.Context(), exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: cid})
				if err != nil || eo.Status != tt.status {
					t.Fatalf("%s on the exchange: %s (%v)", cid, eo.Status, err)
				}
			}
		})
	}
}

// TestClockOffsetBlocksTrading: with the exchange's clock 5 s ahead and
// exchange.max_clock_offset 2 s, every order is refused before it is sent,
// under the clock-offset rule, and the status says why.
func TestClockOffsetBlocksTrading(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 100, false, simserver.Faults{ClockOffset: 5 * time.Second})
	st := memStore(t)
	// A grid lays its orders as it starts: nine levels around 550, one
	// of which (the price's own) is skipped when equal; none may be sent.
	c := h.liveConfig(`
strategies:
  - name: grid
    id: eth-grid
    symbols: [ETHUSDT]
    interval: 1h
    params: {lower: 450, upper: 650, levels: 9, quantity: 0.1}
`, "max_clock_offset: 2s")
	s := h.startOnce(c, st)
	refused := s.Counters.OrdersRefused[RuleClockOffset]
	if s.ClockOffset != 5*time.Second || refused != 9 || s.Counters.OrdersPlaced != 0 {
		t.Fatalf("offset %s, %d refused for the clock, %d placed", s.ClockOffset, refused, s.Counters.OrdersPlaced)
	}
	if !strings.HasPrefix(s.Blocked, "shutdown") {
		t.Fatalf("blocked %q at the end; want the shutdown block", s.Blocked)
	}
	if os := h.allOrders("ETHUSDT", time.Time{}); len(os) != 0 {
		t.Fatalf("%d orders reached the exchange", len(os))
	}
}

// TestCancelOnShutdown: with daemon.cancel_on_shutdown the bot cancels the
// orders it tracks as it stops, and records the cancellations.
func TestCancelOnShutdown(t *testing.T) {
	t.Parallel()
	for _, cancelAll := range []bool{true, false} {
		h := newExchangeHarness(t, 100, false, noFaults)
		st := memStore(t)
		c := h.liveConfig(`
daemon: {cancel_on_shutdown: ` + map[bool]string{true: "true", false: "false"}[cancelAll] + `}
strategies:
  - name: grid
    id: eth-grid
    symbols: [ETHUSDT]
    interval: 1h
    params: {lower: 450, upper: 650, levels: 9, quantity: 0.1}
`)
		s := h.startOnce(c, st)
		orders := h.allOrders("ETHUSDT", time.Time{})
		if len(orders) != 9 || s.Counters.OrdersPlaced != 9 {
			t.Fatalf("cancel=%v: %d orders on the exchange, %d placed", cancelAll, len(orders), s.Counters.OrdersPlaced)
		}
		want := exchange.StatusNew
		if cancelAll {
			want = exchange.StatusCanceled
		}
		for _, eo := range orders {
			so, _, err := st.Order(t.Context(), eo.ClientOrderID)
			if err != nil || eo.Status != want || so.Status != want {
				t.Fatalf("cancel=%v: %s is %s on the exchange, %s in the store (%v)", cancelAll, eo.ClientOrderID, eo.Status, so.Status, err)
			}
		}
		if open := len(s.OpenOrders); (open == 0) != cancelAll {
			t.Fatalf("cancel=%v: %d orders still tracked", cancelAll, open)
		}
	}
}

// TestClockBackInBoundsResumesTrading: the exchange's clock is 5 s ahead
// until it is corrected three and a half hours into the session; the
// hourly clock sync blocks trading until the first sync after that, so the
// hourly DCA buys of the first hours are refused and the later ones placed.
func TestClockBackInBoundsResumesTrading(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 100, false, simserver.Faults{ClockOffset: 5 * time.Second})
	st := memStore(t)
	start := h.clock.Now()
	h.clock.atTime = start.Add(3*time.Hour + 30*time.Minute)
	h.clock.at = func() { h.srv.SetFaults(simserver.Faults{}) }
	c := h.liveConfig(`
poll: {orders: 1h}
daemon: {clock_sync: 1h}
strategies:
  - name: dca
    id: btc-dca
    symbols: [BTCUSDT]
    interval: 1h
    schedule: "30 * * * *"
    params: {amount: 25, lookback: 1}
`, "max_clock_offset: 2s")
	bot := h.run(c, st, start.Add(8*time.Hour))
	s := bot.Status()
	// The runs are due at :30 of hours 0 … 7. While the server is 5 s
	// ahead, each bar is polled at 0:59:57 local (its close by the server
	// clock, plus 2 s), which is when the :30 run is seen, just before the
	// hour's clock sync: runs 0:30 … 3:30 are refused, the 4:00 sync
	// unblocks, and runs 4:30 … 6:30 are placed (7:30 is seen at 8:00,
	// when the session ends).
	if got := s.Counters.OrdersRefused[RuleClockOffset]; got != 4 || s.Counters.OrdersPlaced != 3 || s.ClockOffset != 0 {
		t.Fatalf("%d refused for the clock, %d placed, offset %s", got, s.Counters.OrdersPlaced, s.ClockOffset)
	}
}

// TestStartFailsWhenTheExchangeIsUnreachable: the first clock sync fails,
// so Run returns that error and the bot ends stopped, having sent nothing.
func TestStartFailsWhenTheExchangeIsUnreachable(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 100, false, noFaults)
	c := h.liveConfig(quietStrategy)
	client, err := exchange.New(exchange.WithBaseURL("http://127.0.0.1:1"), exchange.WithClock(h.clock),
		exchange.WithCredentials(exchange.NewSecret(testKey), exchange.NewSecret(testSecret)))
	if err != nil {
		t.Fatal(err)
	}
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: memStore(t), Clock: h.clock, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	err = bot.Run(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), "daemon: clock sync: ") {
		t.Fatalf("err %v", err)
	}
	if s := bot.Status(); s.Phase != PhaseStopped || s.Counters.APIErrors["unknown-outcome"]+s.Counters.APIErrors["transport"] != 1 {
		t.Fatalf("phase %s, API errors %v", s.Phase, s.Counters.APIErrors)
	}
	if err := bot.Run(t.Context()); err == nil || err.Error() != "daemon: a Bot runs once" {
		t.Fatalf("second Run: %v", err)
	}
}
