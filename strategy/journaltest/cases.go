package journaltest

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// intents: a client order id makes one intent; a second intent with it is
// not created and does not replace the first (the runtime then refuses to
// send the order).
func intents(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	created, err := e.j.RecordIntent(e.ctx, intent("b", "a-1", "ETHUSDT"))
	e.must(err)
	if created {
		t.Error("a second intent with client order id a-1 was created")
	}
	e.record("a", "a-2")
	e.wantOrder("a-1", "a BTCUSDT id=  exec=0 cum=0 recorded err=")
	e.wantOrder("a-2", "a BTCUSDT id=  exec=0 cum=0 recorded err=")
	e.wantRefusal("a-1", "")
}

// acknowledgement: the exchange's acceptance gives the order its id and
// status NEW; hearing it twice (a batch reply and a query) changes nothing.
func acknowledgement(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	e.record("a", "a-2")
	e.must(e.j.RecordAck(e.ctx, "a-1", "11", at(5)))
	e.wantOrder("a-1", "a BTCUSDT id=11 NEW exec=0 cum=0 acknowledged err=")
	e.must(e.j.RecordAck(e.ctx, "a-1", "11", at(6)))
	e.wantOrder("a-1", "a BTCUSDT id=11 NEW exec=0 cum=0 acknowledged err=")
	e.wantOrder("a-2", "a BTCUSDT id=  exec=0 cum=0 recorded err=")
	e.wantRefusal("a-1", "")
	e.wantRefusal("a-2", "")
}

// refusal: an order the exchange refused is held as never placed, with the
// cause; refusing it again changes nothing.
func refusal(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	e.record("a", "a-2")
	e.must(e.j.RecordRefused(e.ctx, "a-1", errors.New("code -2010: insufficient balance")))
	e.must(e.j.RecordRefused(e.ctx, "a-1", errors.New("a second cause")))
	e.wantRefusal("a-1", "code -2010: insufficient balance")
	e.wantRefusal("a-2", "")
	e.wantOrder("a-1", "a BTCUSDT id=  exec=0 cum=0 refused err=code -2010: insufficient balance")
}

// unknownPlaced: an unknown outcome (5XX, timeout) resolved by the query
// finding the order. Once acknowledged, a late unknown outcome changes
// nothing and a refusal is an error: a journal that let an acknowledged
// order be recorded as never placed would have the daemon forget a live
// order.
func unknownPlaced(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	e.must(e.j.RecordUnknown(e.ctx, "a-1", errors.New("HTTP 503")))
	e.wantRefusal("a-1", "")
	e.wantOrder("a-1", "a BTCUSDT id=  exec=0 cum=0 unknown err=HTTP 503")
	e.must(e.j.RecordAck(e.ctx, "a-1", "12", at(7)))
	e.wantOrder("a-1", "a BTCUSDT id=12 NEW exec=0 cum=0 acknowledged err=")
	e.must(e.j.RecordUnknown(e.ctx, "a-1", errors.New("timeout")))
	e.wantOrder("a-1", "a BTCUSDT id=12 NEW exec=0 cum=0 acknowledged err=")
	wantErr(t, "RecordRefused of an acknowledged order", e.j.RecordRefused(e.ctx, "a-1", errors.New("code -2011: unknown order")))
	e.wantRefusal("a-1", "")
	e.wantOrder("a-1", "a BTCUSDT id=12 NEW exec=0 cum=0 acknowledged err=")
}

// unknownNeverPlaced: an unknown outcome resolved by the exchange not
// knowing the client order id: the order was never placed.
func unknownNeverPlaced(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	e.must(e.j.RecordUnknown(e.ctx, "a-1", errors.New("HTTP 503")))
	e.must(e.j.RecordRefused(e.ctx, "a-1", errors.New("code -2011: unknown order")))
	e.wantRefusal("a-1", "code -2011: unknown order")
	e.wantOrder("a-1", "a BTCUSDT id=  exec=0 cum=0 refused err=code -2011: unknown order")
}

// ackAfterRefusal: the exchange is the authority on whether an order
// exists; its acknowledgement overrides a refusal.
func ackAfterRefusal(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	e.must(e.j.RecordRefused(e.ctx, "a-1", errors.New("code -2011: unknown order")))
	e.must(e.j.RecordAck(e.ctx, "a-1", "13", at(9)))
	e.wantRefusal("a-1", "")
	e.wantOrder("a-1", "a BTCUSDT id=13 NEW exec=0 cum=0 acknowledged err=")
}

