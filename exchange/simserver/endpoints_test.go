package simserver

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func lim(side exchange.Side, q, p string) exchange.NewOrder {
	return exchange.NewOrder{Symbol: "BTCUSDT", Side: side, Type: exchange.TypeLimit, Quantity: dec(q), Price: dec(p)}
}

// scene primes a served exchange: bar 0 at 20000; the master bids
// 0.05@19995 and 0.1@19990 and offers 0.2@20500; the other account buys
// 0.3@20500 (0.2 from the master, 0.1 from the market); bar 1 (20500,
// 20500, 19980, 20100) fills both bids. Four public trades.
func scene(t *testing.T) *served {
	t.Helper()
	sv := serve(t, sim.Options{MarketFill: sim.Immediate, Book: sim.BookShape{Levels: 2}}, Options{Limits: Limits{Off: true}})
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(sv.x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
	must(sv.x.Credit(sv.uids[0], "USDT", dec("10000")))
	must(sv.x.Credit(sv.uids[0], "BTC", dec("1")))
	must(sv.x.Credit(sv.uids[1], "USDT", dec("10000")))
	for _, o := range []exchange.NewOrder{lim(exchange.SideBuy, "0.05", "19995"), lim(exchange.SideBuy, "0.1", "19990"), lim(exchange.SideSell, "0.2", "20500")} {
		_, err := sv.master.Spot.NewOrder(ctx, o)
		must(err)
	}
	_, err := sv.other.Spot.NewOrder(ctx, lim(exchange.SideBuy, "0.3", "20500"))
	must(err)
	must(sv.x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(1, "20500", "20500", "19980", "20100")))
	return sv
}

func opt(o exchange.OptDecimal) string {
	if !o.Valid {
		return "-"
	}
	return o.Decimal.String()
}

// TestMarketAndSpotEndpointsEndToEnd calls every market-data and spot
// endpoint through the client and fails if one was never answered 200.
func TestMarketAndSpotEndpointsEndToEnd(t *testing.T) {
	t.Parallel()
	sv := scene(t)
	t.Run("market", func(t *testing.T) { marketEndpoints(t, sv) })
	t.Run("spot", func(t *testing.T) { spotEndpoints(t, sv) })
	ok := map[exchange.EndpointID]bool{}
	for _, r := range sv.s.Requests() {
		if r.Status == 200 {
			ok[r.Endpoint] = true
		}
	}
	for _, e := range exchange.Endpoints() {
		if (e.Area == "market" || e.Area == "spot") && !ok[e.ID] {
			t.Errorf("%s (%s) never answered 200", e.Name, e)
		}
	}
}

