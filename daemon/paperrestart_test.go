package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

// paperView is what a paper wallet shows: balances, open orders and
// positions, as exact text.
func paperView(t *testing.T, bot *Bot) string {
	t.Helper()
	s := bot.Status()
	acct, err := bot.x.Master().Account(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, x := range acct.Balances {
		fmt.Fprintf(&b, "balance %s %s/%s\n", x.Asset, x.Free, x.Locked)
	}
	for _, o := range s.OpenOrders {
		fmt.Fprintf(&b, "order %s %s %s %s %s %s@%s exec %s\n", o.Instance, o.ClientOrderID, o.OrderID, o.Status, o.Side, o.Quantity, o.Price, o.ExecutedQty)
	}
	for _, p := range s.Positions {
		fmt.Fprintf(&b, "position %s %s %s avg %s realised %s\n", p.Instance, p.Symbol, p.Qty, p.AvgPrice, p.Realized)
	}
	return b.String()
}

// TestPaperRestartKeepsTheWallet runs a paper bot, stops it, starts it
// again on the same store: the balances, open orders and positions are
// the same; the grid's orders rest on in the restored simulator and fill
// after the restart, continuing the positions, which equal those rebuilt
// from every fill in the store. A reset starts a new wallet.
func TestPaperRestartKeepsTheWallet(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 120, false, noFaults)
	c, public := paperConfig(t, h)
	st := memStore(t)
	session := func(hours time.Duration) (*Bot, string) {
		t.Helper()
		bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: h.clock, Client: public})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		h.clock.runUntil(h.clock.Now().Add(hours), cancel)
		if err := bot.Run(ctx); err != nil {
			t.Fatal(err)
		}
		return bot, paperView(t, bot)
	}
	first, stopped := session(150 * time.Hour)
	if n := first.Status().Counters.Fills; n != 26 || !strings.Contains(stopped, "position btc-cross BTCUSDT 0.27506696 avg 17156.6868412228205581 ") {
		t.Fatalf("first session: %d fills\n%s", n, stopped)
	}

	// A restart within the hour: no bar passes, nothing fills; the grid
	// lays the one level free at the price now (500) as it starts.
	second, restarted := session(time.Minute)
	want := strings.Replace(stopped, "USDT 4719.23380636/92.5", "USDT 4669.23380636/142.5", 1)
	want = strings.Replace(want, "order eth-grid eth-grid-ki0gc3bk-y 34 NEW SELL 0.1@525 exec 0\n",
		"order eth-grid eth-grid-ki0gc3bk-y 34 NEW SELL 0.1@525 exec 0\norder eth-grid eth-grid-ki1acao0-255t 36 NEW BUY 0.1@500 exec 0\n", 1)
	if restarted != want || want == stopped {
		t.Fatalf("after the restart:\n%s\nwant:\n%s", restarted, want)
	}
	if s := second.Status(); s.Counters.Fills != 0 || s.Counters.OrdersPlaced != 1 || s.Counters.Reconciled.Closed != 0 ||
		s.Counters.Reconciled.Checked != 9 {
		t.Errorf("the restart: %+v", s.Counters)
	}

	third, after := session(100 * time.Hour)
	// btc-cross sold the BTC it bought before the restart, at the average
	// price it paid then.
	if s := third.Status(); s.Counters.Fills != 10 || !strings.Contains(after,
		"position btc-cross BTCUSDT 0.00000096 avg 17156.6868412228205581 realised 52.0258002093675738780384\n") {
		t.Errorf("third session: %d fills\n%s", s.Counters.Fills, after)
	}
	if rebuilt := positionsFromStore(t, st); rebuilt != positionsOf(after) {
		t.Errorf("positions\n%s\nrebuilt from the store's fills\n%s", positionsOf(after), rebuilt)
	}

	// A reset forgets the wallet: the next start funds a new one from
	// account.balances and closes the old one's orders in the store.
	if ok, err := ResetPaper(t.Context(), st); !ok || err != nil {
		t.Fatalf("ResetPaper = %v, %v", ok, err)
	}
	if ok, err := ResetPaper(t.Context(), st); ok || err != nil {
		t.Fatalf("second ResetPaper = %v, %v", ok, err)
	}
	fresh, _ := session(time.Minute)
	if s := fresh.Status(); s.Counters.Reconciled.Closed != 11 || len(s.Positions) != 0 {
		t.Errorf("after the reset: %d orders closed, positions %+v", s.Counters.Reconciled.Closed, s.Positions)
	}
}

func positionsOf(view string) string {
	var out []string
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, "position ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// positionsFromStore applies every fill of the store in time order.
func positionsFromStore(t *testing.T, st *store.Store) string {
	fills, err := st.FillsSince(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]*strategy.Position{}
	for _, f := range fills {
		k := f.Instance + " " + f.Symbol
		p := pos[k]
		if p == nil {
			p = &strategy.Position{Symbol: f.Symbol}
			pos[k] = p
		}
		p.Apply(strategy.Fill{ClientOrderID: f.ClientOrderID, TradeID: f.TradeID, Symbol: f.Symbol, Side: f.Side, Price: f.Price,
			Qty: f.Qty, QuoteQty: f.QuoteQty, Commission: f.Commission, CommissionAsset: f.CommissionAsset, Time: f.Time},
			strings.TrimSuffix(f.Symbol, "USDT"), "USDT")
	}
	var out []string
	for _, k := range []string{"btc-cross BTCUSDT", "eth-grid ETHUSDT"} {
		if p := pos[k]; p != nil {
			out = append(out, fmt.Sprintf("position %s %s avg %s realised %s", k, p.Qty, p.AvgPrice, p.Realized))
		}
	}
	return strings.Join(out, "\n")
}
