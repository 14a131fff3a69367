package backtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

func lockText(ls []strategy.Lock) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s %s %s %s-%s", l.Instance, l.Symbol, l.Reason, l.From.Format("15:04"), l.Until.Format("15:04"))
	}
	return strings.Join(parts, "; ")
}

// runProtected buys on bars 0, 3 and 4 with a 2% stop and the given
// protections over bars where bar 2 gaps through the stop.
func runProtected(t *testing.T, p strategy.Protections, buys ...int) (*Result, *script) {
	t.Helper()
	s := &script{orders: map[int][]exchange.NewOrder{}}
	for _, i := range buys {
		s.orders[i] = []exchange.NewOrder{market("BTCUSDT", exchange.SideBuy, "1")}
	}
	bars := []exchange.Kline{hbar(0, "100", "101", "99", "100"), hbar(1, "100", "101", "99.5", "100.5"),
		hbar(2, "95", "96", "94", "95.5"), hbar(3, "97", "98", "96", "97"), hbar(4, "97", "98", "96", "97"),
		hbar(5, "97", "98", "96", "97")}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Instances: []strategy.Config{{Name: "script", ID: "s", Symbols: []string{"BTCUSDT"}, Interval: "1h",
			Exits: &strategy.Exits{StopLoss: lvl("2%")}, Protections: &p}}})
	return res, s
}

// A 2h cooldown after the stop-out that filled at 03:00 locks the symbol
// until 05:00: the buy at bar 3's close (04:00) is refused, the one at bar
// 4's close (05:00) goes through and fills at bar 5's open.
func TestCooldownLocksAndReleases(t *testing.T) {
	t.Parallel()
	res, s := runProtected(t, strategy.Protections{Cooldown: 2 * time.Hour}, 0, 3, 4)
	if got := lockText(res.Locks); got != "s BTCUSDT cooldown 03:00-05:00" {
		t.Errorf("locks %s", got)
	}
	if got := strings.Join(s.errs, ","); got != "protection" {
		t.Errorf("refusals %q", got)
	}
	want := "BTCUSDT B 1@100 fee 0.002 BTC maker=false 01:00; BTCUSDT S 0.998@97 fee 0.193612 USDT maker=false 03:00; " +
		"BTCUSDT B 1@97 fee 0.002 BTC maker=false 05:00"
	if got := fillText(res.Fills); got != want {
		t.Errorf("fills\n got %s\nwant %s", got, want)
	}
	if res.Metrics.Rejected["protection"] != 1 {
		t.Errorf("orders rejected %v", res.Metrics.Rejected)
	}
}

// The stop-loss guard counts stop-outs in a window: one stop within 6h
// with stops: 1 locks for 1h (until 04:00), so the buy at 04:00 passes;
// with stops: 2 nothing locks.
func TestStopLossGuard(t *testing.T) {
	t.Parallel()
	res, s := runProtected(t, strategy.Protections{StopLossGuard: strategy.StopLossGuard{Stops: 1, Window: 6 * time.Hour, Lock: time.Hour}}, 0, 3)
	if got := lockText(res.Locks); got != "s BTCUSDT stoploss_guard 03:00-04:00" || len(s.errs) != 0 {
		t.Errorf("locks %s, refusals %v", got, s.errs)
	}
	res, _ = runProtected(t, strategy.Protections{StopLossGuard: strategy.StopLossGuard{Stops: 2, Window: 6 * time.Hour, Lock: time.Hour}}, 0, 3)
	if got := lockText(res.Locks); got != "" {
		t.Errorf("locks with 2 stops: %s", got)
	}
}

// The trade lost −3.387612 on a cost of 100: −3.387612%. A drawdown lock
// at 3 points locks; at 4 it does not. A low-profit lock for one trade
// below 0% locks.
func TestDrawdownAndLowProfitLocks(t *testing.T) {
	t.Parallel()
	dd := func(pct string) strategy.Protections {
		return strategy.Protections{MaxDrawdown: strategy.DrawdownLock{Percent: dec(pct), Window: 24 * time.Hour, Lock: 3 * time.Hour}}
	}
	if res, s := runProtected(t, dd("3"), 0, 3); lockText(res.Locks) != "s BTCUSDT max_drawdown 03:00-06:00" || strings.Join(s.errs, ",") != "protection" {
		t.Errorf("3 points: %s %v", lockText(res.Locks), s.errs)
	}
	if res, _ := runProtected(t, dd("4"), 0, 3); lockText(res.Locks) != "" {
		t.Errorf("4 points: %s", lockText(res.Locks))
	}
	lp := strategy.Protections{LowProfit: strategy.LowProfitLock{Trades: 1, Percent: dec("0"), Window: 24 * time.Hour, Lock: time.Hour}}
	if res, _ := runProtected(t, lp, 0); lockText(res.Locks) != "s BTCUSDT low_profit 03:00-04:00" {
		t.Errorf("low profit: %s", lockText(res.Locks))
	}
}
