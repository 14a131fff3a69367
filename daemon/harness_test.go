package daemon

import (
	"context"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
)

const (
	testKey    = "mx0vglDaemonTest01"
	testSecret = "0123456789abcdef0123456789abcdef"
)

// exchangeHarness is the simulated exchange behind its REST server on
// 127.0.0.1:0, with the embedded sample's hourly bars fed as its clock
// moves: the bot under test waits on the clock, and waiting feeds the bars
// that close meanwhile, so a month of trading takes a second.
type exchangeHarness struct {
	t     *testing.T
	x     *sim.Exchange
	srv   *simserver.Server
	url   string
	clock *feedClock
}

// feedClock is the harness's clock: the simulator's, moved by After.
type feedClock struct {
	mu     sync.Mutex
	x      *sim.Exchange
	bars   []symbolBar // by close time
	next   int
	stopAt time.Time // when a wait reaches it: cancel the bot's context
	cancel context.CancelFunc
	// passWaits is the longest wait that still passes in full once the
	// context is cancelled (default 10 s).
	passWaits time.Duration
	// at runs once when the clock reaches atTime (a change of the
	// market or the server mid-session).
	atTime time.Time
	at     func()
	// hooks run once each, in time order, with the clock stopped at their
	// time exactly, as a wait passes it.
	hooks []clockHook
}

type clockHook struct {
	at time.Time
	f  func()
}

type symbolBar struct {
	symbol string
	k      exchange.Kline
}

func (c *feedClock) Now() time.Time { return c.x.Now() }

func (c *feedClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	target := c.x.Now().Add(d)
	if c.cancel != nil && !target.Before(c.stopAt) {
		// The bot sees its context end. Short waits still pass (the
		// shutdown may wait for a rate budget); a long one stops at
		// stopAt, so the next session starts where this one ended.
		c.cancel()
		if pass := c.passWaits; d > pass && (pass > 0 || d > 10*time.Second) {
			target = c.stopAt
		}
	}
	c.advance(target)
	ch := make(chan time.Time, 1)
	ch <- c.x.Now()
	return ch
}

// advance feeds the bars closing by t and moves the clock to t, stopping
// at each hook's time on the way.
func (c *feedClock) advance(t time.Time) {
	for len(c.hooks) > 0 && !t.Before(c.hooks[0].at) {
		h := c.hooks[0]
		c.hooks = c.hooks[1:]
		if h.at.After(c.x.Now()) {
			c.advanceTo(h.at)
		}
		h.f()
	}
	c.advanceTo(t)
}

// hook runs f once when the clock passes at, with the clock at at. f runs
// under the clock's lock: it may read the clock, the bot's status and the
// server, not wait on the clock.
func (c *feedClock) hook(at time.Time, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hooks = append(c.hooks, clockHook{at, f})
	sort.SliceStable(c.hooks, func(i, j int) bool { return c.hooks[i].at.Before(c.hooks[j].at) })
}

func (c *feedClock) advanceTo(t time.Time) {
	for c.next < len(c.bars) {
		b := c.bars[c.next]
		if exchange.Interval60m.Next(b.k.OpenTime).After(t) {
			break
		}
		if err := c.x.FeedKline(b.symbol, exchange.Interval60m, b.k); err != nil {
			panic(err) // the sample is valid; a failure is a harness bug
		}
		c.next++
	}
	c.x.SetTime(t)
	if c.at != nil && !t.Before(c.atTime) {
		c.at()
		c.at = nil
	}
}

// runUntil arms the clock to cancel when a wait reaches t.
func (c *feedClock) runUntil(t time.Time, cancel context.CancelFunc) {
	c.mu.Lock()
	c.stopAt, c.cancel = t, cancel
	c.mu.Unlock()
}

// Advance moves time to t with no bot running (the bot is down).
func (c *feedClock) Advance(t time.Time) {
	c.mu.Lock()
	c.cancel = nil
	c.advance(t)
	c.mu.Unlock()
}

// newExchangeHarness serves the sample's symbols (and, with extra, a third
// one built from ETHUSDT's bars) with a funded master account, at the
// sample's start plus warm hours of history.
func newExchangeHarness(t *testing.T, warm int, extra bool, faults simserver.Faults) *exchangeHarness {
	t.Helper()
	data := map[string][]exchange.Kline{}
	for _, sym := range marketdata.SampleSymbols() {
		ks, err := marketdata.Sample(sym)
		if err != nil {
			t.Fatal(err)
		}
		data[sym] = ks
	}
	if extra {
		// SOLUSDT: ETHUSDT's bars at a tenth of the price.
		tenth := decimal.New(1, -1)
		var ks []exchange.Kline
		for _, k := range data["ETHUSDT"] {
			k.Open, k.High, k.Low, k.Close = k.Open.Mul(tenth), k.High.Mul(tenth), k.Low.Mul(tenth), k.Close.Mul(tenth)
			ks = append(ks, k)
		}
		data["SOLUSDT"] = ks
	}
	var syms []string
	for s := range data {
		syms = append(syms, s)
	}
	sort.Strings(syms)
	var rules []exchange.SymbolInfo
	var bars []symbolBar
	for _, s := range syms {
		r, err := session.DefaultRules(s, data[s])
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
		for _, k := range data[s] {
			bars = append(bars, symbolBar{s, k})
		}
	}
	sort.SliceStable(bars, func(i, j int) bool { return bars[i].k.OpenTime.Before(bars[j].k.OpenTime) })
	start := data["BTCUSDT"][0].OpenTime
	x, err := sim.New(sim.Options{Start: start, Symbols: rules})
	if err != nil {
		t.Fatal(err)
	}
	for a, v := range map[string]string{"USDT": "20000", "ETH": "5", "BTC": "0.1", "SOL": "50"} {
		if err := x.Credit(x.MasterUID(), a, decimal.RequireFromString(v)); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := simserver.New(x, simserver.Options{Faults: faults,
		Keys: []simserver.Key{{APIKey: testKey, Secret: testSecret, UID: x.MasterUID(), Main: true, Permissions: simserver.AllPermissions()}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	h := &exchangeHarness{t: t, x: x, srv: srv, url: hs.URL, clock: &feedClock{x: x, bars: bars}}
	h.clock.Advance(start.Add(time.Duration(warm) * time.Hour))
	return h
}

// client is a signed REST client of the harness, on its clock.
func (h *exchangeHarness) client() *exchange.Client {
	c, err := exchange.New(exchange.WithBaseURL(h.url), exchange.WithCredentials(exchange.NewSecret(testKey), exchange.NewSecret(testSecret)),
		exchange.WithClock(h.clock))
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// liveConfig is a live-mode configuration against the harness, with
// more exchange settings when given.
func (h *exchangeHarness) liveConfig(yamlText string, exchangeFields ...string) *config.Config {
	h.t.Helper()
	fields := append([]string{"base_url: \"" + h.url + "\""}, exchangeFields...)
	text := "mode: live\nexchange: {" + strings.Join(fields, ", ") + "}\n" + yamlText
	c, err := config.Load([]byte(text), nil, nil, strategies.NewRegistry())
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// run runs a bot on st until the harness clock reaches stop.
func (h *exchangeHarness) run(c *config.Config, st *store.Store, stop time.Time) *Bot {
	h.t.Helper()
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: h.clock, Client: h.client()})
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.t.Context())
	defer cancel()
	h.clock.runUntil(stop, cancel)
	if err := bot.Run(ctx); err != nil {
		h.t.Fatal(err)
	}
	return bot
}

func simserverFaults() simserver.Faults { return simserver.Faults{} }
