package backtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// exits.order: limit sells with an IMMEDIATE_OR_CANCEL limit 1% below the
// last price, through the simulator's slippage (1% here). The buy fills at
// bar 1's open 100 slipped to 101: stop 2% below, 98.98. Bar 2 opens at 95
// (the stop); at its close, 95.5, the exit is a limit at 94.545, rounded up
// to 94.55. Bar 3 opens at 94, below the limit: cancelled. Bar 3 still
// stands below the stop; at its close, 94.5, the limit is 93.555 → 93.56.
// Bar 4 opens at 95, slipped to 94.05, within the limit: sold 0.998 at
// 94.05 = 93.8619, fee 0.1877238; PnL 93.8619 − 101 − 0.1877238.
func TestExitLimitOrder(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{hbar(0, "100", "101", "99", "100"), hbar(1, "100", "101", "99.5", "100.5"),
		hbar(2, "95", "96", "94", "95.5"), hbar(3, "94", "95", "93.5", "94.5"), hbar(4, "95", "96", "94", "95")}
	ex := strategy.Exits{StopLoss: lvl("2%"), Order: strategy.ExitOrderLimit, LimitOffset: lvl("1%")}
	s := &finalWatcher{script: script{orders: map[int][]exchange.NewOrder{0: {market("BTCUSDT", exchange.SideBuy, "1")}}}}
	s.seen = map[string]int{}
	reg := strategy.NewRegistry()
	reg.Register("watch", func(strategy.Config) (strategy.Strategy, error) { return s, nil })
	res, err := Run(t.Context(), Spec{Registry: reg, Interval: exchange.Interval60m, Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Fill:      FillModel{SlippageBps: dec("100")},
		Instances: []strategy.Config{{Name: "watch", ID: "w", Symbols: []string{"BTCUSDT"}, Interval: "1h", Exits: &ex}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fillText(res.Fills), "BTCUSDT B 1@101 fee 0.002 BTC maker=false 01:00; BTCUSDT S 0.998@94.05 fee 0.1877238 USDT maker=false 04:00"; got != want {
		t.Errorf("fills\n got %s\nwant %s", got, want)
	}
	if got, want := tradeText(res.Trades), "BTCUSDT 01:00→04:00 0.998@101→94.05 pnl -7.3258238 stop_loss"; got != want {
		t.Errorf("trades\n got %s\nwant %s", got, want)
	}
	if got, want := strings.Join(s.final, "; "), "BUY MARKET 1@0 FILLED ; SELL IMMEDIATE_OR_CANCEL 0.998@94.55 CANCELED stop_loss; SELL IMMEDIATE_OR_CANCEL 0.998@93.56 FILLED stop_loss"; got != want {
		t.Errorf("orders\n got %s\nwant %s", got, want)
	}
}

// finalWatcher is a script that records its orders as they end.
type finalWatcher struct {
	script
	final []string
}

func (w *finalWatcher) OnOrder(_ strategy.Context, o strategy.Order) error {
	if o.Status.Final() {
		w.final = append(w.final, fmt.Sprintf("%s %s %s@%s %s %s", o.Side, o.Type, o.Quantity, o.Price, o.Status, o.Reason))
	}
	return nil
}

// exits.order is checked with the exits: a word other than market or
// limit, an offset without limit, an ATR offset.
func TestExitOrderValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ex   strategy.Exits
		want string
	}{
		{strategy.Exits{StopLoss: lvl("2%"), Order: "stop"}, `exits.order: "stop" must be market or limit`},
		{strategy.Exits{StopLoss: lvl("2%"), LimitOffset: lvl("1%")}, "exits.limit_offset: only with order: limit"},
		{strategy.Exits{StopLoss: lvl("2%"), Order: "limit", LimitOffset: lvl("1atr")}, "exits.limit_offset: 1atr must be a percent of the last price or an amount"},
		{strategy.Exits{StopLoss: lvl("2%"), Order: "limit", LimitOffset: lvl("100%")}, "exits.limit_offset: 100% must be below 100%"},
		{strategy.Exits{StopLoss: lvl("2%"), Order: "limit", LimitOffset: lvl("-1")}, "exits.limit_offset: -1 must not be negative"},
	} {
		if err := c.ex.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: err %v, want %s", c.ex, err, c.want)
		}
	}
	if err := (strategy.Exits{StopLoss: lvl("2%"), Order: "limit", LimitOffset: lvl("0.25")}).Validate(); err != nil {
		t.Errorf("limit with an amount: %v", err)
	}
}
