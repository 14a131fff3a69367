package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
)

const liveStrategies = `
poll: {orders: 1h, kline_delay: 2s}
daemon: {clock_sync: 24h}
` + twoStrategies

// twoStrategies trade both sample symbols: a crossover and a grid.
const twoStrategies = `
strategies:
  - name: smacross
    id: btc-cross
    symbols: [BTCUSDT]
    interval: 1h
    params: {fast: 5, slow: 20, fraction: 0.5}
  - name: grid
    id: eth-grid
    symbols: [ETHUSDT]
    interval: 1h
    params: {lower: 450, upper: 650, levels: 9, quantity: 0.1}
`

// TestLiveEndToEnd runs the bot in live mode against the simulated
// exchange over HTTP, stops it, lets the market move while it is down
// (resting grid orders fill, an order is placed by hand), restarts it over
// the same store (once just through start-up, then for another session)
// and checks after each that the store equals the exchange: every order
// with its status and executed quantity, every fill, and the balances.
func TestLiveEndToEnd(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 120, false, noFaults)
	c := h.liveConfig(liveStrategies)
	st := memStore(t)
	t0 := h.clock.Now()

	bot := h.run(c, st, t0.Add(150*time.Hour))
	s1 := bot.Status()
	if s1.Phase != PhaseStopped || s1.Counters.OrdersPlaced == 0 || s1.Counters.Fills == 0 {
		t.Fatalf("session 1: phase %s, %d orders placed, %d fills", s1.Phase, s1.Counters.OrdersPlaced, s1.Counters.Fills)
	}
	if len(s1.Counters.APIErrors) != 0 {
		t.Fatalf("session 1: API errors %v", s1.Counters.APIErrors)
	}
	// One warm-up poll, then one poll per bar 2 s after it closes: the
	// bars closing 1 h to 149 h after the start (the 150th closes as the
	// session ends, before its poll).
	if s1.Counters.Polls != 150 || s1.Counters.Gaps != 0 {
		t.Fatalf("session 1: %d polls, %d gaps; want 150 and 0", s1.Counters.Polls, s1.Counters.Gaps)
	}
	h.assertStoreEqualsExchange(st, t0)
	open1 := len(s1.OpenOrders)
	if open1 == 0 {
		t.Fatal("session 1 left no open order; the restart would check nothing")
	}

	// Down for two days: the market moves, fills happen unseen, and an
	// order is placed by hand.
	trades0 := h.tradeCount()
	h.clock.Advance(t0.Add(198 * time.Hour))
	if h.tradeCount() == trades0 {
		t.Fatal("no fill while the bot was down; the test would not check recovery")
	}
	manual, err := h.x.Master().PlaceOrder(t.Context(), exchange.NewOrder{Symbol: "ETHUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Price: decimal.RequireFromString("300"), Quantity: decimal.RequireFromString("0.5"), NewClientOrderID: "by-hand-1"})
	if err != nil {
		t.Fatal(err)
	}

	openBefore := map[string]bool{} // grid orders open at the restart, by client id
	for _, eo := range h.allOrders("ETHUSDT", time.Time{}) {
		if strings.HasPrefix(eo.ClientOrderID, "eth-grid-") && !eo.Status.Final() {
			openBefore[eo.ClientOrderID] = true
		}
	}

	// The restart alone: reconciliation, then the strategies' start.
	s2 := h.startOnce(c, st)
	rc := s2.Counters.Reconciled
	if rc.Checked != open1 || rc.Adopted != 1 || rc.Cancelled != 0 {
		t.Fatalf("restart reconciliation %+v; want %d checked, 1 adopted", rc, open1)
	}
	h.assertStoreEqualsExchange(st, t0)
	// The missed fills were applied before the grid started, so it laid
	// only the levels free now: no new order shares a level with an order
	// still open, or with another new one.
	taken := map[string]string{}
	for _, eo := range h.allOrders("ETHUSDT", time.Time{}) {
		if strings.HasPrefix(eo.ClientOrderID, "eth-grid-") && !eo.Status.Final() {
			if other, dup := taken[eo.Price.String()]; dup && !(openBefore[other] && openBefore[eo.ClientOrderID]) {
				t.Fatalf("the restart doubled level %s: %s and %s", eo.Price, other, eo.ClientOrderID)
			}
			taken[eo.Price.String()] = eo.ClientOrderID
		}
	}

	bot = h.run(c, st, t0.Add(348*time.Hour))
	s3 := bot.Status()
	// Checked: the grid's open orders and the order placed by hand, now
	// known to the store (followed for it, outside the runtime).
	if rc := s3.Counters.Reconciled; rc.Adopted != 0 || rc.Checked != len(s2.OpenOrders)+1 {
		t.Fatalf("third start: reconciliation %+v; want %d checked, none adopted", rc, len(s2.OpenOrders)+1)
	}
	// The bar of 2020-11-30 06:00 is missing from the sample (both
	// symbols): its hour delivers nothing. Each feed is retried after 1,
	// 2, 4 ... 32 s, then each minute until the next bar closes (65
	// rounds, both feeds together), and one missing bar per feed is
	// reported.
	if c := s3.Counters; c.Polls != 149 || c.Gaps != 2 || c.Retries != 65 || len(c.APIErrors) != 0 {
		t.Fatalf("session 3: %d polls, %d retries, %d gaps, API errors %v", c.Polls, c.Retries, c.Gaps, c.APIErrors)
	}
	h.assertStoreEqualsExchange(st, t0)
	o, found, err := st.Order(t.Context(), "by-hand-1")
	if err != nil || !found || o.Instance != "" || o.Status != exchange.StatusNew || o.OrderID != manual.OrderID {
		t.Fatalf("the order placed by hand in the store: %+v found=%v err=%v", o, found, err)
	}
}

var noFaults = simserverFaults()

// tradeCount is the number of trades of the master account.
func (h *exchangeHarness) tradeCount() int {
	n := 0
	for _, sym := range []string{"BTCUSDT", "ETHUSDT"} {
		for _, o := range h.allOrders(sym, time.Time{}) {
			trades, err := h.x.Master().MyTrades(h.t.Context(), exchange.MyTradesRequest{Symbol: sym, OrderID: o.OrderID})
			if err != nil {
				h.t.Fatal(err)
			}
			n += len(trades)
		}
	}
	return n
}

// allOrders lists every order of a symbol since from (default: the
// sample's start), in 7-day windows.
func (h *exchangeHarness) allOrders(sym string, from time.Time) []exchange.Order {
	if from.IsZero() {
		from = time.Date(2020, 11, 1, 0, 0, 0, 0, time.UTC)
	}
	var out []exchange.Order
	now := h.x.Now()
	for w := from; w.Before(now); w = w.Add(7 * 24 * time.Hour) {
		end := w.Add(7*24*time.Hour - time.Millisecond)
		os, err := h.x.Master().AllOrders(context.Background(), exchange.AllOrdersRequest{Symbol: sym, Start: w, End: end, Limit: 1000})
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, os...)
	}
	return out
}

