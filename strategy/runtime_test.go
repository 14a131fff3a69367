package strategy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

var t0 = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

// recorder is a test strategy that logs what it sees and runs a hook.
type recorder struct {
	seen    []string
	fills   []string
	updates []string
	onBar   func(ctx Context, b Bar) error
	warm    int
}

func (s *recorder) OnKline(ctx Context, b Bar) error {
	s.seen = append(s.seen, fmt.Sprintf("%s %s %s c=%s warm=%v", b.Symbol, b.Interval, b.OpenTime.Format("15:04"), b.Close, ctx.WarmingUp()))
	if s.onBar != nil {
		return s.onBar(ctx, b)
	}
	return nil
}
func (s *recorder) OnFill(_ Context, f Fill) error {
	s.fills = append(s.fills, fmt.Sprintf("%s %s %s@%s", f.ClientOrderID, f.TradeID, f.Qty, f.Price))
	return nil
}
func (s *recorder) OnOrder(_ Context, o Order) error {
	s.updates = append(s.updates, fmt.Sprintf("%s %s %s", o.ClientOrderID, o.Status, o.ExecutedQty))
	return nil
}
func (s *recorder) WarmUp() int { return s.warm }

func bar(min int, close string) exchange.Kline {
	open := t0.Add(time.Duration(min) * time.Minute)
	return exchange.Kline{OpenTime: open, Open: d(close), High: d(close), Low: d(close), Close: d(close),
		Volume: d("1"), CloseTime: open.Add(time.Minute - time.Millisecond)}
}

type harness struct {
	rt    *Runtime
	ft    *fakeTrader
	j     *memJournal
	clock *testClock
}