func marketEndpoints(t *testing.T, sv *served) {
	ctx, m := t.Context(), sv.master.Market
	if err := m.Ping(ctx); err != nil {
		t.Error(err)
	}
	if st, err := m.ServerTime(ctx); err != nil || !st.Equal(exchangetest.T0.Add(2*time.Minute)) {
		t.Errorf("server time %s %v", st, err)
	}
	if ds, err := m.DefaultSymbols(ctx); err != nil || strings.Join(ds, ",") != "BTCUSDT,TOKUSDT,XYZUSDT" {
		t.Errorf("default symbols %v %v", ds, err)
	}
	info, err := m.ExchangeInfo(ctx, "BTCUSDT", "XYZUSDT")
	if err != nil || len(info.Symbols) != 2 || info.Symbols[0].Symbol != "BTCUSDT" || info.Symbols[0].TakerCommission.String() != "0.002" ||
		info.Symbols[0].Filters[0].BidMultiplierUp.String() != "1.1" || info.Symbols[1].Symbol != "XYZUSDT" {
		t.Errorf("exchange info %+v %v", info, err)
	}
	if _, err := m.ExchangeInfo(ctx, "NOPE"); !exchange.HasCode(err, exchange.CodeBadSymbol) {
		t.Errorf("exchange info of an unknown symbol: %v", err)
	}
	book, err := m.Depth(ctx, "BTCUSDT", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(book.Bids, book.Asks); got != "[{20089.95 0.4977} {20069.85 0.4982}] [{20110.05 0.4972} {20130.15 0.4967}]" {
		t.Errorf("depth %s", got)
	}
	st, body, _ := do(t, "GET", sv.url+"/api/v3/depth?symbol=BTCUSDT&limit=1", "", nil)
	if want := fmt.Sprintf(`{"lastUpdateId":%d,"bids":[["20089.95","0.4977"]],"asks":[["20110.05","0.4972"]]}`, book.LastUpdateID); st != 200 || body != want {
		t.Errorf("depth wire %d %s, want %s", st, body, want)
	}
	if st, body, _ := do(t, "GET", sv.url+"/api/v3/depth?symbol=BTCUSDT&limit=5001", "", nil); st != 400 || body != `{"code":33333,"msg":"parameter limit: 5001 is outside 1..5000"}` {
		t.Errorf("depth limit 5001: %d %s", st, body)
	}
	if st, body, _ := do(t, "GET", sv.url+"/api/v3/depth", "", nil); st != 400 || body != `{"code":44444,"msg":"parameter symbol cannot be null"}` {
		t.Errorf("depth without symbol: %d %s", st, body)
	}
	trades, err := m.Trades(ctx, "BTCUSDT", 3)
	if err != nil || len(trades) != 3 || trades[0].ID != "2" || trades[2].Price.String() != "19990" || !trades[2].IsBuyerMaker ||
		trades[1].QuoteQty.String() != "999.75" {
		t.Errorf("trades %+v %v", trades, err)
	}
	at := exchangetest.T0.Add(time.Minute)
	aggs, err := m.AggTrades(ctx, exchange.AggTradesRequest{Symbol: "BTCUSDT", Start: at, End: at})
	if err != nil || len(aggs) != 3 || aggs[0].FirstTradeID != "1" || aggs[0].LastTradeID != "2" || aggs[0].Qty.String() != "0.3" ||
		aggs[0].IsBuyerMaker || !aggs[1].IsBuyerMaker {
		t.Errorf("agg trades %+v %v", aggs, err)
	}
	if st, body, _ := do(t, "GET", fmt.Sprintf("%s/api/v3/aggTrades?symbol=BTCUSDT&startTime=%d", sv.url, at.UnixMilli()), "", nil); st != 400 ||
		body != `{"code":33333,"msg":"startTime and endTime must be used together"}` {
		t.Errorf("aggTrades with startTime only: %d %s", st, body)
	}
	ks, err := m.Klines(ctx, exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval1m})
	if err != nil || len(ks) != 2 || ks[1].Low.String() != "19980" || !ks[1].OpenTime.Equal(at) || !ks[1].CloseTime.Equal(at.Add(time.Minute-time.Millisecond)) {
		t.Errorf("klines %+v %v", ks, err)
	}
	if st, body, _ := do(t, "GET", sv.url+"/api/v3/klines?symbol=BTCUSDT&interval=1h", "", nil); st != 400 ||
		body != `{"code":33333,"msg":"parameter interval: \"1h\" is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M"}` {
		t.Errorf("klines 1h: %d %s", st, body)
	}
	if a, err := m.AvgPrice(ctx, "BTCUSDT"); err != nil || a.Mins != 5 || a.Price.String() != "20050" {
		t.Errorf("avg price %+v %v", a, err)
	}
	tk, err := m.Ticker24h(ctx, "BTCUSDT")
	if got := strings.Join([]string{opt(tk.OpenPrice), opt(tk.HighPrice), opt(tk.LowPrice), opt(tk.LastPrice), opt(tk.PriceChangePercent),
		opt(tk.PrevClosePrice), fmt.Sprint(tk.Count)}, " "); err != nil || got != "20000 20500 19980 20100 0.005 - 4" {
		t.Errorf("24h ticker %s %v", got, err)
	}
	if all, err := m.Tickers24h(ctx); err != nil || len(all) != 3 || all[2].Symbol != "XYZUSDT" || all[2].LastPrice.Valid {
		t.Errorf("all 24h tickers %+v %v", all, err)
	}
	if p, err := m.TickerPrice(ctx, "BTCUSDT"); err != nil || opt(p.Price) != "20100" {
		t.Errorf("price ticker %+v %v", p, err)
	}
	if st, body, _ := do(t, "GET", sv.url+"/api/v3/ticker/price", "", nil); st != 200 ||
		body != `[{"symbol":"BTCUSDT","price":"20100"},{"symbol":"TOKUSDT","price":null},{"symbol":"XYZUSDT","price":null}]` {
		t.Errorf("price tickers wire %d %s", st, body)
	}
	if ps, err := m.TickerPrices(ctx); err != nil || len(ps) != 3 {
		t.Errorf("price tickers %+v %v", ps, err)
	}
	if b, err := m.BookTicker(ctx, "BTCUSDT"); err != nil || opt(b.BidPrice)+" "+opt(b.AskQty) != "20089.95 0.4972" {
		t.Errorf("book ticker %+v %v", b, err)
	}
	if bs, err := m.BookTickers(ctx); err != nil || len(bs) != 3 || bs[1].BidPrice.Valid {
		t.Errorf("book tickers %+v %v", bs, err)
	}
	sv.x.SetSymbolStatus("XYZUSDT", exchange.SymbolOffline)
	if off, err := m.OfflineSymbols(ctx); err != nil || len(off) != 1 || off[0].Symbol != "XYZUSDT" || off[0].State != 3 ||
		!off[0].OfflineTime.Equal(exchangetest.T0.Add(2*time.Minute)) {
		t.Errorf("offline symbols %+v %v", off, err)
	}
	sv.x.SetSymbolStatus("XYZUSDT", exchange.SymbolOnline)
}

