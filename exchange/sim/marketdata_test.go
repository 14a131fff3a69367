package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func levels(ls []exchange.PriceLevel) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(l.Price.String() + "x" + l.Qty.String())
	}
	return b.String()
}

func optStr(o exchange.OptDecimal) string {
	if !o.Valid {
		return "-"
	}
	return o.Decimal.String()
}

// marketScene is a market with resting orders of two accounts, one taker
// trade and one bar filling two bids:
//
//	bar 0 at 20000; master bids 0.05@19995 and 0.1@19990, offers 0.2@20500;
//	other buys 0.3@20500 (0.2 from master's offer, 0.1 from the market);
//	bar 1 (20500, 20500, 19980, 20100) fills both bids.
func marketScene(t *testing.T) *Exchange {
	t.Helper()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate,
		Book: BookShape{Levels: 2, SpreadBps: dec("10"), StepBps: dec("10"), LevelQuote: dec("10000")}})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
	other := x.CreateAccount("other")
	must(x.Credit(x.MasterUID(), "USDT", dec("10000")))
	must(x.Credit(x.MasterUID(), "BTC", dec("1")))
	must(x.Credit(other, "USDT", dec("10000")))
	ctx := context.Background()
	lim := func(side exchange.Side, q, p string) exchange.NewOrder {
		return exchange.NewOrder{Symbol: "BTCUSDT", Side: side, Type: exchange.TypeLimit, Quantity: dec(q), Price: dec(p)}
	}
	for _, o := range []exchange.NewOrder{lim(exchange.SideBuy, "0.1", "19990"), lim(exchange.SideBuy, "0.05", "19995"), lim(exchange.SideSell, "0.2", "20500")} {
		if _, err := x.Master().PlaceOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func TestDepthMergesAccountsAndSyntheticLevels(t *testing.T) {
	t.Parallel()
	x := marketScene(t)
	b, err := x.Depth("BTCUSDT", 3)
	if err != nil {
		t.Fatal(err)
	}
	// Synthetic levels at 20000 × (1 ∓ 0.0005) and (1 ∓ 0.0015), each worth
	// 10000 USDT; master's 0.1@19990 merges into the first bid level.
	if got, want := levels(b.Bids), "19995x0.05 19990x0.6002 19970x0.5007"; got != want {
		t.Errorf("bids %s, want %s", got, want)
	}
	if got, want := levels(b.Asks), "20010x0.4997 20030x0.4992 20500x0.2"; got != want {
		t.Errorf("asks %s, want %s", got, want)
	}
	if b.LastUpdateID != 4 { // one kline, three orders
		t.Errorf("lastUpdateId %d, want 4", b.LastUpdateID)
	}
	bt, _ := x.BookTicker("BTCUSDT")
	if got := optStr(bt.BidPrice) + " " + optStr(bt.BidQty) + " " + optStr(bt.AskPrice) + " " + optStr(bt.AskQty); got != "19995 0.05 20010 0.4997" {
		t.Errorf("book ticker %s", got)
	}
	// Without synthetic levels only the accounts' orders show.
	x.opts.Book.Levels = -1
	b, _ = x.Depth("BTCUSDT", 0)
	if got := levels(b.Bids) + " | " + levels(b.Asks); got != "19995x0.05 19990x0.1 | 20500x0.2" {
		t.Errorf("own book %s", got)
	}
	if _, err := x.Depth("BTCUSDT", 5001); !exchange.HasCode(err, exchange.CodeParameterError) {
		t.Errorf("limit 5001: %v", err)
	}
	if _, err := x.Depth("NOPE", 10); !exchange.HasCode(err, exchange.CodeBadSymbol) {
		t.Errorf("unknown symbol: %v", err)
	}
}

func tradeScene(t *testing.T) *Exchange {
	t.Helper()
	x := marketScene(t)
	other := x.As("1001")
	if _, err := other.PlaceOrder(context.Background(), exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy,
		Type: exchange.TypeLimit, Quantity: dec("0.3"), Price: dec("20500")}); err != nil {
		t.Fatal(err)
	}
	if err := x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(1, "20500", "20500", "19980", "20100")); err != nil {
		t.Fatal(err)
	}
	return x
}