func newHarness(t *testing.T, opts Options, strategies ...Strategy) *harness {
	t.Helper()
	j := newMemJournal()
	ft := newFakeTrader(j)
	clk := &testClock{t: t0}
	g, err := risk.New(risk.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Trader, opts.Gate, opts.Journal, opts.Clock = ft, g, j, clk
	rt, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range strategies {
		if err := rt.Add(Config{Name: "test", ID: fmt.Sprintf("s%d", i), Symbols: []string{"BTCUSDT"}, Interval: "1m"}, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := rt.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return &harness{rt: rt, ft: ft, j: j, clock: clk}
}

var feed1m = Feed{Symbol: "BTCUSDT", Interval: exchange.Interval1m}

func limitBuy(cid string) exchange.NewOrder {
	return exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: d("0.5"), Price: d("100"), NewClientOrderID: cid}
}

func TestRuntimeDeliversBarsAndRefusesWarmUpOrders(t *testing.T) {
	t.Parallel()
	var placeErr error
	s := &recorder{warm: 2}
	s.onBar = func(ctx Context, b Bar) error {
		if ctx.WarmingUp() {
			_, placeErr = ctx.Place(limitBuy(""))
		}
		return nil
	}
	h := newHarness(t, Options{}, s)
	ctx := t.Context()
	h.rt.DeliverWarmUp(ctx, feed1m, []exchange.Kline{bar(0, "10"), bar(1, "11")})
	h.rt.OnBar(ctx, feed1m, bar(2, "12"))
	want := []string{"BTCUSDT 1m 00:00 c=10 warm=true", "BTCUSDT 1m 00:01 c=11 warm=true", "BTCUSDT 1m 00:02 c=12 warm=false"}
	if strings.Join(s.seen, "|") != strings.Join(want, "|") {
		t.Errorf("seen %q", s.seen)
	}
	if !errors.Is(placeErr, ErrWarmingUp) || h.ft.places != 0 {
		t.Errorf("warm-up place: err %v, places %d", placeErr, h.ft.places)
	}
	in := h.rt.insts[0]
	got := in.Klines("BTCUSDT", exchange.Interval1m, 5)
	if len(got) != 3 || got[0].Close.String() != "10" || got[2].Close.String() != "12" {
		t.Errorf("Klines = %v", got)
	}
	if h.rt.WarmUp() != 2 || in.LastPrice("BTCUSDT").String() != "12" {
		t.Errorf("WarmUp %d LastPrice %s", h.rt.WarmUp(), in.LastPrice("BTCUSDT"))
	}
}

func TestRuntimeOrderLifecycle(t *testing.T) {
	t.Parallel()
	s := &recorder{}
	h := newHarness(t, Options{}, s)
	ctx := t.Context()
	in := h.rt.insts[0]
	o, err := in.Place(limitBuy("s0-a"))
	if err != nil || o.OrderID != "1" || o.Status != exchange.StatusNew {
		t.Fatalf("Place = %+v, %v", o, err)
	}
	if !h.ft.sawIntent[0] || h.j.acks["s0-a"] != "1" {
		t.Errorf("intent journaled before send: %v; ack %q", h.ft.sawIntent, h.j.acks["s0-a"])
	}
	h.ft.fill("s0-a", "0.2", "100", t0.Add(time.Minute))
	for range 2 { // the second sync must deliver nothing new
		if err := h.rt.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	h.ft.fill("s0-a", "0.3", "99.5", t0.Add(2*time.Minute))
	if err := h.rt.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.fills, "|"); got != "s0-a 1-1 0.2@100|s0-a 1-2 0.3@99.5" {
		t.Errorf("fills %q", got)
	}
	if got := strings.Join(s.updates, "|"); got != "s0-a PARTIALLY_FILLED 0.2|s0-a FILLED 0.5" {
		t.Errorf("updates %q", got)
	}
	if p := in.Position("BTCUSDT"); p.Qty.String() != "0.5" || p.AvgPrice.String() != "99.7" {
		t.Errorf("position %+v", p)
	}
	if len(in.OpenOrders("")) != 0 || h.j.orders["s0-a"] != exchange.StatusFilled {
		t.Errorf("open %v journal %s", in.OpenOrders(""), h.j.orders["s0-a"])
	}
	if st := h.rt.Stats(); st.Placed != 1 || st.Fills != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestRuntimeUnknownOutcomes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, &recorder{})
	ctx := t.Context()
	in := h.rt.insts[0]
	h.ft.script = []outcome{unknownPlaced, unknownNotPlace}
	if _, err := in.Place(limitBuy("s0-placed")); err != nil {
		t.Fatalf("unknown outcome surfaced as error: %v", err)
	}
	if _, err := in.Place(limitBuy("s0-lost")); err != nil {
		t.Fatalf("unknown outcome surfaced as error: %v", err)
	}
	if !h.j.unknown["s0-placed"] || !h.j.unknown["s0-lost"] || len(in.OpenOrders("")) != 2 {
		t.Fatalf("unknown not journaled/tracked: %v", h.j.unknown)
	}
	if err := h.rt.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if h.ft.places != 2 {
		t.Errorf("orders were resent: %d sends", h.ft.places)
	}
	if h.j.acks["s0-placed"] != "1" || !strings.Contains(h.j.refused["s0-lost"], "-2011") {
		t.Errorf("acks %v refused %v", h.j.acks, h.j.refused)
	}
	open := in.OpenOrders("")
	if len(open) != 1 || open[0].ClientOrderID != "s0-placed" || open[0].OrderID != "1" {
		t.Errorf("open orders %+v", open)
	}
	if st := h.rt.Stats(); st.Unknown != 2 || st.Placed != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestRuntimeRefusalsAndStatusNeverMovesBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, &recorder{})
	ctx := t.Context()
	in := h.rt.insts[0]
	h.ft.script = []outcome{refuse}
	_, err := in.Place(limitBuy("s0-r"))
	if !exchange.HasCode(err, exchange.CodeInsufficientPosition) || !IsRefusal(err) {
		t.Fatalf("refusal = %v", err)
	}
	// Risk gate refusal: 1000 BTC is far above the free quote.
	big := limitBuy("s0-big")
	big.Quantity = d("1000")
	_, err = in.Place(big)
	var rej *risk.Rejection
	if !errors.As(err, &rej) || rej.Rule != risk.RuleBalance {
		t.Fatalf("gate refusal = %v", err)
	}
	if st := h.rt.Stats(); st.Refused["exchange:30004"] != 1 || st.Refused[risk.RuleBalance] != 1 || h.ft.places != 1 {
		t.Errorf("refused %v places %d", st.Refused, h.ft.places)
	}
	if _, err := in.Place(limitBuy("s0-c")); err != nil {
		t.Fatal(err)
	}
	if err := in.Cancel("s0-c"); err != nil {
		t.Fatal(err)
	}
	// A late query reply saying NEW must not reopen a cancelled order.
	h.ft.staleStatus["s0-c"] = exchange.StatusNew
	if err := h.rt.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if len(in.OpenOrders("")) != 0 || h.j.orders["s0-c"] != exchange.StatusCanceled {
		t.Errorf("open %v status %s", in.OpenOrders(""), h.j.orders["s0-c"])
	}
}

