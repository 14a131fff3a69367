package config

import (
	"strings"
	"testing"
	"time"
)

// Enumerations are read in any case, durations take days, and every
// problem names its source: the file's line or the environment variable.
func TestInspectSourcesAndForms(t *testing.T) {
	t.Parallel()
	text := "mode: Paper-Replay\nlog: {level: DEBUG, format: JSON}\nsim: {fill: Touch, market: CLOSE}\nstore: {sync: FULL}\n" +
		"daemon: {unknown_orders: Cancel, clock_sync: 1d, shutdown_timeout: 1d12h}\ndata: {source: Sample}\n"
	c, err := Inspect("bot.yaml", []byte(text), nil, nil, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != ModePaperReplay || c.Log.Level != "debug" || c.Log.Format != "json" || c.Sim.Fill != "touch" ||
		c.Sim.Market != "close" || c.Store.Sync != "full" || c.Daemon.UnknownOrders != UnknownCancel || c.Data.Source != "sample" {
		t.Errorf("not normalised: %+v", c)
	}
	if c.Daemon.ClockSync != 24*time.Hour || c.Daemon.ShutdownTimeout != 36*time.Hour {
		t.Errorf("durations %v %v", c.Daemon.ClockSync, c.Daemon.ShutdownTimeout)
	}
	if m := ModeOf([]byte(text), nil); m != ModePaperReplay {
		t.Errorf("ModeOf = %q", m)
	}

	text = "mode: backtest\nlog:\n  level: loud\n  format: AKIA1234567890SECRETVALUE\ndata: {sorce: csv}\n"
	_, err = Inspect("/some/dir/bot.yaml", []byte(text),
		[]string{"SPOTBOT_RISK__MAX_DRAWDOWNN=0.2", "SPOTBOT_EXCHANGE__TIMEOUT=sk-live-0123456789", "SPOTBOT_SIM_SECRET=x"},
		map[string]any{"data.from": "yesterday"}, testRegistry())
	want := strings.Join([]string{
		"exchange.timeout: is not a duration (such as 90s, 15m, 1h30m or 2d) (from SPOTBOT_EXCHANGE__TIMEOUT)",
		"data.sorce: unknown key; did you mean source? (bot.yaml:5)",
		"risk.max_drawdownn: unknown key; did you mean max_drawdown? (from SPOTBOT_RISK__MAX_DRAWDOWNN)",
		`data.from: "yesterday" is neither YYYY-MM-DD nor RFC 3339 (from a flag)`,
		"account.balances: a backtest needs a starting balance, for example account.balances.USDT: 10000 (without one no order can be placed)",
		`log.level: "loud" must be debug, info, warn or error (bot.yaml:3)`,
		"log.format: must be text or json (bot.yaml:4)",
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("Inspect:\n%v\nwant\n%s", err, want)
	}
	// Load gives no lines (it has no file name), the environment still.
	_, err = Load([]byte("log: {level: loud}\n"), []string{"SPOTBOT_LOG__FORMAT=xml"}, nil, testRegistry())
	if want := "log.level: \"loud\" must be debug, info, warn or error\nlog.format: \"xml\" must be text or json (from SPOTBOT_LOG__FORMAT)"; err == nil || err.Error() != want {
		t.Errorf("Load:\n%v\nwant\n%s", err, want)
	}
}
