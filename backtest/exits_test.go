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

// lvl parses an exit level of a test.
func lvl(s string) strategy.Level {
	l, err := strategy.ParseLevel(s)
	if err != nil {
		panic(err)
	}
	return l
}

// runExits buys 1 BTC at market on bar 0 (it fills at bar 1's open) and
// lets the runtime's exits close the position; it returns the fills and
// the trades as text.
func runExits(t *testing.T, ex strategy.Exits, iv exchange.Interval, bars []exchange.Kline) (string, string, *script) {
	t.Helper()
	s := &script{orders: map[int][]exchange.NewOrder{0: {market("BTCUSDT", exchange.SideBuy, "1")}}}
	res := runScript(t, s, Spec{Interval: iv, Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Instances: []strategy.Config{{Name: "script", ID: "s", Symbols: []string{"BTCUSDT"}, Interval: "1h", Exits: &ex}}})
	return fillText(res.Fills), tradeText(res.Trades), s
}

func tradeText(ts []Trade) string {
	parts := make([]string, len(ts))
	for i, tr := range ts {
		parts[i] = fmt.Sprintf("%s %s→%s %s@%s→%s pnl %s %s", tr.Symbol, tr.EntryTime.Format("15:04"), tr.ExitTime.Format("15:04"),
			tr.Qty, tr.EntryPrice, tr.ExitPrice, tr.PnL, tr.ExitReason)
	}
	return strings.Join(parts, "; ")
}

// A bar that opens below the stop triggers it at its open: 2% below the
// entry of 100 is 98; bar 2 opens at 95, so the exit is placed at bar 2's
// close and fills at bar 3's open, 97. Proceeds 0.998 × 97 = 96.806, fee
// 0.193612: PnL 96.806 − 100 − 0.193612 = −3.387612.
func TestExitGapThroughStop(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{hbar(0, "100", "101", "99", "100"), hbar(1, "100", "101", "99.5", "100.5"),
		hbar(2, "95", "96", "94", "95.5"), hbar(3, "97", "98", "96", "97")}
	fills, trades, _ := runExits(t, strategy.Exits{StopLoss: lvl("2%")}, "", bars)
	if want := "BTCUSDT B 1@100 fee 0.002 BTC maker=false 01:00; BTCUSDT S 0.998@97 fee 0.193612 USDT maker=false 03:00"; fills != want {
		t.Errorf("fills\n got %s\nwant %s", fills, want)
	}
	if want := "BTCUSDT 01:00→03:00 0.998@100→97 pnl -3.387612 stop_loss"; trades != want {
		t.Errorf("trades\n got %s\nwant %s", trades, want)
	}
}

// A bar that reaches both the stop (98) and the target (103): the path
// decides. A bar closing up is walked open-low-high-close (the stop
// first), one closing down open-high-low-close (the target first), unless
// intrabar_path fixes the order.
func TestExitStopAndTargetInOneBar(t *testing.T) {
	t.Parallel()
	up := hbar(2, "100", "104", "97", "102")
	down := hbar(2, "100", "104", "97", "99")
	for _, c := range []struct {
		name, path string
		bar        exchange.Kline
		want       string
	}{
		{"up bar, direction", "", up, "stop_loss"},
		{"down bar, direction", "", down, "take_profit"},
		{"down bar, olhc", strategy.PathOLHC, down, "stop_loss"},
		{"up bar, ohlc", strategy.PathOHLC, up, "take_profit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bars := []exchange.Kline{hbar(0, "100", "101", "99", "100"), hbar(1, "100", "101", "99.5", "100.5"), c.bar,
				hbar(3, "101", "102", "100", "101")}
			_, trades, _ := runExits(t, strategy.Exits{StopLoss: lvl("2%"), TakeProfit: lvl("3%"), IntrabarPath: c.path}, "", bars)
			// Either way the sell fills at bar 3's open, 101: 0.998 × 101 =
			// 100.798, fee 0.201596, PnL 0.596404.
			if want := "BTCUSDT 01:00→03:00 0.998@100→101 pnl 0.596404 " + c.want; trades != want {
				t.Errorf("trades\n got %s\nwant %s", trades, want)
			}
		})
	}
}

