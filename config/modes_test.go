package config

import (
	"strings"
	"testing"
)

// goodDaemon is a valid live configuration, for the daemon's and the
// polling's keys.
const goodDaemon = `
mode: live
exchange: {base_url: "https://api.example.com"}
strategies:
  - {name: cross, id: a, symbols: [BTCUSDT], interval: 1h, params: {fast: 5, slow: 20}}
`

// A key the mode cannot honour is an error naming the key, the mode and
// why; flags (overrides) are the command's own and not checked.
func TestUnhonouredOptions(t *testing.T) {
	t.Parallel()
	_, err := Load([]byte(goodDaemon+"sim: {slippage_bps: 5}\naccount: {balances: {USDT: 100}}\ndata: {speed: 10}\n"),
		[]string{"SPOTBOT_REPORT__DIR=out"}, map[string]any{"report.html": false}, testRegistry())
	want := []string{
		"account.balances.USDT: not used in live mode (the live account's balances are the exchange's, the simulated server's are under server.accounts); remove it or change mode",
		"data.speed: not used in live mode (only paper-replay and the simulated server pace a replay); remove it or change mode",
		"report.dir: not used in live mode (only backtests write reports); remove it or change mode (from SPOTBOT_REPORT__DIR)",
		"sim.slippage_bps: not used in live mode (only the simulated exchange has a fill model); remove it or change mode",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("err:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	_, err = Load([]byte(good+"poll: {orders: 1s}\n"), []string{"SPOTBOT_DATA__SPEED=2"}, nil, testRegistry())
	want = []string{
		"data.speed: not used in backtest mode (only paper-replay and the simulated server pace a replay); remove it or change mode (from SPOTBOT_DATA__SPEED)",
		"poll.orders: not used in backtest mode (only live and paper poll the exchange); remove it or change mode",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("err:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	// What a mode honours passes.
	if _, err := Load([]byte(strings.Replace(good, "mode: backtest", "mode: paper-replay", 1)+"daemon: {clock_sync: 1m}\n"),
		[]string{"SPOTBOT_DATA__SPEED=60"}, nil, testRegistry()); err != nil {
		t.Errorf("paper-replay: %v", err)
	}
}
