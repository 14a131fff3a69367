package config

import (
	"strings"
	"testing"
	"time"
)

// An exits: and a protections: block decode through configuration loading
// into the instance's typed values.
func TestExitsAndProtectionsDecode(t *testing.T) {
	t.Parallel()
	c, err := Load([]byte(good+`    exits:
      stop_loss: 2%
      take_profit: "105.5"
      trailing_stop: {activation: 2%, distance: 3atr}
      max_hold: 2d
      break_even: 1.5%
      atr_period: 10
      intrabar_path: ohlc
      timeframe_detail: 5m
      order: limit
      limit_offset: 0.5%
    protections:
      cooldown: 2h
      stoploss_guard: {stops: 3, window: 24h, lock: 12h}
      max_drawdown: {percent: 10, window: 72h, lock: 1d}
      low_profit: {trades: 4, percent: -1.5, window: 3d, lock: 6h}
`), nil, nil, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	e, p := c.Strategies[0].Exits, c.Strategies[0].Protections
	if e == nil || p == nil {
		t.Fatalf("exits %v, protections %v", e, p)
	}
	got := strings.Join([]string{e.StopLoss.String(), e.TakeProfit.String(), e.TrailingStop.Activation.String(),
		e.TrailingStop.Distance.String(), e.MaxHold.String(), e.BreakEven.String(), e.IntrabarPath, e.TimeframeDetail,
		e.Order, e.LimitOffset.String()}, " ")
	if want := "2% 105.5 2% 3atr 48h0m0s 1.5% ohlc 5m limit 0.5%"; got != want || e.ATRPeriod != 10 {
		t.Errorf("exits %q (atr_period %d), want %q", got, e.ATRPeriod, want)
	}
	if p.Cooldown != 2*time.Hour || p.StopLossGuard.Stops != 3 || p.StopLossGuard.Window != 24*time.Hour ||
		p.StopLossGuard.Lock != 12*time.Hour || p.MaxDrawdown.Percent.String() != "10" || p.MaxDrawdown.Window != 72*time.Hour ||
		p.MaxDrawdown.Lock != 24*time.Hour || p.LowProfit.Trades != 4 || p.LowProfit.Percent.String() != "-1.5" ||
		p.LowProfit.Window != 72*time.Hour || p.LowProfit.Lock != 6*time.Hour {
		t.Errorf("protections %+v", *p)
	}
}

// Bad values in both blocks are each named by their key, with the line:
// values that do not decode and unknown keys first, then the values the
// exits' and protections' rules refuse.
func TestExitsAndProtectionsProblems(t *testing.T) {
	t.Parallel()
	_, err := Inspect("bt.yaml", []byte(good+`    exits:
      take_profit: lots
      stop_los: 2%
    protections:
      max_drawdown: {percent: 10, window: 72h, lock: 1d, depth: 3}
`), nil, nil, testRegistry())
	want := []string{
		`strategies[0].exits.take_profit: is not an exit level (such as "2%", "95" or "3atr") (bt.yaml:18)`,
		"strategies[0].exits.stop_los: unknown key; did you mean stop_loss? (bt.yaml:19)",
		"strategies[0].protections.max_drawdown.depth: unknown key (bt.yaml:21)",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("err:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	_, err = Inspect("bt.yaml", []byte(good+`    exits:
      stop_loss: 120%
      trailing_stop: {activation: 2%}
      max_hold: -1h
      intrabar_path: zigzag
      order: stop
    protections:
      cooldown: -1m
      stoploss_guard: {stops: 0, window: 24h}
`), nil, nil, testRegistry())
	want = []string{
		"strategies[0].exits.stop_loss: 120% must be below 100% (bt.yaml:18)",
		"strategies[0].exits.trailing_stop.distance: required with an activation (bt.yaml:19)",
		"strategies[0].exits.max_hold: -1h0m0s must not be negative (bt.yaml:20)",
		`strategies[0].exits.intrabar_path: "zigzag" must be direction, olhc or ohlc (bt.yaml:21)`,
		`strategies[0].exits.order: "stop" must be market or limit (bt.yaml:22)`,
		"strategies[0].protections.cooldown: -1m0s must not be negative (bt.yaml:24)",
		"strategies[0].protections.stoploss_guard.stops: 0 must be at least 1 (bt.yaml:25)",
		"strategies[0].protections.stoploss_guard.lock: must be a positive duration (bt.yaml:25)",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("err:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

// poll.price is checked against the IP weight budget (300 per 10s, half
// of it for price polling) for the symbols of instances with exits: a
// ticker price request weighs 10, and a window holds floor(10s/p)+1 polls.
func TestPricePollWithinTheBudget(t *testing.T) {
	t.Parallel()
	cfg := func(price string, symbols string) string {
		return "mode: live\nexchange: {base_url: \"https://api.example.com\"}\nstrategies:\n" +
			"  - {name: cross, id: a, symbols: [BTCUSDT], interval: 1h, exits: {stop_loss: 2%}}\n" +
			"  - {name: cross, id: b, symbols: [" + symbols + "], interval: 1h, exits: {stop_loss: 3%}}\n" +
			"  - {name: cross, id: c, symbols: [XRPUSDT], interval: 1h}\npoll: {price: " + price + "}\n"
	}
	// One symbol every second: 11 polls × 10 = 110 of 150.
	if _, err := Load([]byte(cfg("1s", "BTCUSDT")), nil, nil, testRegistry()); err != nil {
		t.Errorf("one symbol at 1s: %v", err)
	}
	// Three symbols (XRPUSDT has no exits) every 3s: 4 polls × 30 = 120.
	if _, err := Load([]byte(cfg("3s", "ETHUSDT, SOLUSDT")), nil, nil, testRegistry()); err != nil {
		t.Errorf("three symbols at 3s: %v", err)
	}
	_, err := Load([]byte(cfg("2s", "ETHUSDT, SOLUSDT")), nil, nil, testRegistry())
	if want := "poll.price: every 2s polls the last price of 3 symbols with exits (BTCUSDT, ETHUSDT, SOLUSDT) at weight 10 each: up to 180 of the IP weight budget's 300 per 10s, of which price polling may use 150; poll every 3s or more, or give fewer symbols exits"; err == nil || err.Error() != want {
		t.Errorf("three symbols at 2s: err\n%v\nwant\n%s", err, want)
	}
	many := "A1USDT, A2USDT, A3USDT, A4USDT, A5USDT, A6USDT, A7USDT, A8USDT, A9USDT, B1USDT, B2USDT, B3USDT, B4USDT, B5USDT, B6USDT"
	_, err = Load([]byte(cfg("1m", many)), nil, nil, testRegistry())
	if want := "poll.price: every 1m0s polls the last price of 16 symbols with exits (A1USDT, A2USDT, A3USDT, A4USDT, A5USDT, A6USDT, A7USDT, A8USDT, A9USDT, B1USDT, B2USDT, B3USDT, B4USDT, B5USDT, B6USDT, BTCUSDT) at weight 10 each: up to 160 of the IP weight budget's 300 per 10s, of which price polling may use 150 even once a window; give fewer symbols exits"; err == nil || err.Error() != want {
		t.Errorf("sixteen symbols: err\n%v\nwant\n%s", err, want)
	}
	// A replay polls nothing: poll.* is refused there anyway, not checked.
}