// noIntent: an outcome of an order with no intent means the intent was
// lost; the journal says so instead of recording it.
func noIntent(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	wantErr(t, "RecordAck without an intent", e.j.RecordAck(e.ctx, "x-1", "1", at(1)))
	wantErr(t, "RecordUnknown without an intent", e.j.RecordUnknown(e.ctx, "x-1", errors.New("HTTP 503")))
	wantErr(t, "RecordRefused without an intent", e.j.RecordRefused(e.ctx, "x-1", errors.New("code -2010: no")))
	e.wantRefusal("x-1", "")
	e.wantOrder("x-1", "none")
	e.wantOrder("a-1", "a BTCUSDT id=  exec=0 cum=0 recorded err=")
}

// statusForward: order reports may arrive out of order (a query's reply
// after a newer event); status only moves forward, nothing overwrites a
// final status, and executed and cumulative quote quantities never
// decrease. A report of an order with no intent (placed by another tool)
// is accepted.
func statusForward(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	e.must(e.j.RecordAck(e.ctx, "a-1", "14", at(1)))
	report := func(st exchange.OrderStatus, exec, cum string, ms int) exchange.Order {
		return exchange.Order{Symbol: "BTCUSDT", OrderID: "14", ClientOrderID: "a-1", Side: exchange.SideBuy, Type: exchange.TypeLimit,
			Price: d("20000"), OrigQty: d("0.5"), Status: st, ExecutedQty: d(exec), CummulativeQuoteQty: d(cum), Time: at(1), UpdateTime: at(ms)}
	}
	e.must(e.j.RecordOrder(e.ctx, "a", report(exchange.StatusPartiallyFilled, "0.3", "6000", 10)))
	e.wantOrder("a-1", "a BTCUSDT id=14 PARTIALLY_FILLED exec=0.3 cum=6000 acknowledged err=")
	e.must(e.j.RecordOrder(e.ctx, "a", report(exchange.StatusNew, "0.1", "2000", 8)))
	e.wantOrder("a-1", "a BTCUSDT id=14 PARTIALLY_FILLED exec=0.3 cum=6000 acknowledged err=")
	e.must(e.j.RecordOrder(e.ctx, "a", report(exchange.StatusFilled, "0.5", "10000", 12)))
	e.wantOrder("a-1", "a BTCUSDT id=14 FILLED exec=0.5 cum=10000 final err=")
	e.must(e.j.RecordOrder(e.ctx, "a", report(exchange.StatusPartiallyFilled, "0.3", "6000", 11)))
	e.must(e.j.RecordOrder(e.ctx, "a", report(exchange.StatusCanceled, "0.4", "8000", 13)))
	e.wantOrder("a-1", "a BTCUSDT id=14 FILLED exec=0.5 cum=10000 final err=")
	e.must(e.j.RecordOrder(e.ctx, "a", exchange.Order{Symbol: "BTCUSDT", OrderID: "99", ClientOrderID: "web-1", Side: exchange.SideSell,
		Type: exchange.TypeLimit, Price: d("21000"), OrigQty: d("0.1"), Status: exchange.StatusNew, ExecutedQty: d("0"),
		CummulativeQuoteQty: d("0"), Time: at(14), UpdateTime: at(14)}))
}

// trade is an own trade of order 15.
func trade(symbol, id, qty, price, quote, fee, feeAsset string, ms int) exchange.OwnTrade {
	return exchange.OwnTrade{Symbol: symbol, ID: id, OrderID: "15", Price: d(price), Qty: d(qty), QuoteQty: d(quote),
		Commission: d(fee), CommissionAsset: feeAsset, Time: at(ms), IsBuyer: true, IsMaker: true}
}

// fillsOnce: fills are unique by symbol and trade id. The first record
// inserts; any later one reports not inserted and changes nothing, even
// with other details (the runtime then does not deliver the fill again,
// after a restart for instance). Trade ids are per symbol.
func fillsOnce(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	e.record("a", "a-2")
	fill := func(instance, cid string, tr exchange.OwnTrade, want bool) {
		t.Helper()
		inserted, err := e.j.RecordFill(e.ctx, instance, cid, tr)
		e.must(err)
		if inserted != want {
			t.Errorf("RecordFill(%s %s#%s) inserted %v, want %v", cid, tr.Symbol, tr.ID, inserted, want)
		}
	}
	f1 := trade("BTCUSDT", "1", "0.2", "20000", "4000", "0.0002", "BTC", 20)
	fill("a", "a-1", f1, true)
	fill("a", "a-1", f1, false)
	again := f1
	again.Qty, again.Price = d("0.3"), d("19000")
	fill("b", "b-9", again, false)
	f2 := trade("ETHUSDT", "1", "2", "3000", "6000", "0.002", "ETH", 21)
	fill("a", "a-2", f2, true)
	f3 := trade("BTCUSDT", "2", "0.3", "20000.5", "6000.15", "1.2", "USDT", 22)
	f3.IsMaker, f3.IsSelfTrade = false, true
	fill("a", "a-1", f3, true)
	fill("a", "a-1", f3, false)
	e.wantFills(
		"a a-1 BTCUSDT#1 order=15 BUY 0.2@20000 quote=4000 fee=0.0002 BTC maker=true self=false at=2024-03-01T12:00:00.02Z",
		"a a-2 ETHUSDT#1 order=15 BUY 2@3000 quote=6000 fee=0.002 ETH maker=true self=false at=2024-03-01T12:00:00.021Z",
		"a a-1 BTCUSDT#2 order=15 BUY 0.3@20000.5 quote=6000.15 fee=1.2 USDT maker=false self=true at=2024-03-01T12:00:00.022Z",
	)
}