// A trailing stop activated at 2% above the entry (102) at 1% below the
// highest price: bar 1 peaks at 101.5 (not active, though its low is far
// below 1% under its high), bar 2 reaches 104 (active, stop 102.96) and
// closes above it, bar 3 falls to 102.5: trailing_stop, filled at bar 4's
// open 102.
func TestExitTrailingActivation(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{hbar(0, "100", "101", "99", "100"), hbar(1, "100", "101.5", "99.6", "101"),
		hbar(2, "101", "104", "101", "103.5"), hbar(3, "103", "103.2", "102.5", "102.6"), hbar(4, "102", "102", "101", "101")}
	_, trades, _ := runExits(t, strategy.Exits{TrailingStop: strategy.Trailing{Activation: lvl("2%"), Distance: lvl("1%")}}, "", bars)
	// 0.998 × 102 = 101.796, fee 0.203592: PnL 1.592408.
	if want := "BTCUSDT 01:00→04:00 0.998@100→102 pnl 1.592408 trailing_stop"; trades != want {
		t.Errorf("trades\n got %s\nwant %s", trades, want)
	}
}

// mbar is half-hour bar i.
func mbar(i int, o, h, l, c string) exchange.Kline {
	t := t0.Add(time.Duration(i) * 30 * time.Minute)
	return exchange.Kline{OpenTime: t, Open: dec(o), High: dec(h), Low: dec(l), Close: dec(c), Volume: dec("1"),
		CloseTime: t.Add(30*time.Minute - time.Millisecond)}
}

// timeframe_detail resolves a bar that reached both levels: the hour from
// 01:00 (open 100, high 104, low 97, close 102) closes up, so on its own
// it is walked low first and stops out (98); its half hours show the
// target (103) came first, at 01:00-01:30.
func TestExitTimeframeDetail(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{mbar(0, "100", "101", "99", "100"), mbar(1, "100", "101", "99", "100"),
		mbar(2, "100", "104", "99.5", "103"), mbar(3, "103", "103", "97", "102"),
		mbar(4, "101", "102", "100", "101"), mbar(5, "101", "102", "100", "101")}
	ex := strategy.Exits{StopLoss: lvl("2%"), TakeProfit: lvl("3%")}
	// Without detail the exit is placed at 02:00 and fills at 101:
	// 100.798 − 100 − 0.201596.
	if _, trades, _ := runExits(t, ex, exchange.Interval30m, bars); trades != "BTCUSDT 01:00→02:00 0.998@100→101 pnl 0.596404 stop_loss" {
		t.Errorf("without detail: %s", trades)
	}
	// With 30m detail it is placed at 01:30 and fills at 103: 0.998 × 103
	// = 102.794, fee 0.205588, PnL 2.588412.
	ex.TimeframeDetail = "30m"
	if _, trades, _ := runExits(t, ex, exchange.Interval30m, bars); trades != "BTCUSDT 01:00→01:30 0.998@100→103 pnl 2.588412 take_profit" {
		t.Errorf("with detail: %s", trades)
	}
}

// max_hold 2h: the entry fills at 01:00; at bar 1's close (02:00) it was
// held an hour, at bar 2's close two: the exit fills at bar 3's open.
func TestExitMaxHold(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{hbar(0, "100", "101", "99", "100"), hbar(1, "100", "101", "99", "100"),
		hbar(2, "100", "101", "99", "100"), hbar(3, "100", "101", "99", "100"), hbar(4, "100", "101", "99", "100")}
	// 0.998 × 100 = 99.8, fee 0.1996: PnL −0.3996.
	if _, trades, _ := runExits(t, strategy.Exits{MaxHold: 2 * time.Hour}, "", bars); trades != "BTCUSDT 01:00→03:00 0.998@100→100 pnl -0.3996 max_hold" {
		t.Errorf("trades %s", trades)
	}
}