func spotEndpoints(t *testing.T, sv *served) {
	ctx, a, b := t.Context(), sv.master.Spot, sv.other.Spot
	if k, err := a.KYCStatus(ctx); err != nil || k != "1" {
		t.Errorf("kyc %q %v", k, err)
	}
	if err := sv.x.SetKYC(sv.uids[0], "3"); err != nil {
		t.Fatal(err)
	}
	if k, _ := a.KYCStatus(ctx); k != "3" {
		t.Errorf("kyc after SetKYC %q", k)
	}
	if u, err := b.UID(ctx); err != nil || u != sv.uids[1] {
		t.Errorf("uid %q %v", u, err)
	}
	if ss, err := a.SelfSymbols(ctx); err != nil || len(ss) != 3 {
		t.Errorf("self symbols %v %v", ss, err)
	}
	if err := a.TestOrder(ctx, lim(exchange.SideBuy, "0.1", "19000")); err != nil {
		t.Errorf("test order: %v", err)
	}
	bad := lim(exchange.SideBuy, "0.0002", "19000")
	bad.NewClientOrderID = "tiny"
	res, err := a.BatchOrders(ctx, []exchange.NewOrder{lim(exchange.SideBuy, "0.1", "19000"), bad, lim(exchange.SideSell, "0.1", "21000")})
	if err != nil || len(res) != 3 || res[0].Ack == nil || res[1].Ack != nil || res[1].Code != exchange.CodeBelowMinVolume ||
		res[1].ClientOrderID != "tiny" || res[2].Ack == nil {
		t.Fatalf("batch %+v %v", res, err)
	}
	open, err := a.OpenOrders(ctx, "BTCUSDT")
	if err != nil || len(open) != 2 || open[0].OrderID != res[0].Ack.OrderID || open[0].Status != exchange.StatusNew {
		t.Errorf("open orders %+v %v", open, err)
	}
	q, err := a.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: res[2].Ack.OrderID})
	if err != nil || q.OrigQty.String() != "0.1" || q.Price.String() != "21000" || q.Side != exchange.SideSell {
		t.Errorf("query %+v %v", q, err)
	}
	c, err := a.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrderID: res[0].Ack.OrderID})
	if err != nil || c.Status != exchange.StatusCanceled {
		t.Errorf("cancel %+v %v", c, err)
	}
	all, err := a.CancelOpenOrders(ctx, "BTCUSDT")
	if err != nil || len(all) != 1 || all[0].OrderID != res[2].Ack.OrderID || all[0].OrderListID != -1 {
		t.Errorf("cancel all %+v %v", all, err)
	}
	hist, err := a.AllOrders(ctx, exchange.AllOrdersRequest{Symbol: "BTCUSDT"})
	if err != nil || len(hist) != 5 || hist[0].Status != exchange.StatusFilled || hist[2].Status != exchange.StatusFilled || hist[4].Status != exchange.StatusCanceled {
		t.Errorf("all orders %d %+v %v", len(hist), hist, err)
	}
	mine, err := a.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT"})
	if err != nil || len(mine) != 3 || mine[0].Price.String() != "20500" || mine[0].IsBuyer || !mine[0].IsMaker || mine[0].Commission.String() != "4.1" {
		t.Errorf("my trades %+v %v", mine, err)
	}
	acct, err := a.Account(ctx)
	// 10000 − 0.05×19995 − 0.1×19990 + 0.2×20500 (less 4.1 fee) = 11097.15.
	if err != nil || acct.Balance("USDT").Free.String() != "11097.15" || acct.Balance("BTC").Free.String() != "0.94985" {
		t.Errorf("account %+v %v", acct, err)
	}
	if on, err := a.SetTokDeduct(ctx, true); err != nil || !on {
		t.Errorf("set tok deduct %t %v", on, err)
	}
	if on, err := a.TokDeduct(ctx); err != nil || !on {
		t.Errorf("tok deduct %t %v", on, err)
	}
	if f, err := a.TradeFee(ctx, "BTCUSDT"); err != nil || f.MakerCommission.String() != "0.001" || f.TakerCommission.String() != "0.002" {
		t.Errorf("trade fee %+v %v", f, err)
	}
	g, err := a.CreateSTPGroup(ctx, "desk")
	if err != nil || g.Name != "desk" || g.ID != "1" {
		t.Fatalf("create group %+v %v", g, err)
	}
	if _, err := a.CreateSTPGroup(ctx, "desk"); !exchange.HasCode(err, exchange.CodeUserNameExists) {
		t.Errorf("second group named desk: %v", err)
	}
	if _, err := b.CreateSTPGroup(ctx, "mine"); !exchange.HasCode(err, exchange.CodeOperationNotAllowed) {
		t.Errorf("group from a sub-account: %v", err)
	}
	if g, err := a.AddSTPGroupUIDs(ctx, "1", sv.uids[:]); err != nil || strings.Join(g.UIDs, ",") != sv.uids[0]+","+sv.uids[1] {
		t.Errorf("add uids %+v %v", g, err)
	}
	if err := a.RemoveSTPGroupUIDs(ctx, "1", sv.uids[1:]); err != nil {
		t.Errorf("remove uid: %v", err)
	}
	if gs, err := a.STPGroups(ctx, "desk"); err != nil || len(gs) != 1 || strings.Join(gs[0].UIDs, ",") != sv.uids[0] {
		t.Errorf("groups %+v %v", gs, err)
	}
	if err := a.DeleteSTPGroup(ctx, "1"); err != nil {
		t.Errorf("delete group: %v", err)
	}
	if err := a.DeleteSTPGroup(ctx, "1"); !exchange.HasCode(err, exchange.CodeRecordNotExist) {
		t.Errorf("delete a deleted group: %v", err)
	}
	_ = context.Background
}

// TestEveryAreaIsCoveredEndToEnd pins the areas of the endpoint table to
// the end-to-end tests that check every endpoint of one area answered 200:
// market and spot above, wallet in TestWalletEndpointsEndToEnd, sub-account
// in TestSubAccountEndpointsEndToEnd. Together they call all the endpoints;
// a new area fails here until a test covers it.
func TestEveryAreaIsCoveredEndToEnd(t *testing.T) {
	t.Parallel()
	covered := map[string]int{"market": 0, "spot": 0, "wallet": 0, "sub-account": 0}
	for _, e := range exchange.Endpoints() {
		if _, ok := covered[e.Area]; !ok {
			t.Errorf("%s is in area %q, which no end-to-end test covers", e.Name, e.Area)
			continue
		}
		covered[e.Area]++
	}
	if got := fmt.Sprint(covered); got != "map[market:13 spot:21 sub-account:8 wallet:17]" || exchange.NumEndpoints != 59 {
		t.Errorf("endpoints per area %s of %d", got, exchange.NumEndpoints)
	}
}
