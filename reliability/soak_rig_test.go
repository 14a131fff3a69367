package reliability

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategies"
)

// The soak's and the crash test's account key (the secret is only ever
// used against the local simulated server).
const (
	soakKey    = "mx0vglReliabilitySoak1"
	soakSecret = "fedcba9876543210fedcba9876543210"
)

// soakStart is the open of the first synthetic bar; soakWarm bars of
// history close before the bot first starts.
var soakStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const soakWarm = 48

// soakGrids are the grid instances' symbols with their ranges: every
// synthetic bar of these symbols sweeps the whole range, so each bar fills
// every resting level and each fill places the opposite order, about
// levels-1 intents per grid and bar.
var soakGrids = []struct {
	symbol, lower, upper, qty string
}{
	{"GAUSDT", "100", "200", "0.5"},
	{"GBUSDT", "20", "40", "2"},
	{"GCUSDT", "1000", "2000", "0.05"},
	{"GDUSDT", "50", "100", "1"},
}

// soakCrosses are the smacross instances' symbols: closes on a sine of
// period soakCrossPeriod bars, so the fast and slow averages cross twice a
// period.
var soakCrosses = []struct {
	symbol string
	mid    float64
}{
	{"SAUSDT", 50},
	{"SBUSDT", 8},
}

const soakCrossPeriod = 10

// soakBalances fund the master account.
var soakBalances = map[string]string{
	"USDT": "50000000", "GA": "10000", "GB": "50000", "GC": "1000", "GD": "20000", "SA": "5000", "SB": "20000",
}

// soakBar is one synthetic bar of one symbol.
type soakBar struct {
	symbol string
	k      exchange.Kline
}

// soakMarket builds n hourly bars per symbol from soakStart,
// deterministically, sorted by open time then symbol.
func soakMarket(n int) (map[string][]exchange.Kline, []soakBar) {
	data := map[string][]exchange.Kline{}
	bar := func(i int, o, h, l, c decimal.Decimal) exchange.Kline {
		open := soakStart.Add(time.Duration(i) * time.Hour)
		return exchange.Kline{OpenTime: open, CloseTime: open.Add(time.Hour - time.Millisecond), Open: o, High: h, Low: l, Close: c,
			Volume: decimal.NewFromInt(1000), QuoteVolume: c.Mul(decimal.NewFromInt(1000))}
	}
	for _, g := range soakGrids {
		lo, hi := decimal.RequireFromString(g.lower), decimal.RequireFromString(g.upper)
		span := hi.Sub(lo)
		margin := span.Div(decimal.NewFromInt(20))
		prev := lo.Add(span.Div(decimal.NewFromInt(2)))
		for i := range n {
			// Closes alternate between the lower and the upper third, a
			// little off the levels (i%7 hundredths of the span).
			frac := decimal.New(30+int64(i%7), -2)
			if i%2 == 1 {
				frac = decimal.New(70-int64(i%7), -2)
			}
			c := lo.Add(span.Mul(frac)).Round(2)
			data[g.symbol] = append(data[g.symbol], bar(i, prev, hi.Add(margin), lo.Sub(margin), c))
			prev = c
		}
	}
	for _, x := range soakCrosses {
		prev := x.mid
		for i := range n {
			c := x.mid * (1 + 0.2*math.Sin(2*math.Pi*float64(i)/soakCrossPeriod))
			o, cl := decimal.NewFromFloat(prev).Round(2), decimal.NewFromFloat(c).Round(2)
			h, l := decimal.Max(o, cl).Add(decimal.New(5, -2)), decimal.Min(o, cl).Sub(decimal.New(5, -2))
			data[x.symbol] = append(data[x.symbol], bar(i, o, h, l, cl))
			prev = c
		}
	}
	var bars []soakBar
	for s, ks := range data {
		for _, k := range ks {
			bars = append(bars, soakBar{s, k})
		}
	}
	sort.Slice(bars, func(i, j int) bool {
		if !bars[i].k.OpenTime.Equal(bars[j].k.OpenTime) {
			return bars[i].k.OpenTime.Before(bars[j].k.OpenTime)
		}
		return bars[i].symbol < bars[j].symbol
	})
	return data, bars
}