// concurrentFills: four goroutines offer the same 25 trades, each in time
// order; each trade is inserted exactly once, in time order.
func concurrentFills(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	e.record("a", "a-1")
	const workers, n = 4, 25
	var inserted atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers*n)
	for range workers {
		wg.Go(func() {
			for i := range n {
				ok, err := e.j.RecordFill(e.ctx, "a", "a-1", trade("BTCUSDT", strconv.Itoa(i+1), "0.01", "20000", "200", "0", "BNB", 100+i))
				if err != nil {
					errs <- err
				}
				if ok {
					inserted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := inserted.Load(); got != n {
		t.Errorf("%d fills inserted, want %d", got, n)
	}
	// Whoever inserted trade i+1 had seen trade i inserted: the journal
	// holds them in time order.
	fs, err := e.h.Fills(e.ctx)
	e.must(err)
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	want := make([]string, n)
	for i := range want {
		want[i] = strconv.Itoa(i + 1)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("fill ids %v, want %v", ids, want)
	}
}

// state: what is saved loads back exactly, per instance; neither the
// caller's slice given to SaveState nor the one LoadState returned can
// change what the journal holds. An empty state is a state.
func state(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	load := func(instance, want string, wantOK bool) []byte {
		t.Helper()
		data, ok, err := e.j.LoadState(e.ctx, instance)
		e.must(err)
		if string(data) != want || ok != wantOK {
			t.Errorf("LoadState(%s) = %q, %v; want %q, %v", instance, data, ok, want, wantOK)
		}
		return data
	}
	load("a", "", false)
	in := []byte(`{"n":1}`)
	e.must(e.j.SaveState(e.ctx, "a", in))
	in[5] = '9'
	got := load("a", `{"n":1}`, true)
	if len(got) > 5 {
		got[5] = '8'
	}
	load("a", `{"n":1}`, true)
	e.must(e.j.SaveState(e.ctx, "a", []byte(`{"n":2}`)))
	load("a", `{"n":2}`, true)
	load("b", "", false)
	e.must(e.j.SaveState(e.ctx, "b", []byte{}))
	load("b", "", true)
	load("a", `{"n":2}`, true)
}

// runs: every run of a schedule is kept with its times, its error and the
// orders it placed, oldest first, apart from other schedules' runs.
func runs(t *testing.T, open func(t *testing.T) Harness) {
	e := setup(t, open)
	r1 := strategy.Run{Instance: "a", Schedule: "daily", Scheduled: at(1000), Start: at(1001), End: at(1005), Orders: []string{"a-1", "a-2"}}
	r2 := strategy.Run{Instance: "b", Schedule: "hourly", Scheduled: at(1500), Start: at(1500), End: at(1500)}
	r3 := strategy.Run{Instance: "a", Schedule: "daily", Scheduled: at(2000), Start: at(2002), End: at(2003), Err: errors.New("no price for BTCUSDT")}
	for _, r := range []strategy.Run{r1, r2, r3} {
		e.must(e.j.RecordRun(e.ctx, r))
	}
	for _, tt := range []struct {
		schedule string
		want     []string
	}{
		{"daily", []string{
			`a/daily scheduled=2024-03-01T12:00:01Z start=2024-03-01T12:00:01.001Z end=2024-03-01T12:00:01.005Z err="" orders=[a-1 a-2]`,
			`a/daily scheduled=2024-03-01T12:00:02Z start=2024-03-01T12:00:02.002Z end=2024-03-01T12:00:02.003Z err="no price for BTCUSDT" orders=[]`,
		}},
		{"hourly", []string{`b/hourly scheduled=2024-03-01T12:00:01.5Z start=2024-03-01T12:00:01.5Z end=2024-03-01T12:00:01.5Z err="" orders=[]`}},
		{"weekly", nil},
	} {
		rs, err := e.h.Runs(e.ctx, tt.schedule)
		e.must(err)
		var got []string
		for _, r := range rs {
			got = append(got, runLine(r))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("runs of %s:\n got %s\nwant %s", tt.schedule, strings.Join(got, "\n     "), strings.Join(tt.want, "\n     "))
		}
	}
}