func TestRuntimeIsolatesFailingInstances(t *testing.T) {
	t.Parallel()
	panicky := &recorder{onBar: func(Context, Bar) error { panic("boom") }}
	failing := &recorder{onBar: func(Context, Bar) error { return errors.New("bad state") }}
	healthy := &recorder{}
	h := newHarness(t, Options{}, panicky, failing, healthy)
	ctx := t.Context()
	h.rt.OnBar(ctx, feed1m, bar(0, "10"))
	h.rt.OnBar(ctx, feed1m, bar(1, "11"))
	if len(panicky.seen) != 1 || len(failing.seen) != 1 || len(healthy.seen) != 2 {
		t.Errorf("seen %d %d %d", len(panicky.seen), len(failing.seen), len(healthy.seen))
	}
	st := h.rt.Instances()
	if !strings.HasPrefix(st[0].Stopped, "panic: boom") || st[1].Stopped != "OnKline BTCUSDT 1m 2024-03-01T00:00:00Z: bad state" || st[2].Stopped != "" {
		t.Errorf("instances %+v", st)
	}
	if h.rt.Stats().Stopped != 2 {
		t.Errorf("stopped %d", h.rt.Stats().Stopped)
	}
}

type scheduled struct {
	recorder
	spec string
	runs []string
}

func (s *scheduled) Schedules() []Schedule {
	return []Schedule{{Name: "job", Spec: s.spec, Run: func(ctx Context, at time.Time) error {
		s.runs = append(s.runs, at.Format("15:04")+"@"+ctx.Now().Format("15:04"))
		return nil
	}}}
}

func TestRuntimeSchedules(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		policy MissedRuns
		want   string
	}{
		{"skip missed", SkipMissed, "00:00@00:00|00:15@00:15|00:30@00:30|02:00@02:00"},
		{"run missed once", RunMissedOnce, "00:00@00:00|00:15@00:15|00:30@00:30|01:45@01:50|02:00@02:00"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &scheduled{spec: "*/15 * * * *"}
			h := newHarness(t, Options{MissedRuns: tt.policy}, s)
			ctx := t.Context()
			// Downtime after 00:30: 00:45 … 01:45 fall due while nothing
			// ticks; the runtime is back at 01:50. RunMissedOnce collapses
			// the missed occurrences into one run (for the latest of them).
			for _, m := range []int{0, 5, 15, 30, 110, 120, 120} {
				h.clock.t = t0.Add(time.Duration(m) * time.Minute)
				h.rt.Tick(ctx, h.clock.t) // the repeated 02:00 tick runs nothing twice
			}
			if got := strings.Join(s.runs, "|"); got != tt.want {
				t.Errorf("runs %q, want %q", got, tt.want)
			}
			if len(h.j.runs) != len(s.runs) || h.j.runs[0].Schedule != "job" || h.j.runs[0].Instance != "s0" {
				t.Errorf("journal runs %+v", h.j.runs)
			}
		})
	}
}

func TestRuntimeDerivesHigherIntervals(t *testing.T) {
	t.Parallel()
	s := &recorder{}
	j := newMemJournal()
	g, _ := risk.New(risk.Limits{})
	rt, err := New(Options{Trader: newFakeTrader(j), Gate: g, Journal: j, Clock: &testClock{t: t0}, BaseInterval: exchange.Interval1m})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Add(Config{Name: "t", ID: "agg", Symbols: []string{"BTCUSDT"}, Interval: "5m"}, s); err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if f := rt.Feeds(); len(f) != 1 || f[0] != feed1m {
		t.Fatalf("Feeds = %v", f)
	}
	closes := []string{"10", "12", "8", "11", "9", "20", "21"}
	for i, c := range closes {
		if i == 4 {
			continue // a gap at the end of the first 5m bar
		}
		k := bar(i, c)
		k.High, k.Low = d(c).Add(d("1")), d(c).Sub(d("1"))
		rt.OnBar(t.Context(), feed1m, k)
	}
	for i := 7; i < 10; i++ {
		rt.OnBar(t.Context(), feed1m, bar(i, "30"))
	}
	// 00:00–00:04 completes (by the gap) when 00:05 arrives; 00:05–00:09
	// completes with its last minute.
	want := "BTCUSDT 5m 00:00 c=11 warm=false|BTCUSDT 5m 00:05 c=30 warm=false"
	if got := strings.Join(s.seen, "|"); got != want {
		t.Errorf("seen %q", got)
	}
	k := rt.insts[0].Klines("BTCUSDT", exchange.Interval5m, 2)
	if len(k) != 2 || k[0].High.String() != "13" || k[0].Low.String() != "7" || k[0].Open.String() != "10" || k[0].Volume.String() != "4" ||
		k[1].Open.String() != "20" || k[1].High.String() != "30" {
		t.Errorf("aggregated %+v", k)
	}
}