func TestPublicAndAggregateTrades(t *testing.T) {
	t.Parallel()
	x := tradeScene(t)
	ms := exchangetest.T0.Add(time.Minute).UnixMilli()
	ts, err := x.Trades("BTCUSDT", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range ts {
		got = append(got, fmt.Sprintf("%s %s×%s=%s @%d bm=%t", tr.ID, tr.Price, tr.Qty, tr.QuoteQty, tr.Time.UnixMilli()-ms, tr.IsBuyerMaker))
	}
	want := []string{
		"1 20500×0.2=4100 @0 bm=false",   // other takes master's offer
		"2 20500×0.1=2050 @0 bm=false",   // and the rest from the market
		"3 19995×0.05=999.75 @0 bm=true", // bar 1 trades through master's bids
		"4 19990×0.1=1999 @0 bm=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trades\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if last2, _ := x.Trades("BTCUSDT", 2); len(last2) != 2 || last2[0].ID != "3" || last2[1].ID != "4" {
		t.Errorf("limit 2: %+v", last2)
	}
	aggs, err := x.AggTrades(exchange.AggTradesRequest{Symbol: "BTCUSDT"})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, a := range aggs {
		got = append(got, fmt.Sprintf("%s[%s-%s] %s×%s m=%t", a.ID, a.FirstTradeID, a.LastTradeID, a.Price, a.Qty, a.IsBuyerMaker))
	}
	if g, w := strings.Join(got, "; "), "1[1-2] 20500×0.3 m=false; 2[3-3] 19995×0.05 m=true; 3[4-4] 19990×0.1 m=true"; g != w {
		t.Errorf("aggTrades %s, want %s", g, w)
	}
	at := exchangetest.T0.Add(time.Minute)
	win, err := x.AggTrades(exchange.AggTradesRequest{Symbol: "BTCUSDT", Start: at, End: at, Limit: 2})
	if err != nil || len(win) != 2 || win[0].ID != "1" || win[1].ID != "2" {
		t.Errorf("window from the start, limit 2: %+v %v", win, err)
	}
	if empty, err := x.AggTrades(exchange.AggTradesRequest{Symbol: "BTCUSDT", Start: at.Add(time.Second), End: at.Add(time.Hour)}); err != nil || len(empty) != 0 {
		t.Errorf("empty window: %+v %v", empty, err)
	}
	if _, err := x.AggTrades(exchange.AggTradesRequest{Symbol: "BTCUSDT", Start: at}); !exchange.HasCode(err, exchange.CodeParameterError) {
		t.Errorf("start without end: %v", err)
	}
	if _, err := x.Trades("BTCUSDT", 1001); !exchange.HasCode(err, exchange.CodeParameterError) {
		t.Errorf("limit 1001: %v", err)
	}
}

func TestTickersAndAveragePrice(t *testing.T) {
	t.Parallel()
	x := tradeScene(t)
	tk, err := x.Ticker24h("BTCUSDT")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join([]string{optStr(tk.OpenPrice), optStr(tk.HighPrice), optStr(tk.LowPrice), optStr(tk.LastPrice),
		optStr(tk.LastQty), optStr(tk.PriceChange), optStr(tk.PriceChangePercent), optStr(tk.PrevClosePrice),
		optStr(tk.Volume), optStr(tk.BidPrice), optStr(tk.BidQty), optStr(tk.AskPrice), optStr(tk.AskQty),
		fmt.Sprint(tk.Count), fmt.Sprint(tk.OpenTime.Equal(exchangetest.T0)), fmt.Sprint(tk.CloseTime.Equal(exchangetest.T0.Add(2 * time.Minute)))}, " ")
	// Synthetic levels now sit around 20100: 20089.95 and 20110.05.
	if want := "20000 20500 19980 20100 0.1 100 0.005 - 2 20089.95 0.4977 20110.05 0.4972 4 true true"; got != want {
		t.Errorf("24h ticker\n%s\nwant\n%s", got, want)
	}
	all := x.Tickers24h()
	if len(all) != 3 || all[0].Symbol != "BTCUSDT" || all[1].Symbol != "TOKUSDT" || all[2].LastPrice.Valid {
		t.Errorf("all tickers %+v", all)
	}
	p, _ := x.TickerPrice("BTCUSDT")
	if optStr(p.Price) != "20100" {
		t.Errorf("price ticker %s", optStr(p.Price))
	}
	if ps := x.TickerPrices(); len(ps) != 3 || ps[2].Symbol != "XYZUSDT" || ps[2].Price.Valid {
		t.Errorf("price tickers %+v", ps)
	}
	avg, err := x.AvgPrice("BTCUSDT")
	if err != nil || avg.Mins != 5 || avg.Price.String() != "20050" {
		t.Errorf("avg price %+v %v", avg, err)
	}
	// Six minutes later the window holds no bar: the last price.
	x.Advance(6 * time.Minute)
	if avg, _ := x.AvgPrice("BTCUSDT"); avg.Price.String() != "20100" {
		t.Errorf("avg price without bars %s", avg.Price)
	}
}

func TestKlinesResampledFromFinerBars(t *testing.T) {
	t.Parallel()
	x := tradeScene(t)
	ks, err := x.Klines(exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval5m})
	if err != nil || len(ks) != 1 {
		t.Fatalf("5m klines %+v %v", ks, err)
	}
	k := ks[0]
	got := fmt.Sprint(k.OpenTime.Equal(exchangetest.T0), k.Open, k.High, k.Low, k.Close, k.Volume, k.CloseTime.Sub(k.OpenTime))
	if want := "true 20000 20500 19980 20100 2 4m59.999s"; got != want {
		t.Errorf("5m bar %s, want %s", got, want)
	}
	ks, _ = x.Klines(exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval1m, Limit: 1})
	if len(ks) != 1 || ks[0].Close.String() != "20100" {
		t.Errorf("latest 1m bar %+v", ks)
	}
	if _, err := x.Klines(exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: "1h"}); !exchange.HasCode(err, exchange.CodeParameterError) {
		t.Errorf("interval 1h: %v", err)
	}
}

