package session_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

var t0 = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

// bar is an hourly bar opening i hours after t0 with one price.
func bar(i int, price string) exchange.Kline {
	p := decimal.RequireFromString(price)
	open := t0.Add(time.Duration(i) * time.Hour)
	return exchange.Kline{OpenTime: open, CloseTime: open.Add(time.Hour - time.Millisecond), Open: p, High: p, Low: p, Close: p,
		Volume: decimal.NewFromInt(1), QuoteVolume: p}
}

// probe records the bars it sees and buys 1 BTC at market on the first
// live bar.
type probe struct {
	warm  int
	seen  []string
	fills []string
	errs  []string // the refusals of its orders
	buy   bool
}

func (p *probe) WarmUp() int { return p.warm }

func (p *probe) OnKline(ctx strategy.Context, b strategy.Bar) error {
	p.seen = append(p.seen, fmt.Sprintf("%s %s-%s close %s warm=%t at %s", b.Interval, b.OpenTime.Format("15:04"),
		b.CloseTime.Add(time.Millisecond).Format("15:04"), b.Close, ctx.WarmingUp(), ctx.Now().Format("15:04")))
	if ctx.WarmingUp() || p.buy {
		return nil
	}
	p.buy = true
	_, err := ctx.Place(exchange.NewOrder{Symbol: b.Symbol, Side: exchange.SideBuy, Type: exchange.TypeMarket,
		Quantity: decimal.NewFromInt(1)})
	if err != nil {
		p.errs = append(p.errs, err.Error())
	}
	return err
}

func (p *probe) OnFill(_ strategy.Context, f strategy.Fill) error {
	p.fills = append(p.fills, fmt.Sprintf("%s %s at %s fee %s %s, %s", f.Side, f.Qty, f.Price, f.Commission, f.CommissionAsset,
		f.Time.UTC().Format("15:04")))
	return nil
}