// Break-even: a 5% stop (95) moves to the entry (100) once the price
// reached 2% above it (102, at bar 1's high of 103); bar 2 dips to 99.9
// and stops out, which the 95 stop would not have.
func TestExitBreakEven(t *testing.T) {
	t.Parallel()
	bars := []exchange.Kline{hbar(0, "100", "101", "99", "100"), hbar(1, "100", "103", "99", "102"),
		hbar(2, "101", "101", "99.9", "100"), hbar(3, "100.5", "101", "100", "100.5")}
	// 0.998 × 100.5 = 100.299, fee 0.200598: PnL 0.098402.
	if _, trades, _ := runExits(t, strategy.Exits{StopLoss: lvl("5%"), BreakEven: lvl("2%")}, "", bars); trades != "BTCUSDT 01:00→03:00 0.998@100→100.5 pnl 0.098402 stop_loss" {
		t.Errorf("trades %s", trades)
	}
}

// An ATR stop: with a period of 2 and every bar's true range 2, the ATR
// at the entry is 2 and "2atr" puts the stop at 100 − 4 = 96; bar 3's low
// 96.5 does not reach it, bar 4's 95.5 does.
func TestExitATRStop(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{2: {market("BTCUSDT", exchange.SideBuy, "1")}}}
	bars := []exchange.Kline{hbar(0, "100", "101", "99", "100"), hbar(1, "100", "101", "99", "100"), hbar(2, "100", "101", "99", "100"),
		hbar(3, "100", "101", "96.5", "100"), hbar(4, "100", "101", "95.5", "100"), hbar(5, "99", "100", "98", "99")}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": bars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")},
		Instances: []strategy.Config{{Name: "script", ID: "s", Symbols: []string{"BTCUSDT"}, Interval: "1h",
			Exits: &strategy.Exits{StopLoss: lvl("2atr"), ATRPeriod: 2}}}})
	// 0.998 × 99 = 98.802, fee 0.197604: PnL −1.395604.
	if got := tradeText(res.Trades); got != "BTCUSDT 03:00→05:00 0.998@100→99 pnl -1.395604 stop_loss" {
		t.Errorf("trades %s", got)
	}
}

// Round trips with the fee paid in the base asset: the quantity is net of
// it (0.998 of the 1 BTC bought), so (exit − entry) × qty − fees is the
// PnL: (110 − 102) × 0.998 − (0.002 × 102 + 0.21956) = 7.56044.
func TestRoundTripNetOfBaseFees(t *testing.T) {
	t.Parallel()
	s := &script{orders: map[int][]exchange.NewOrder{
		0: {market("BTCUSDT", exchange.SideBuy, "1")},
		2: {market("BTCUSDT", exchange.SideSell, "0.998")},
	}}
	res := runScript(t, s, Spec{Data: seriesOf(t, map[string][]exchange.Kline{"BTCUSDT": fourBars}),
		Symbols: []exchange.SymbolInfo{rulesFor("BTCUSDT", "BTC")}, Balances: map[string]decimal.Decimal{"USDT": dec("1000")}})
	tr := res.Trades[0]
	if tr.Qty.String() != "0.998" || tr.Fees.String() != "0.42356" || tr.PnL.String() != "7.56044" {
		t.Fatalf("trade qty %s fees %s pnl %s", tr.Qty, tr.Fees, tr.PnL)
	}
	if got := tr.ExitPrice.Sub(tr.EntryPrice).Mul(tr.Qty).Sub(tr.Fees); !got.Equal(tr.PnL) {
		t.Errorf("(exit − entry) × qty − fees = %s, PnL %s", got, tr.PnL)
	}
}