func TestDefaultAndOfflineSymbols(t *testing.T) {
	t.Parallel()
	x := marketScene(t)
	if got := strings.Join(x.DefaultSymbols(), ","); got != "BTCUSDT,TOKUSDT,XYZUSDT" {
		t.Errorf("default symbols %s", got)
	}
	x.SetSymbolStatus("XYZUSDT", exchange.SymbolPaused)
	x.SetSymbolStatus("TOKUSDT", exchange.SymbolOffline)
	if got := strings.Join(x.DefaultSymbols(), ","); got != "BTCUSDT" {
		t.Errorf("default symbols %s", got)
	}
	off := x.OfflineSymbols()
	if len(off) != 2 || off[0] != (exchange.OfflineSymbol{Symbol: "TOKUSDT", State: 3, OfflineTime: exchangetest.T0.Add(time.Minute)}) ||
		off[1] != (exchange.OfflineSymbol{Symbol: "XYZUSDT", State: 2}) {
		t.Errorf("offline symbols %+v", off)
	}
}

func TestTradeRetention(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate, TradeRetention: 3})
	if err != nil {
		t.Fatal(err)
	}
	x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000"))
	x.Credit(x.MasterUID(), "USDT", dec("100000"))
	// Each market buy trades once with the kline-driven market; the clock
	// moves between them so no two share an aggregate.
	for i := range 8 {
		if _, err := x.Master().PlaceOrder(context.Background(), exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy,
			Type: exchange.TypeMarket, QuoteOrderQty: dec("100")}); err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
		x.Advance(time.Second)
	}
	ts, err := x.Trades("BTCUSDT", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tr := range ts {
		ids = append(ids, tr.ID)
	}
	if got := strings.Join(ids, ","); got != "6,7,8" {
		t.Errorf("kept trades %s, want 6,7,8", got)
	}
	aggs, _ := x.AggTrades(exchange.AggTradesRequest{Symbol: "BTCUSDT"})
	if len(aggs) != 3 || aggs[0].ID != "6" || aggs[2].ID != "8" {
		t.Errorf("kept aggregates %+v", aggs)
	}
}
