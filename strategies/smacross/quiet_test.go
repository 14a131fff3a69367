package smacross_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

// TestQuietSignalsLogTheSame backtests the embedded sample with a balance
// too small for any buy, with the fast path and stepwise, logging at
// Info: Skip leaves the signal bars that log to OnKline, so the log lines
// are the same both ways (one a cross up), and so is the result; at
// Warn nothing is logged and Skip takes those bars too, with the same
// result.
func TestQuietSignalsLogTheSame(t *testing.T) {
	t.Parallel()
	data, err := session.LoadSeries(config.Data{Source: "sample"}, exchange.Interval60m, []string{"BTCUSDT"}, [2]time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	spec := func(level slog.Level, buf *bytes.Buffer) backtest.Spec {
		h := slog.NewTextHandler(buf, &slog.HandlerOptions{Level: level, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})
		return backtest.Spec{
			Instances: []strategy.Config{{Name: "smacross", ID: "btc", Symbols: []string{"BTCUSDT"}, Interval: "1h",
				Params: map[string]any{"fast": 10, "slow": 30, "fraction": "0.95"}}},
			Registry: strategies.NewRegistry(), Interval: exchange.Interval60m, Data: data,
			Balances: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(3)}, Logger: slog.New(h)}
	}
	var logs [2]bytes.Buffer
	for i, stepwise := range []bool{false, true} {
		s := spec(slog.LevelInfo, &logs[i])
		s.Stepwise = stepwise
		res, err := backtest.Run(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Fills.Len() != 0 {
			t.Fatalf("%d fills", res.Fills.Len())
		}
	}
	fastLog, slowLog := logs[0].String(), logs[1].String()
	if n := strings.Count(fastLog, `msg="buy signal skipped: amount below the minimum" instance=btc symbol=BTCUSDT amount=2.85`); n < 50 || fastLog != slowLog {
		t.Fatalf("%d buy signals logged; logs differ: %v\nfast:\n%.500s\nstepwise:\n%.500s", n, fastLog != slowLog, fastLog, slowLog)
	}
	var quiet bytes.Buffer
	if err := backtest.VerifyFastPath(t.Context(), spec(slog.LevelWarn, &quiet)); err != nil {
		t.Fatal(err)
	}
	if quiet.Len() != 0 {
		t.Fatalf("logged at warn:\n%s", quiet.String())
	}
}