// BenchmarkOnBar delivers one closed kline to one strategy that places no
// order. Target: ≤ 300 ns and no allocations.
func BenchmarkOnBar(b *testing.B) {
	if s, _ := benchOnBar(b, risk.Limits{}, ""); s.n == 0 {
		b.Fatal("strategy never called")
	}
}

// benchOnBar runs the OnBar benchmark loop on a runtime with the given
// limits and valuation asset and returns the strategy and the runtime.
func benchOnBar(b *testing.B, limits risk.Limits, valuation string) (*countingStrategy, *Runtime) {
	j := newMemJournal()
	g, _ := risk.New(limits)
	rt, err := New(Options{Trader: newFakeTrader(j), Gate: g, Journal: j, Clock: &testClock{t: t0}, Valuation: valuation})
	if err != nil {
		b.Fatal(err)
	}
	s := &countingStrategy{}
	if err := rt.Add(Config{Name: "t", ID: "b", Symbols: []string{"BTCUSDT"}, Interval: "1m"}, s); err != nil {
		b.Fatal(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	k := bar(0, "100")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		rt.OnBar(ctx, feed1m, k)
	}
	return s, rt
}

type countingStrategy struct{ n int }

func (s *countingStrategy) OnKline(Context, Bar) error { s.n++; return nil }

// placingJob places one order per run of its schedule.
type placingJob struct {
	recorder
	n int
}

func (s *placingJob) Schedules() []Schedule {
	return []Schedule{{Name: "buy", Spec: "*/15 * * * *", Run: func(ctx Context, _ time.Time) error {
		s.n++
		_, err := ctx.Place(limitBuy(fmt.Sprintf("job-%d", s.n)))
		return err
	}}}
}

// A schedule run's record lists the orders it placed; orders placed
// outside a run are not attributed to one.
func TestRuntimeRecordsTheOrdersOfARun(t *testing.T) {
	t.Parallel()
	s := &placingJob{}
	h := newHarness(t, Options{}, s)
	ctx := t.Context()
	h.rt.OnBar(ctx, feed1m, bar(0, "100"))
	h.rt.Tick(ctx, t0) // 00:00 runs
	if _, err := h.rt.insts[0].Place(limitBuy("outside")); err != nil {
		t.Fatal(err)
	}
	h.clock.t = t0.Add(15 * time.Minute)
	h.rt.Tick(ctx, h.clock.t)
	if len(h.j.runs) != 2 {
		t.Fatalf("runs %+v", h.j.runs)
	}
	if got := fmt.Sprint(h.j.runs[0].Orders, h.j.runs[1].Orders); got != "[job-1] [job-2]" {
		t.Errorf("orders of the runs: %s", got)
	}
}

// TestRuntimeAlternatingFeeds interleaves the bars of two feeds and one
// nobody subscribed to: each bar reaches its own feed's subscribers and
// history, and every symbol's last price follows its own bars.
func TestRuntimeAlternatingFeeds(t *testing.T) {
	t.Parallel()
	s := &recorder{}
	j := newMemJournal()
	g, _ := risk.New(risk.Limits{})
	rt, err := New(Options{Trader: newFakeTrader(j), Gate: g, Journal: j, Clock: &testClock{t: t0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Add(Config{Name: "t", ID: "two", Symbols: []string{"BTCUSDT", "ETHUSDT"}, Interval: "1m"}, s); err != nil {
		t.Fatal(err)
	}
	eth := Feed{Symbol: "ETHUSDT", Interval: exchange.Interval1m}
	sol := Feed{Symbol: "SOLUSDT", Interval: exchange.Interval1m}
	ctx := t.Context()
	rt.OnBar(ctx, feed1m, bar(0, "100"))
	rt.OnBar(ctx, eth, bar(0, "10"))
	rt.OnBar(ctx, sol, bar(0, "1"))
	rt.OnBar(ctx, feed1m, bar(1, "101"))
	rt.OnBar(ctx, feed1m, bar(2, "102"))
	rt.OnBar(ctx, eth, bar(1, "11"))
	want := "BTCUSDT 1m 00:00 c=100 warm=false|ETHUSDT 1m 00:00 c=10 warm=false|BTCUSDT 1m 00:01 c=101 warm=false|" +
		"BTCUSDT 1m 00:02 c=102 warm=false|ETHUSDT 1m 00:01 c=11 warm=false"
	if got := strings.Join(s.seen, "|"); got != want {
		t.Errorf("seen %q", got)
	}
	in := rt.insts[0]
	if got := fmt.Sprint(in.LastPrice("BTCUSDT"), in.LastPrice("ETHUSDT"), in.LastPrice("SOLUSDT"), in.LastPrice("XRPUSDT")); got != "102 11 1 0" {
		t.Errorf("last prices %s", got)
	}
	if k := in.Klines("ETHUSDT", exchange.Interval1m, 5); len(k) != 2 || k[0].Close.String() != "10" || k[1].Close.String() != "11" {
		t.Errorf("ETHUSDT klines %v", k)
	}
	if k := in.Klines("SOLUSDT", exchange.Interval1m, 5); k != nil {
		t.Errorf("SOLUSDT klines %v", k)
	}
	if k, ok := rt.LastKline(feed1m); !ok || k.Close.String() != "102" {
		t.Errorf("LastKline %v %v", k, ok)
	}
	if st := rt.Stats(); st.Bars != 6 {
		t.Errorf("bars %d", st.Bars)
	}
}

// BenchmarkOnBarValued is BenchmarkOnBar with equity tracked for the kill
// switch (Options.Valuation): the account is valued at every bar.
func BenchmarkOnBarValued(b *testing.B) {
	s, rt := benchOnBar(b, risk.Limits{MaxDrawdown: d("0.5")}, "USDT")
	if s.n == 0 || rt.Killed() {
		b.Fatalf("strategy called %d times, killed %v", s.n, rt.Killed())
	}
}

// The runtime forgets the oldest finished orders in bulk once twice
// keptFinished are final, and keeps the open ones.
func TestRuntimeForgetsOldFinishedOrders(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, &recorder{})
	in := h.rt.insts[0]
	if _, err := in.Place(limitBuy("s0-open")); err != nil {
		t.Fatal(err)
	}
	for i := range 2*keptFinished - 1 {
		h.ft.script = []outcome{refuse}
		if _, err := in.Place(limitBuy(fmt.Sprintf("s0-%d", i))); !IsRefusal(err) {
			t.Fatalf("order %d: %v", i, err)
		}
	}
	// The open list holds the open orders (no map for one), the finished
	// list the others.
	if n := len(h.rt.open) + len(h.rt.finished); n != 2*keptFinished || len(h.rt.open) != 1 || h.rt.orders != nil {
		t.Fatalf("%d orders remembered before the bulk forget, want %d", n, 2*keptFinished)
	}
	h.ft.script = []outcome{refuse}
	if _, err := in.Place(limitBuy("s0-last")); !IsRefusal(err) {
		t.Fatal(err)
	}
	// 20,000 final: the oldest 10,000 go; the open one stays.
	if n, f := len(h.rt.open)+len(h.rt.finished), len(h.rt.finished); n != keptFinished+1 || f != keptFinished {
		t.Fatalf("%d orders remembered, %d finished listed; want %d and %d", n, f, keptFinished+1, keptFinished)
	}
	if err := in.Cancel("s0-0"); err == nil {
		t.Error("a forgotten order cancelled without error")
	}
	// The forgotten are reused, newest forgotten first, for the next
	// orders: a record of the last forgotten, zeroed and refilled.
	if n := len(h.rt.forgotten); n != keptFinished {
		t.Fatalf("%d forgotten records to reuse, want %d", n, keptFinished)
	}
	reused := h.rt.forgotten[keptFinished-1]
	if _, err := in.Place(limitBuy("s0-reuse")); err != nil {
		t.Fatal(err)
	}
	if n := len(h.rt.forgotten); n != keptFinished-1 {
		t.Fatalf("%d forgotten records after an order, want %d", n, keptFinished-1)
	}
	if got := h.rt.find("s0-reuse"); got != reused || got.final || got.unknown || got.trades.n != 0 || got.order.ClientOrderID != "s0-reuse" || got.order.Status != exchange.StatusNew {
		t.Fatalf("the new order is %p %+v, want the forgotten record %p refilled", got, got, reused)
	}
	// A final order dropped a second time (a late report) is not listed
	// twice, so it can never be reused twice.
	last := h.rt.find("s0-last")
	h.rt.dropOpen(last)
	if f := len(h.rt.finished); f != keptFinished {
		t.Fatalf("%d finished listed after dropping a final order again, want %d", f, keptFinished)
	}
	if err := in.Cancel(fmt.Sprintf("s0-%d", 2*keptFinished-2)); err != nil {
		t.Errorf("a remembered final order: %v", err)
	}
	if err := in.Cancel("s0-open"); err != nil {
		t.Errorf("the open order: %v", err)
	}
}

// countingReader is a BalanceReader answering fixed balances and counting
// its reads.
type countingReader struct {
	reads    int
	balances []exchange.Balance
}

func (c *countingReader) AppendBalances(dst []exchange.Balance) ([]exchange.Balance, error) {
	c.reads++
	return append(dst, c.balances...), nil
}

// With Options.Balances the runtime reads balances from it (once a
// refresh), never from the trader's Account.
func TestBalancesFromReader(t *testing.T) {
	ft := newFakeTrader(newMemJournal())
	ft.balances = []exchange.Balance{{Asset: "USDT", Free: d("1")}} // what Account would say
	reader := &countingReader{balances: []exchange.Balance{{Asset: "BTC", Free: d("0.5"), Locked: d("0.25")}, {Asset: "USDT", Free: d("123.45")}}}
	g, _ := risk.New(risk.Limits{})
	rt, err := New(Options{Trader: ft, Balances: reader, Gate: g, Journal: NewMemoryJournal(), Clock: &testClock{t: t0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Add(Config{Name: "t", ID: "b", Symbols: []string{"BTCUSDT"}, Interval: "1m"}, &countingStrategy{}); err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	in := rt.insts[0]
	usdt, btc := in.Balance("USDT"), in.Balance("BTC")
	if got := usdt.Free.String() + " " + btc.Free.String() + " " + btc.Locked.String(); got != "123.45 0.5 0.25" {
		t.Fatalf("balances %s", got)
	}
	if reader.reads != 1 {
		t.Fatalf("%d reads, want 1", reader.reads)
	}
	rt.stale = true
	if got := in.Balance("ETH"); !got.Free.IsZero() || got.Asset != "ETH" || reader.reads != 2 {
		t.Fatalf("ETH %+v after %d reads", got, reader.reads)
	}
}

// The runtime finds a few open orders by scanning them and indexes them by
// client order id once more than openIndexAt are open; either way each is
// found (to cancel it) and leaves both when final.
func TestRuntimeIndexesManyOpenOrders(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Options{}, &recorder{})
	in := h.rt.insts[0]
	n := openIndexAt + 4
	for i := range n {
		if _, err := in.Place(limitBuy(fmt.Sprintf("s0-%d", i))); err != nil {
			t.Fatal(err)
		}
		if indexed := h.rt.orders != nil; indexed != (i+1 > openIndexAt) {
			t.Fatalf("%d open orders: indexed %v", i+1, indexed)
		}
	}
	if len(h.rt.orders) != n || len(h.rt.open) != n {
		t.Fatalf("%d indexed, %d open; want %d", len(h.rt.orders), len(h.rt.open), n)
	}
	for i := n - 1; i >= 0; i-- {
		cid := fmt.Sprintf("s0-%d", i)
		if got := h.rt.find(cid); got == nil || got.order.ClientOrderID != cid {
			t.Fatalf("find %s: %v", cid, got)
		}
		if err := in.Cancel(cid); err != nil {
			t.Fatal(err)
		}
		if len(h.rt.orders) != i || len(h.rt.open) != i {
			t.Fatalf("after cancelling %s: %d indexed, %d open; want %d", cid, len(h.rt.orders), len(h.rt.open), i)
		}
	}
	if err := in.Cancel("s0-nope"); err == nil {
		t.Error("an unknown order cancelled without error")
	}
	h2 := newHarness(t, Options{}, &recorder{})
	in2 := h2.rt.insts[0]
	for _, cid := range []string{"s0-a", "s0-b", "s0-c"} {
		if _, err := in2.Place(limitBuy(cid)); err != nil {
			t.Fatal(err)
		}
	}
	if h2.rt.orders != nil || h2.rt.find("s0-b") != h2.rt.open[1] || h2.rt.find("s0-x") != nil {
		t.Errorf("three open orders: index %v, find s0-b %v", h2.rt.orders, h2.rt.find("s0-b"))
	}
}
