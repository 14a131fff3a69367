package simserver

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

func TestReplayPacesBarsBySpeed(t *testing.T) {
	t.Parallel()
	x, err := sim.New(sim.Options{Start: exchangetest.T0.Add(-time.Hour), Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	bars := map[string][]exchange.Kline{
		"BTCUSDT": {exchangetest.Bar(0, "100", "101", "99", "100"), exchangetest.Bar(1, "100", "102", "99", "101"), exchangetest.Bar(2, "101", "103", "100", "102")},
		"XYZUSDT": {exchangetest.Bar(1, "1", "1", "1", "1")},
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	real0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var seen []string
	clk := exchangetest.NewStepClock(real0)
	clk.OnStep = func(now time.Time) {
		// Speed 60: a minute of market per second of clock.
		switch el := now.Sub(real0); el {
		case 900 * time.Millisecond, 1500 * time.Millisecond, 2 * time.Second, 3 * time.Second:
			btc, _ := x.Klines(exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval1m})
			xyz, _ := x.Klines(exchange.KlinesRequest{Symbol: "XYZUSDT", Interval: exchange.Interval1m})
			seen = append(seen, fmt.Sprintf("%s: %d+%d bars", el, len(btc), len(xyz)))
		case 5 * time.Second:
			cancel()
		}
	}
	err = Replay(ctx, x, ReplayOptions{Bars: bars, Interval: exchange.Interval1m, Speed: 60, Clock: clk})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("replay ended with %v", err)
	}
	// The state at each step is read before the replay loop runs again, so
	// a bar due at the step shows at the next one.
	want := []string{"900ms: 0+0 bars", "1.5s: 1+0 bars", "2s: 1+0 bars", "3s: 2+1 bars"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("replay steps %v, want %v", seen, want)
	}
	// The last step before the cancel, at 4.9 s, moved the clock to 4m54s.
	if got := x.Now().Sub(exchangetest.T0); got != 4*time.Minute+54*time.Second {
		t.Errorf("simulated clock %s after the start, want 4m54s", got)
	}
	if last, _ := x.LastPrice("BTCUSDT"); last.String() != "102" {
		t.Errorf("last price %s", last)
	}
}

func TestReplayAllAtOnce(t *testing.T) {
	t.Parallel()
	x, err := sim.New(sim.Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	clk := exchangetest.NewStepClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	clk.OnStep = func(time.Time) { cancel() }
	bars := map[string][]exchange.Kline{"BTCUSDT": {exchangetest.Bar(0, "100", "101", "99", "100"), exchangetest.Bar(1, "100", "102", "99", "101")}}
	if err := Replay(ctx, x, ReplayOptions{Bars: bars, Interval: exchange.Interval1m, Clock: clk}); !errors.Is(err, context.Canceled) {
		t.Fatalf("replay ended with %v", err)
	}
	if ks, _ := x.Klines(exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval1m}); len(ks) != 2 {
		t.Errorf("%d bars fed, want 2", len(ks))
	}
	bad := map[string][]exchange.Kline{"NOPE": {exchangetest.Bar(0, "1", "1", "1", "1")}}
	if err := Replay(t.Context(), x, ReplayOptions{Bars: bad, Interval: exchange.Interval1m, Clock: clk}); !exchange.HasCode(err, exchange.CodeBadSymbol) {
		t.Errorf("unknown symbol: %v", err)
	}
	if err := Replay(t.Context(), x, ReplayOptions{Bars: bars, Interval: "1h", Clock: clk}); err == nil {
		t.Error("interval 1h accepted")
	}
}

func TestSplitWarmup(t *testing.T) {
	t.Parallel()
	bars := map[string][]exchange.Kline{
		"BTCUSDT": {exchangetest.Bar(0, "1", "1", "1", "1"), exchangetest.Bar(1, "1", "1", "1", "1"), exchangetest.Bar(2, "1", "1", "1", "1")},
		"XYZUSDT": {exchangetest.Bar(1, "1", "1", "1", "1"), exchangetest.Bar(3, "1", "1", "1", "1")},
	}
	warm, rest := SplitWarmup(bars, exchange.Interval1m, 2)
	got := fmt.Sprint(len(warm["BTCUSDT"]), len(warm["XYZUSDT"]), len(rest["BTCUSDT"]), len(rest["XYZUSDT"]))
	if got != "2 1 1 1" {
		t.Errorf("warm BTC, XYZ and rest BTC, XYZ: %s, want 2 1 1 1", got)
	}
	if warm, rest := SplitWarmup(bars, exchange.Interval1m, 0); len(warm) != 0 || len(rest) != 2 {
		t.Errorf("no warm-up: %d %d", len(warm), len(rest))
	}
}