// assertStoreEqualsExchange checks that the store holds every order of the
// exchange with its status and quantities, every trade of each, and the
// exchange's balances as its latest snapshot; and that the store has no
// order the exchange does not know, besides refused ones.
func (h *exchangeHarness) assertStoreEqualsExchange(st *store.Store, since time.Time) {
	t := h.t
	t.Helper()
	ctx := t.Context()
	seen := map[string]bool{}
	for _, sym := range []string{"BTCUSDT", "ETHUSDT"} {
		for _, eo := range h.allOrders(sym, time.Time{}) {
			seen[eo.ClientOrderID] = true
			so, found, err := st.Order(ctx, eo.ClientOrderID)
			if err != nil || !found {
				t.Fatalf("exchange order %s (%s) not in the store (err %v)", eo.ClientOrderID, eo.Status, err)
			}
			if so.OrderID != eo.OrderID || so.Status != eo.Status || !so.ExecutedQty.Equal(eo.ExecutedQty) ||
				!so.CumQuoteQty.Equal(eo.CummulativeQuoteQty) || so.Symbol != eo.Symbol || so.Side != eo.Side {
				t.Fatalf("order %s: store %+v\nexchange %+v", eo.ClientOrderID, so, eo)
			}
			trades, err := h.x.Master().MyTrades(ctx, exchange.MyTradesRequest{Symbol: sym, OrderID: eo.OrderID})
			if err != nil {
				t.Fatal(err)
			}
			fills, err := st.FillsByOrder(ctx, eo.ClientOrderID)
			if err != nil {
				t.Fatal(err)
			}
			if len(fills) != len(trades) {
				t.Fatalf("order %s: %d fills in the store, %d trades on the exchange", eo.ClientOrderID, len(fills), len(trades))
			}
			byID := map[string]store.Fill{}
			for _, f := range fills {
				byID[f.TradeID] = f
			}
			for _, tr := range trades {
				f, ok := byID[tr.ID]
				if !ok || !f.Price.Equal(tr.Price) || !f.Qty.Equal(tr.Qty) || !f.Commission.Equal(tr.Commission) ||
					f.CommissionAsset != tr.CommissionAsset || !f.Time.Equal(tr.Time) || f.OrderID != tr.OrderID {
					t.Fatalf("trade %s of %s: store %+v\nexchange %+v", tr.ID, eo.ClientOrderID, f, tr)
				}
			}
		}
	}
	open, err := st.OpenOrders(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range open {
		if !seen[o.ClientOrderID] {
			t.Fatalf("store order %s (%s) is open but unknown to the exchange", o.ClientOrderID, o.Intent)
		}
	}
	snap, ok, err := st.LatestBalances(ctx, "live")
	if err != nil || !ok {
		t.Fatalf("no balance snapshot: %v", err)
	}
	acct, err := h.x.Master().Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Balances) != len(acct.Balances) {
		t.Fatalf("balances: store %v, exchange %v", snap.Balances, acct.Balances)
	}
	for i, b := range acct.Balances {
		sb := snap.Balances[i]
		if sb.Asset != b.Asset || !sb.Free.Equal(b.Free) || !sb.Locked.Equal(b.Locked) {
			t.Fatalf("balance %d: store %+v, exchange %+v", i, sb, b)
		}
	}
}
