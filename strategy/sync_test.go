package strategy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

// eventTrader is a fakeTrader that reports order changes as events, like
// the simulator: queue holds the events the next drain returns.
type eventTrader struct {
	*fakeTrader
	queue  []exchange.OrderEvent
	drains int
}

func (e *eventTrader) DrainEvents(dst []exchange.OrderEvent) []exchange.OrderEvent {
	e.drains++
	dst = append(dst, e.queue...)
	e.queue = nil
	return dst
}

// hintedTrader also says when a drain would return nothing.
type hintedTrader struct{ *eventTrader }

func (h hintedTrader) MayHaveEvents() bool { return len(h.queue) > 0 }

// TestSyncFromEvents fills an order through events, with and without the
// port's hint: each fill and status change reaches the strategy once, a
// repeated event changes nothing, and with the hint a sync with nothing
// queued does not drain.
func TestSyncFromEvents(t *testing.T) {
	t.Parallel()
	for _, hinted := range []bool{false, true} {
		t.Run(fmt.Sprint("hinted=", hinted), func(t *testing.T) {
			t.Parallel()
			j := newMemJournal()
			et := &eventTrader{fakeTrader: newFakeTrader(j)}
			var trader exchange.Trader = et
			if hinted {
				trader = hintedTrader{et}
			}
			g, _ := risk.New(risk.Limits{})
			rt, err := New(Options{Trader: trader, Events: trader.(exchange.EventSource), Gate: g, Journal: j, Clock: &testClock{t: t0}})
			if err != nil {
				t.Fatal(err)
			}
			s := &recorder{}
			if err := rt.Add(Config{Name: "t", ID: "s0", Symbols: []string{"BTCUSDT"}, Interval: "1m"}, s); err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if err := rt.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := rt.insts[0].Place(limitBuy("s0-a")); err != nil {
				t.Fatal(err)
			}
			trade := func(id, qty string) exchange.OwnTrade {
				return exchange.OwnTrade{Symbol: "BTCUSDT", ID: id, OrderID: "1", Price: d("100"), Qty: d(qty), QuoteQty: d(qty).Mul(d("100")),
					Time: t0.Add(time.Minute)}
			}
			order := func(st exchange.OrderStatus, qty string) exchange.Order {
				return exchange.Order{Symbol: "BTCUSDT", OrderID: "1", ClientOrderID: "s0-a", Status: st, ExecutedQty: d(qty)}
			}
			part := exchange.OrderEvent{Order: order(exchange.StatusPartiallyFilled, "0.2"), Trades: []exchange.OwnTrade{trade("t1", "0.2")}}
			et.queue = []exchange.OrderEvent{part, part, {Order: exchange.Order{ClientOrderID: "someone-else"}}}
			for range 3 { // the later syncs have nothing queued
				if err := rt.Sync(ctx); err != nil {
					t.Fatal(err)
				}
			}
			et.queue = []exchange.OrderEvent{{Order: order(exchange.StatusFilled, "0.5"), Trades: []exchange.OwnTrade{trade("t1", "0.2"), trade("t2", "0.3")}}}
			if err := rt.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(s.fills, "|"); got != "s0-a t1 0.2@100|s0-a t2 0.3@100" {
				t.Errorf("fills %q", got)
			}
			if got := strings.Join(s.updates, "|"); got != "s0-a PARTIALLY_FILLED 0.2|s0-a FILLED 0.5" {
				t.Errorf("updates %q", got)
			}
			if p := rt.Position("s0", "BTCUSDT"); p.Qty.String() != "0.5" || p.AvgPrice.String() != "100" {
				t.Errorf("position %+v", p)
			}
			wantDrains := 4
			if hinted {
				wantDrains = 2
			}
			if st := rt.Stats(); et.drains != wantDrains || st.Fills != 2 || len(rt.OpenOrders()) != 0 {
				t.Errorf("drains %d (want %d), fills %d, open %v", et.drains, wantDrains, st.Fills, rt.OpenOrders())
			}
		})
	}
}

func TestTradeIDs(t *testing.T) {
	t.Parallel()
	var s tradeIDs
	var log []string
	for _, id := range []string{"", "7", "", "8", "7", "9", "8"} {
		if !s.has(id) {
			s.add(id)
			log = append(log, "+"+id)
		} else {
			log = append(log, "="+id)
		}
	}
	if got := strings.Join(log, " "); got != "+ +7 = +8 =7 +9 =8" || s.n != 4 {
		t.Errorf("%s (n=%d)", got, s.n)
	}
}
