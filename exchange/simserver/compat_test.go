package simserver

import (
	"fmt"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// TestWireCompatibility sends what the most widely used third-party client
// sends (every parameter in the query, no body, Content-Type only on POST
// and DELETE, none on GET) and checks the exact replies where such clients
// depend on them (facts file, "What widely used clients expect"): origQty
// in the single-order query, timeInForce following the type, a MARKET
// order's price ignored, one object for the deposit address and transfer
// replies with netWork beside network, the includeFee option, and 10007
// for an unknown symbol on every market-data and order endpoint.
func TestWireCompatibility(t *testing.T) {
	t.Parallel()
	sv := serve(t, sim.Options{MarketFill: sim.Immediate}, Options{Limits: Limits{Off: true}})
	if err := sv.x.SetCoins(walletCoins()); err != nil {
		t.Fatal(err)
	}
	for asset, amt := range map[string]string{"BTC": "2", "USDT": "1000"} {
		if err := sv.x.Credit(sv.uids[0], asset, dec(amt)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sv.x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	now := sv.x.Now().UnixMilli()
	send := func(method, path, query string, signed bool) (int, string) {
		t.Helper()
		hdr := map[string]string{"Content-Type": ""}
		if method != "GET" {
			hdr["Content-Type"] = "application/json"
		}
		if signed {
			hdr["X-SVC-APIKEY"] = apiKey
			if query != "" {
				query += "&"
			}
			query += fmt.Sprintf("timestamp=%d&recvWindow=5000", now)
			query += "&signature=" + sign(query)
		}
		url := sv.url + path
		if query != "" {
			url += "?" + query
		}
		st, body, _ := do(t, method, url, "", hdr)
		return st, body
	}
	steps := []struct {
		name, method, path, query string
		status                    int
		reply                     string
	}{
		{"MARKET buy by cost with a price", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=MARKET&quoteOrderQty=100&price=20000", 200, `{"symbol":"BTCUSDT","orderId":"1","orderListId":-1,"price":"0","origQty":"0","type":"MARKET","side":"BUY","stpMode":"","transactTime":1709251260000}`},
		{"its query", "GET", "/api/v3/order", "symbol=BTCUSDT&orderId=1", 200, `{"symbol":"BTCUSDT","orderId":"1","orderListId":-1,"clientOrderId":"sim-1","price":"0","origQty":"0","Qty":"0","executedQty":"0.005","cummulativeQuoteQty":"100","origQuoteOrderQty":"100","status":"FILLED","timeInForce":"IOC","type":"MARKET","side":"BUY","stopPrice":"0","icebergQty":"0","time":1709251260000,"updateTime":1709251260000,"isWorking":false,"stpMode":""}`},
		{"MARKET sell by quantity with a price", "POST", "/api/v3/order", "symbol=BTCUSDT&side=SELL&type=MARKET&quantity=0.001&price=20000", 200, `{"symbol":"BTCUSDT","orderId":"2","orderListId":-1,"price":"0","origQty":"0.001","type":"MARKET","side":"SELL","stpMode":"","transactTime":1709251260000}`},
		{"LIMIT_MAKER", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=LIMIT_MAKER&quantity=0.001&price=19000", 200, `{"symbol":"BTCUSDT","orderId":"3","orderListId":-1,"price":"19000","origQty":"0.001","type":"LIMIT_MAKER","side":"BUY","stpMode":"","transactTime":1709251260000}`},
		{"IMMEDIATE_OR_CANCEL", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=IMMEDIATE_OR_CANCEL&quantity=0.001&price=19000", 200, `{"symbol":"BTCUSDT","orderId":"4","orderListId":-1,"price":"19000","origQty":"0.001","type":"IMMEDIATE_OR_CANCEL","side":"BUY","stpMode":"","transactTime":1709251260000}`},
		{"FILL_OR_KILL", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=FILL_OR_KILL&quantity=0.001&price=19000", 200, `{"symbol":"BTCUSDT","orderId":"5","orderListId":-1,"price":"19000","origQty":"0.001","type":"FILL_OR_KILL","side":"BUY","stpMode":"","transactTime":1709251260000}`},
		{"LIMIT", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.001&price=19000", 200, `{"symbol":"BTCUSDT","orderId":"6","orderListId":-1,"price":"19000","origQty":"0.001","type":"LIMIT","side":"BUY","stpMode":"","transactTime":1709251260000}`},
		{"all orders", "GET", "/api/v3/allOrders", "symbol=BTCUSDT", 200, `[{"symbol":"BTCUSDT","orderId":"1","orderListId":-1,"clientOrderId":"sim-1","price":"0","origQty":"0","executedQty":"0.005","cummulativeQuoteQty":"100","origQuoteOrderQty":"100","status":"FILLED","timeInForce":"IOC","type":"MARKET","side":"BUY","stopPrice":"0","icebergQty":"0","time":1709251260000,"updateTime":1709251260000,"isWorking":false,"stpMode":""},{"symbol":"BTCUSDT","orderId":"2","orderListId":-1,"clientOrderId":"sim-2","price":"0","origQty":"0.001","executedQty":"0.001","cummulativeQuoteQty":"20","origQuoteOrderQty":"0","status":"FILLED","timeInForce":"IOC","type":"MARKET","side":"SELL","stopPrice":"0","icebergQty":"0","time":1709251260000,"updateTime":1709251260000,"isWorking":false,"stpMode":""},{"symbol":"BTCUSDT","orderId":"3","orderListId":-1,"clientOrderId":"sim-3","price":"19000","origQty":"0.001","executedQty":"0","cummulativeQuoteQty":"0","origQuoteOrderQty":"0","status":"NEW","timeInForce":"POST_ONLY","type":"LIMIT_MAKER","side":"BUY","stopPrice":"0","icebergQty":"0","time":1709251260000,"updateTime":1709251260000,"isWorking":true,"stpMode":""},{"symbol":"BTCUSDT","orderId":"4","orderListId":-1,"clientOrderId":"sim-4","price":"19000","origQty":"0.001","executedQty":"0","cummulativeQuoteQty":"0","origQuoteOrderQty":"0","status":"CANCELED","timeInForce":"IOC","type":"IMMEDIATE_OR_CANCEL","side":"BUY","stopPrice":"0","icebergQty":"0","time":1709251260000,"updateTime":1709251260000,"isWorking":false,"stpMode":""},{"symbol":"BTCUSDT","orderId":"5","orderListId":-1,"clientOrderId":"sim-5","price":"19000","origQty":"0.001","executedQty":"0","cummulativeQuoteQty":"0","origQuoteOrderQty":"0","status":"CANCELED","timeInForce":"FOK","type":"FILL_OR_KILL","side":"BUY","stopPrice":"0","icebergQty":"0","time":1709251260000,"updateTime":1709251260000,"isWorking":false,"stpMode":""},{"symbol":"BTCUSDT","orderId":"6","orderListId":-1,"clientOrderId":"sim-6","price":"19000","origQty":"0.001","executedQty":"0","cummulativeQuoteQty":"0","origQuoteOrderQty":"0","status":"NEW","timeInForce":"GTC","type":"LIMIT","side":"BUY","stopPrice":"0","icebergQty":"0","time":1709251260000,"updateTime":1709251260000,"isWorking":true,"stpMode":""}]`},
		{"cancel the LIMIT_MAKER", "DELETE", "/api/v3/order", "symbol=BTCUSDT&orderId=3", 200, `{"symbol":"BTCUSDT","origClientOrderId":"sim-3","orderId":"3","clientOrderId":"sim-3","price":"19000","origQty":"0.001","executedQty":"0","cummulativeQuoteQty":"0","status":"CANCELED","timeInForce":"POST_ONLY","type":"LIMIT_MAKER","side":"BUY"}`},
		{"cancel all", "DELETE", "/api/v3/openOrders", "symbol=BTCUSDT", 200, `[{"symbol":"BTCUSDT","origClientOrderId":"sim-6","orderId":"6","orderListId":-1,"clientOrderId":"sim-6","price":"19000","origQty":"0.001","executedQty":"0","cummulativeQuoteQty":"0","status":"CANCELED","timeInForce":"GTC","type":"LIMIT","side":"BUY"}]`},
		{"deposit address", "POST", "/api/v3/capital/deposit/address", "coin=USDT&network=TRC20", 200, `{"coin":"USDT","network":"TRC20","netWork":"TRC20","address":"sim8f8803d2f5de3d59970c159422b83eaac5135","memo":null}`},
		{"deposit addresses", "GET", "/api/v3/capital/deposit/address", "coin=USDT", 200, `[{"coin":"USDT","network":"TRC20","netWork":"TRC20","address":"sim8f8803d2f5de3d59970c159422b83eaac5135","memo":null}]`},
		{"transfer", "POST", "/api/v3/capital/transfer", "fromAccountType=SPOT&toAccountType=FUTURES&asset=USDT&amount=10", 200, `{"tranId":"1"}`},
		{"withdraw, fee included", "POST", "/api/v3/capital/withdraw", "coin=USDT&netWork=TRC20&address=Tdest&amount=25&includeFee=true", 200, `{"id":"2"}`},
		{"withdraw, fee on top", "POST", "/api/v3/capital/withdraw", "coin=USDT&netWork=TRC20&address=Tdest&amount=25&includeFee=false", 200, `{"id":"3"}`},
		{"includeFee not a boolean", "POST", "/api/v3/capital/withdraw", "coin=USDT&netWork=TRC20&address=Tdest&amount=25&includeFee=1", 400, `{"code":33333,"msg":"parameter includeFee: \"1\" is not true or false"}`},
		{"withdrawals", "GET", "/api/v3/capital/withdraw/history", "coin=USDT", 200, `[{"id":"3","txId":null,"coin":"USDT","network":"TRC20","address":"Tdest","amount":"25","transferType":0,"status":1,"transactionFee":"1","confirmNo":0,"applyTime":1709251260000,"updateTime":1709251260000,"remark":"","memo":null,"transHash":null,"coinId":"0bf2c2defa30c521ab026ad0da1e6cc8","vcoinId":"0bf2c2defa30c521ab026ad0da1e6cc8"},{"id":"2","txId":null,"coin":"USDT","network":"TRC20","address":"Tdest","amount":"24","transferType":0,"status":1,"transactionFee":"1","confirmNo":0,"applyTime":1709251260000,"updateTime":1709251260000,"remark":"","memo":null,"transHash":null,"coinId":"0bf2c2defa30c521ab026ad0da1e6cc8","vcoinId":"0bf2c2defa30c521ab026ad0da1e6cc8"}]`},
		{"account", "GET", "/api/v3/account", "", 200, `{"makerCommission":null,"takerCommission":null,"buyerCommission":null,"sellerCommission":null,"canTrade":true,"canWithdraw":true,"canDeposit":true,"updateTime":1709251260000,"accountType":"SPOT","balances":[{"asset":"BTC","free":"2.00399","locked":"0","available":"2.00399"},{"asset":"USDT","free":"858.96","locked":"0","available":"858.96"}],"permissions":["SPOT"]}`},
	}
	for _, s := range steps {
		if st, reply := send(s.method, s.path, s.query, true); st != s.status || reply != s.reply {
			t.Errorf("%s: %d %s\nwant %d %s", s.name, st, reply, s.status, s.reply)
		}
	}
	bad := `{"code":10007,"msg":"bad symbol \"NOPEUSDT\""}`
	for _, u := range []struct {
		method, path, query string
		signed              bool
	}{
		{"GET", "/api/v3/exchangeInfo", "symbol=NOPEUSDT", false},
		{"GET", "/api/v3/depth", "symbol=NOPEUSDT", false},
		{"GET", "/api/v3/trades", "symbol=NOPEUSDT", false},
		{"GET", "/api/v3/aggTrades", "symbol=NOPEUSDT", false},
		{"GET", "/api/v3/klines", "symbol=NOPEUSDT&interval=1m", false},
		{"GET", "/api/v3/avgPrice", "symbol=NOPEUSDT", false},
		{"GET", "/api/v3/ticker/24hr", "symbol=NOPEUSDT", false},
		{"GET", "/api/v3/ticker/price", "symbol=NOPEUSDT", false},
		{"GET", "/api/v3/ticker/bookTicker", "symbol=NOPEUSDT", false},
		{"POST", "/api/v3/order", "symbol=NOPEUSDT&side=BUY&type=LIMIT&quantity=1&price=1", true},
		{"POST", "/api/v3/order/test", "symbol=NOPEUSDT&side=BUY&type=LIMIT&quantity=1&price=1", true},
		{"GET", "/api/v3/order", "symbol=NOPEUSDT&orderId=1", true},
		{"DELETE", "/api/v3/order", "symbol=NOPEUSDT&orderId=1", true},
		{"DELETE", "/api/v3/openOrders", "symbol=NOPEUSDT", true},
		{"GET", "/api/v3/openOrders", "symbol=NOPEUSDT", true},
		{"GET", "/api/v3/allOrders", "symbol=NOPEUSDT", true},
		{"GET", "/api/v3/myTrades", "symbol=NOPEUSDT", true},
		{"GET", "/api/v3/tradeFee", "symbol=NOPEUSDT", true},
	} {
		if st, reply := send(u.method, u.path, u.query, u.signed); st != 400 || reply != bad {
			t.Errorf("%s %s: %d %s, want 400 %s", u.method, u.path, st, reply, bad)
		}
	}
}