// run runs the probe on interval iv over 1h bars through the session
// engine as a backtest builds it: NewSim, NewRuntime, Loop over Replay.
func run(t *testing.T, p *probe, iv string, fill session.Fill, bars []exchange.Kline) {
	t.Helper()
	ctx := t.Context()
	rules, err := session.DefaultRules("BTCUSDT", bars)
	if err != nil {
		t.Fatal(err)
	}
	x, err := session.NewSim(ctx, session.Venue{Fill: fill, Start: t0, Rules: []exchange.SymbolInfo{rules},
		Balances: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(1000)}, Retention: session.KeepRun})
	if err != nil {
		t.Fatal(err)
	}
	reg := strategy.NewRegistry()
	reg.Register("probe", func(strategy.Config) (strategy.Strategy, error) { return p, nil })
	clock := session.NewSimClock(t0)
	rt, _, err := session.NewRuntime(session.Options{Registry: reg, Port: x.Master(), Events: x.Master(), Fill: fill,
		Journal: strategy.NewMemoryJournal(), Clock: clock, BaseInterval: exchange.Interval60m,
		Instances: []strategy.Config{{Name: "probe", ID: "p", Symbols: []string{"BTCUSDT"}, Interval: iv}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Start(ctx); err != nil {
		t.Fatal(err)
	}
	feed := &session.Replay{Interval: exchange.Interval60m, Symbols: []string{"BTCUSDT"},
		Series: seriesFrom(t, map[string][]exchange.Kline{"BTCUSDT": bars}), WarmUp: rt.WarmUpBars()}
	l := session.Loop{Runtime: rt, Sim: x, SetClock: clock.Set}
	if err := l.Run(ctx, feed); err != nil {
		t.Fatal(err)
	}
}

func check(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("%s:\n%s\nwant:\n%s", what, g, w)
	}
}

// A 4h bar that a data gap closed early (its last hour, 03:00, is missing)
// reaches the strategy before the next base bar reaches the exchange, so a
// market order set to fill at the close fills at that bar's close (the
// 02:00 bar's 102, at 03:00), not at the close of the 04:00 bar (104).
func TestGapClosedBarFillsAtItsOwnClose(t *testing.T) {
	p := &probe{}
	bars := []exchange.Kline{bar(0, "100"), bar(1, "101"), bar(2, "102"), bar(4, "104"), bar(5, "105"), bar(6, "106"), bar(7, "107")}
	run(t, p, "4h", session.Fill{AtSignalClose: true}, bars)
	check(t, "bars", p.seen,
		"4h 00:00-04:00 close 102 warm=false at 03:00",
		"4h 04:00-08:00 close 107 warm=false at 08:00")
	// The default fee of the default rules is 0.1%, taken from the BTC
	// received.
	check(t, "fills", p.fills, "BUY 1 at 102 fee 0.001 BTC, 03:00")
}

// WarmUp counts bars of the strategy's own interval: 2 bars of 4h are 8
// hourly bars, so the first live 4h bar is the third (08:00-12:00).
func TestWarmUpCountsTheStrategysOwnBars(t *testing.T) {
	p := &probe{warm: 2}
	var bars []exchange.Kline
	for i := range 16 {
		bars = append(bars, bar(i, fmt.Sprint(100+i)))
	}
	run(t, p, "4h", session.Fill{AtSignalClose: true}, bars)
	check(t, "bars", p.seen,
		"4h 00:00-04:00 close 103 warm=true at 04:00",
		"4h 04:00-08:00 close 107 warm=true at 08:00",
		"4h 08:00-12:00 close 111 warm=false at 12:00",
		"4h 12:00-16:00 close 115 warm=false at 16:00")
	check(t, "fills", p.fills, "BUY 1 at 111 fee 0.001 BTC, 12:00")
}

// On the strategy's own interval nothing changes: 2 warm-up bars of 1h.
func TestWarmUpOnTheBaseInterval(t *testing.T) {
	p := &probe{warm: 2}
	bars := []exchange.Kline{bar(0, "100"), bar(1, "101"), bar(2, "102"), bar(3, "103")}
	run(t, p, "1h", session.Fill{}, bars)
	check(t, "bars", p.seen,
		"60m 00:00-01:00 close 100 warm=true at 01:00",
		"60m 01:00-02:00 close 101 warm=true at 02:00",
		"60m 02:00-03:00 close 102 warm=false at 03:00",
		"60m 03:00-04:00 close 103 warm=false at 04:00")
	// Market at the next open: the 03:00 bar's open, 103.
	check(t, "fills", p.fills, "BUY 1 at 103 fee 0.001 BTC, 03:00")
}

// seriesFrom is the replay's series of klines (marketdata.FromKlines).
func seriesFrom(t *testing.T, data map[string][]exchange.Kline) map[string]*marketdata.Series {
	t.Helper()
	out := map[string]*marketdata.Series{}
	for sym, ks := range data {
		s, err := marketdata.FromKlines(sym, exchange.Interval60m, ks)
		if err != nil {
			t.Fatal(err)
		}
		out[sym] = s
	}
	return out
}

// NewRuntime tells the gate of the fill model's quote fees (Options.Fill):
// 1 BTC at market with the last price 999.5 is worth 999.5 of the 1000
// USDT free, and its fee in the quote asset may be 0.1% of that, 0.9995,
// so with sim.fee_asset: quote the gate refuses it by rule balance, where
// the exchange would have refused it for funds. With fees in the asset
// received the same buy fills at the next open and pays 0.001 BTC.
func TestQuoteFeesReachTheGate(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{bar(0, "999.5"), bar(1, "999.5"), bar(2, "999.5")}
	p := &probe{}
	run(t, p, "1h", session.Fill{QuoteFees: true}, bars)
	check(t, "refusals", p.errs, "risk: balance: buy for 999.5 USDT and up to 0.9995 USDT in fees but only 1000 free (exchange code 30004)")
	check(t, "fills", p.fills)

	p = &probe{}
	run(t, p, "1h", session.Fill{}, bars)
	check(t, "refusals", p.errs)
	check(t, "fills", p.fills, "BUY 1 at 999.5 fee 0.001 BTC, 01:00")
}
