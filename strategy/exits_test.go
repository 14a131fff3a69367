package strategy_test

import (
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"
)

// buyOnce buys 1 BTC at market on its first bar.
type buyOnce struct{ done bool }

func (b *buyOnce) OnKline(ctx strategy.Context, bar strategy.Bar) error {
	if b.done {
		return nil
	}
	b.done = true
	_, err := ctx.Place(exchange.NewOrder{Symbol: bar.Symbol, Side: exchange.SideBuy, Type: exchange.TypeMarket, Quantity: decimal.NewFromInt(1)})
	return err
}

// declared declares its exits in code (strategy.Exiter).
type declared struct{ buyOnce }

func (*declared) Exits() strategy.Exits {
	l, _ := strategy.ParseLevel("5%")
	return strategy.Exits{StopLoss: l}
}

func exitHarness(t *testing.T, s strategy.Strategy, ex *strategy.Exits) *strategytest.Harness {
	t.Helper()
	cfg := strategy.Config{Name: "x", ID: "x", Symbols: []string{"BTCUSDT"}, Interval: "1h", Exits: ex}
	h := strategytest.New(t, strategytest.Options{Config: cfg, Strategy: s, Balances: map[string]string{"USDT": "1000"}})
	h.Begin()
	h.Step("BTCUSDT", strategytest.Flat(exchange.Interval60m, 0, "100"))
	h.Step("BTCUSDT", strategytest.Flat(exchange.Interval60m, 1, "100")) // the buy fills at 100
	h.Sent()
	return h
}

// A polled last price triggers the exits between bars: 98.5 is above a 2%
// stop (98), 98 reaches it; the exit sells the whole position (the
// harness's rules charge no fee) at market, once while it is in flight.
func TestCheckPriceTriggersStop(t *testing.T) {
	t.Parallel()
	l, _ := strategy.ParseLevel("2%")
	h := exitHarness(t, &buyOnce{}, &strategy.Exits{StopLoss: l})
	at := strategytest.T0().Add(2 * time.Hour)
	h.RT.CheckPrice("BTCUSDT", decimal.RequireFromString("98.5"), at)
	if got := h.Sent(); len(got) != 0 {
		t.Fatalf("above the stop: %q", got)
	}
	h.RT.CheckPrice("BTCUSDT", decimal.RequireFromString("98"), at)
	h.RT.CheckPrice("BTCUSDT", decimal.RequireFromString("97"), at)
	if got, want := h.Sent(), []string{"SELL MARKET BTCUSDT qty=1"}; !slices.Equal(got, want) {
		t.Errorf("at the stop: %q, want %q", got, want)
	}
}

// max_hold by the polled time: 1h after the entry at 01:00 nothing, 2h
// after it the exit.
func TestCheckPriceMaxHold(t *testing.T) {
	t.Parallel()
	h := exitHarness(t, &buyOnce{}, &strategy.Exits{MaxHold: 2 * time.Hour})
	px := decimal.NewFromInt(100)
	h.RT.CheckPrice("BTCUSDT", px, strategytest.T0().Add(2*time.Hour))
	if got := h.Sent(); len(got) != 0 {
		t.Fatalf("held 1h: %q", got)
	}
	h.RT.CheckPrice("BTCUSDT", px, strategytest.T0().Add(3*time.Hour))
	if got := h.Sent(); !slices.Equal(got, []string{"SELL MARKET BTCUSDT qty=1"}) {
		t.Errorf("held 2h: %q", got)
	}
}

// A strategy's own declaration applies when the configuration has no
// exits block, and the block replaces it when present.
func TestExitsDeclaredInCode(t *testing.T) {
	t.Parallel()
	at := strategytest.T0().Add(2 * time.Hour)
	h := exitHarness(t, &declared{}, nil)
	h.RT.CheckPrice("BTCUSDT", decimal.NewFromInt(95), at)
	if got := h.Sent(); !slices.Equal(got, []string{"SELL MARKET BTCUSDT qty=1"}) {
		t.Errorf("declared 5%% stop at 95: %q", got)
	}
	l, _ := strategy.ParseLevel("10%")
	h = exitHarness(t, &declared{}, &strategy.Exits{StopLoss: l})
	h.RT.CheckPrice("BTCUSDT", decimal.NewFromInt(95), at)
	if got := h.Sent(); len(got) != 0 {
		t.Errorf("configured 10%% stop at 95: %q", got)
	}
}

func TestExitConfigProblems(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ex   strategy.Exits
		want string
	}{
		{strategy.Exits{StopLoss: strategy.Level{Kind: strategy.LevelPercent, Value: decimal.NewFromInt(100)}}, "exits.stop_loss: 100% must be below 100%"},
		{strategy.Exits{TrailingStop: strategy.Trailing{Activation: strategy.Level{Kind: strategy.LevelPercent, Value: decimal.NewFromInt(1)}}},
			"exits.trailing_stop.distance: required with an activation"},
		{strategy.Exits{MaxHold: time.Hour, IntrabarPath: "zigzag"}, `exits.intrabar_path: "zigzag" must be direction, olhc or ohlc`},
		{strategy.Exits{MaxHold: time.Hour, TimeframeDetail: "1h"}, "exits.timeframe_detail: 60m must be finer than the instance's interval 60m"},
	} {
		cfg := strategy.Config{Name: "x", ID: "x", Symbols: []string{"BTCUSDT"}, Interval: "1h", Exits: &c.ex}
		if err := cfg.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", c.ex, err, c.want)
		}
	}
	for _, s := range []string{"2%", "95", "1.5atr"} {
		if l, err := strategy.ParseLevel(s); err != nil || l.String() != s {
			t.Errorf("ParseLevel(%q) = %v, %v", s, l, err)
		}
	}
	if _, err := strategy.ParseLevel("two"); err == nil || err.Error() != `is not an exit level (such as "2%", "95" or "3atr")` {
		t.Errorf("ParseLevel(two): %v", err)
	}
}
