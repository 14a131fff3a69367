package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies"
)

// paperConfig is the paper configuration of the two strategies against
// h's server, and a public client of it on h's clock.
func paperConfig(t *testing.T, h *exchangeHarness) (*config.Config, *exchange.Client) {
	t.Helper()
	c, err := config.Load([]byte(`mode: paper
exchange: {base_url: "`+h.url+`"}
account: {balances: {USDT: 10000, ETH: 1}}
poll: {orders: 1h}
`+twoStrategies), nil, nil, strategies.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	public, err := exchange.New(exchange.WithBaseURL(h.url), exchange.WithClock(h.clock))
	if err != nil {
		t.Fatal(err)
	}
	return c, public
}

// TestPaperTradesOnPolledBars runs paper mode against the simulated server:
// klines come from its public endpoints, orders go to the bot's own
// simulator. The server sees no signed request and no order; the store
// holds the paper fills, the final balance snapshot is the paper account's,
// and the bars delivered are the bars polled.
func TestPaperTradesOnPolledBars(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 120, false, noFaults)
	c, public := paperConfig(t, h)
	st := memStore(t)
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: h.clock, Client: public})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.clock.runUntil(h.clock.Now().Add(150*time.Hour), cancel)
	if err := bot.Run(ctx); err != nil {
		t.Fatal(err)
	}
	s := bot.Status()
	for _, r := range h.srv.Requests() {
		if e, ok := exchange.Lookup(r.Endpoint); !ok || e.Security != exchange.Public {
			t.Fatalf("paper mode sent %s to the exchange", r.Endpoint)
		}
	}
	fills, err := st.FillsSince(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fills) == 0 || len(fills) != s.Counters.Fills {
		t.Fatalf("%d fills in the store, %d delivered", len(fills), s.Counters.Fills)
	}
	// Warm-up: 20 bars per feed (smacross' slow average, also for the
	// grid: the largest warm-up is used for every feed); then 149 polled
	// hours of two feeds.
	if s.Counters.Bars != 2*20+2*149 {
		t.Fatalf("%d bars delivered", s.Counters.Bars)
	}
	acct, err := bot.x.Master().Account(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := st.LatestBalances(t.Context(), config.ModePaper)
	if err != nil || len(snap.Balances) != len(acct.Balances) {
		t.Fatalf("snapshot %v (%v); paper account %v", snap.Balances, err, acct.Balances)
	}
	for i, b := range acct.Balances {
		if sb := snap.Balances[i]; sb.Asset != b.Asset || !sb.Free.Equal(b.Free) || !sb.Locked.Equal(b.Locked) {
			t.Fatalf("balance %s: snapshot %+v, paper account %+v", b.Asset, sb, b)
		}
	}
}