// soakExchange is the simulated exchange behind its REST server on
// 127.0.0.1:0, with the synthetic market fed by its clock.
type soakExchange struct {
	x     *sim.Exchange
	srv   *simserver.Server
	url   string
	rules map[string]exchange.SymbolInfo
	syms  []string
	clock *soakClock
}

// newSoakExchange serves bars synthetic bars per symbol, with the first
// soakWarm of them already closed.
func newSoakExchange(t testing.TB, bars int) *soakExchange {
	t.Helper()
	data, all := soakMarket(bars)
	ex := &soakExchange{rules: map[string]exchange.SymbolInfo{}}
	var rules []exchange.SymbolInfo
	for s := range data {
		ex.syms = append(ex.syms, s)
	}
	sort.Strings(ex.syms)
	for _, s := range ex.syms {
		r, err := session.DefaultRules(s, data[s])
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
		ex.rules[s] = r
	}
	x, err := sim.New(sim.Options{Start: soakStart, Symbols: rules})
	if err != nil {
		t.Fatal(err)
	}
	for a, v := range soakBalances {
		must(t, x.Credit(x.MasterUID(), a, dec(v)))
	}
	srv, err := simserver.New(x, simserver.Options{Keys: []simserver.Key{{APIKey: soakKey, Secret: soakSecret, UID: x.MasterUID(),
		Main: true, Permissions: simserver.AllPermissions()}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	ex.x, ex.srv, ex.url = x, srv, hs.URL
	ex.clock = &soakClock{x: x, bars: all, feed: true}
	ex.clock.mu.Lock()
	ex.clock.advance(soakStart.Add(soakWarm * time.Hour))
	ex.clock.mu.Unlock()
	return ex
}

// soakConfig is the live configuration of the soak's instances: a grid of
// levels levels on each grid symbol and a crossover on each cross symbol.
func soakConfig(t testing.TB, url string, levels int, extra string) *config.Config {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "mode: live\nexchange: {base_url: %q}\npoll: {orders: 1h, kline_delay: 2s}\ndaemon: {clock_sync: 5m}\n%sstrategies:\n", url, extra)
	for _, g := range soakGrids {
		fmt.Fprintf(&b, "  - {name: grid, id: grid-%s, symbols: [%s], interval: 1h, params: {lower: %s, upper: %s, levels: %d, quantity: %s}}\n",
			strings.ToLower(g.symbol[:2]), g.symbol, g.lower, g.upper, levels, g.qty)
	}
	for _, x := range soakCrosses {
		fmt.Fprintf(&b, "  - {name: smacross, id: cross-%s, symbols: [%s], interval: 1h, params: {fast: 2, slow: 5, quantity: 10}}\n",
			strings.ToLower(x.symbol[:2]), x.symbol)
	}
	c, err := config.Load([]byte(b.String()), nil, nil, strategies.NewRegistry())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return c
}

// soakClock is the bot's clock and the exchange's: a wait moves simulated
// time forward at once, feeding the bars that close meanwhile and firing
// the timed events due. A month of trading so takes as long as the bot's
// requests do.
type soakClock struct {
	mu     sync.Mutex
	x      *sim.Exchange
	bars   []soakBar
	next   int
	feed   bool        // bars are fed as time passes
	events []soakEvent // by time
	// stop ends the session (cancel) when it reports true, checked after
	// every wait; once stopped no bar is fed.
	stop    func() bool
	cancel  context.CancelFunc
	stopped bool
}

// soakEvent changes the exchange at a moment (a fault starts or ends).
type soakEvent struct {
	at time.Time
	f  func()
}

func (c *soakClock) Now() time.Time { return c.x.Now() }

func (c *soakClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(c.x.Now().Add(d))
	if !c.stopped && c.stop != nil && (c.stop() || c.feed && c.next == len(c.bars)) {
		c.stopped = true
		c.cancel()
	}
	ch := make(chan time.Time, 1)
	ch <- c.x.Now()
	return ch
}

// advance feeds the bars closing by t (unless stopped), fires the events
// due and moves the clock to t. The caller holds mu.
func (c *soakClock) advance(t time.Time) {
	for c.feed && !c.stopped && c.next < len(c.bars) {
		b := c.bars[c.next]
		if exchange.Interval60m.Next(b.k.OpenTime).After(t) {
			break
		}
		if err := c.x.FeedKline(b.symbol, exchange.Interval60m, b.k); err != nil {
			panic(err) // the synthetic bars are valid and in order; a failure is a rig bug
		}
		c.next++
	}
	for len(c.events) > 0 && !c.events[0].at.After(t) {
		ev := c.events[0]
		c.events = c.events[1:]
		ev.f()
	}
	c.x.SetTime(t)
}

// session arms the clock for one bot session: stop is checked after every
// wait (under the clock's lock: it must not call the clock) and cancel ends
// the session, as does the end of the bars.
func (c *soakClock) session(stop func() bool, cancel context.CancelFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop, c.cancel, c.stopped = stop, cancel, false
}

// soakTap is a slog handler that counts what the bot logs: order intents
// (the journal's "order" line, written once the intent is recorded),
// instances stopped, and the "trading" line that ends the start-up.
// hook, when set, sees every record first (the crash child kills itself
// from it).
type soakTap struct {
	level   slog.Level
	intents atomic.Int64
	trading atomic.Int64
	mu      sync.Mutex
	stopped []string
	hook    func(r slog.Record)
	next    slog.Handler // optional: also write the records here
}

func (h *soakTap) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *soakTap) Handle(ctx context.Context, r slog.Record) error {
	h.observe(r)
	if h.next != nil && h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

// observe counts a record and runs the hook.
func (h *soakTap) observe(r slog.Record) {
	if h.hook != nil {
		h.hook(r)
	}
	switch r.Message {
	case "order":
		h.intents.Add(1)
	case "trading":
		h.trading.Add(1)
	case "strategy instance stopped":
		msg := r.Message
		r.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
		h.mu.Lock()
		h.stopped = append(h.stopped, msg)
		h.mu.Unlock()
	}
}

// WithAttrs and WithGroup keep counting in the root handler; only the
// written records carry the attributes and groups.
func (h *soakTap) WithAttrs(as []slog.Attr) slog.Handler {
	if h.next == nil {
		return h
	}
	return &soakTapView{root: h, next: h.next.WithAttrs(as)}
}

func (h *soakTap) WithGroup(name string) slog.Handler {
	if h.next == nil {
		return h
	}
	return &soakTapView{root: h, next: h.next.WithGroup(name)}
}

// soakTapView is a soakTap with attributes or a group added.
type soakTapView struct {
	root *soakTap
	next slog.Handler
}

func (v *soakTapView) Enabled(ctx context.Context, l slog.Level) bool { return v.root.Enabled(ctx, l) }

func (v *soakTapView) Handle(ctx context.Context, r slog.Record) error {
	v.root.observe(r)
	if v.next.Enabled(ctx, r.Level) {
		return v.next.Handle(ctx, r)
	}
	return nil
}

func (v *soakTapView) WithAttrs(as []slog.Attr) slog.Handler {
	return &soakTapView{root: v.root, next: v.next.WithAttrs(as)}
}

func (v *soakTapView) WithGroup(name string) slog.Handler {
	return &soakTapView{root: v.root, next: v.next.WithGroup(name)}
}

// stoppedInstances lists the "strategy instance stopped" lines seen.
func (h *soakTap) stoppedInstances() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.stopped...)
}

// soakAttr returns the string value of a record's attribute.
func soakAttr(r slog.Record, key string) string {
	v := ""
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value.String()
			return false
		}
		return true
	})
	return v
}
