package simserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// TestSpotParametersOnTheWire sends signed requests by hand: every
// parameter form the spec allows, the batch in a JSON body, the reference's
// LIMIT_ORDER, and each parameter refusal with its exact status and body.
func TestSpotParametersOnTheWire(t *testing.T) {
	t.Parallel()
	sv := serve(t, sim.Options{MarketFill: sim.Immediate}, Options{Limits: Limits{Off: true}})
	if err := sv.x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	if err := sv.x.Credit(sv.uids[0], "USDT", dec("10000")); err != nil {
		t.Fatal(err)
	}
	ts := fmt.Sprintf("timestamp=%d", sv.x.Now().UnixMilli())
	send := func(method, path, query, body string) (int, string) {
		t.Helper()
		q := strings.TrimPrefix(query+"&signature="+sign(query+body), "&")
		st, reply, _ := do(t, method, sv.url+path+"?"+q, body, keyHdr)
		return st, reply
	}
	ack := func(id string) string {
		return `{"symbol":"BTCUSDT","orderId":"` + id + `","orderListId":-1,"price":"19000","origQty":"0.01","type":"LIMIT","side":"BUY","stpMode":"","transactTime":1709251260000}`
	}
	tests := []struct {
		name, method, path, query, body string
		status                          int
		reply                           string
	}{
		{"order in the query", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.01&price=19000&" + ts, "", 200, ack("1")},
		{"order in a form body", "POST", "/api/v3/order", "", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.01&price=19000&" + ts, 200, ack("2")},
		{"order in a JSON body", "POST", "/api/v3/order", ts, `{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":0.01,"price":"19000"}`, 200, ack("3")},
		{"mixed, the query wins", "POST", "/api/v3/order", "symbol=BTCUSDT&price=19000&" + ts, "side=BUY&type=LIMIT&quantity=0.01&price=1", 200, ack("4")},
		{"batch as a JSON array in the body, LIMIT_ORDER, an item below the minimum", "POST", "/api/v3/batchOrders", ts,
			`{"batchOrders":[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT_ORDER","quantity":"0.01","price":"19000","newClientOrderId":"b1"},{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.0001","price":"19000","newClientOrderId":"b2"}]}`,
			200, `[{"symbol":"BTCUSDT","orderId":"5","orderListId":-1,"newClientOrderId":"b1"},{"newClientOrderId":"b2","msg":"amount 1.9 below the minimum 5","code":30002}]`},
		{"batch with a malformed item is refused whole", "POST", "/api/v3/batchOrders", ts,
			`{"batchOrders":[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.01","price":"19000","newClientOrderId":"b3"},{"symbol":"BTCUSDT","side":"SIDEWAYS","type":"LIMIT","newClientOrderId":"b4"}]}`,
			400, `{"code":33333,"msg":"parameter batchOrders[1].side: \"SIDEWAYS\" is not BUY or SELL"}`},
		{"batch with an unreadable item is refused whole", "POST", "/api/v3/batchOrders", ts,
			`{"batchOrders":[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.01","price":"19000"},{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"1e3","price":"19000"}]}`,
			400, `{"code":33333,"msg":"parameter batchOrders[1].quantity: \"1e3\" is not a decimal number"}`},
		{"batch item not an object", "POST", "/api/v3/batchOrders", ts, `{"batchOrders":[7]}`,
			400, `{"code":33333,"msg":"parameter batchOrders[0]: body is not a JSON object: found a JSON number"}`},
		{"batch of 21", "POST", "/api/v3/batchOrders", "batchOrders=" + exchange.Escape("["+strings.Repeat(`{},`, 20)+`{}]`) + "&" + ts, "", 400,
			`{"code":33333,"msg":"parameter batchOrders: 21 orders; a batch holds 1 to 20"}`},
		{"no side", "POST", "/api/v3/order", "symbol=BTCUSDT&type=LIMIT&" + ts, "", 400, `{"code":44444,"msg":"parameter side cannot be null"}`},
		{"client id with a space", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.01&price=19000&newClientOrderId=bad%20id%21&" + ts, "", 400,
			`{"code":33333,"msg":"parameter newClientOrderId: \"bad id!\" may hold only letters, digits, '-' and '_'"}`},
		{"malformed quantity", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1e3&price=1&" + ts, "", 400,
			`{"code":33333,"msg":"parameter quantity: \"1e3\" is not a decimal number"}`},
		{"rule refusal", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.0001&price=19000&" + ts, "", 400,
			`{"code":30002,"msg":"amount 1.9 below the minimum 5"}`},
		{"test order", "POST", "/api/v3/order/test", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.01&price=19000&" + ts, "", 200, `{}`},
		{"cancel without an id", "DELETE", "/api/v3/order", "symbol=BTCUSDT&" + ts, "", 400,
			`{"code":700004,"msg":"Param 'origClientOrderId' or 'orderId' must be sent, but both were empty/null!"}`},
		{"cancel of an unknown order", "DELETE", "/api/v3/order", "symbol=BTCUSDT&orderId=99&" + ts, "", 400, `{"code":-2011,"msg":"Unknown order sent."}`},
		{"query names the quantity origQty and Qty", "GET", "/api/v3/order", "symbol=BTCUSDT&orderId=1&" + ts, "", 200,
			`{"symbol":"BTCUSDT","orderId":"1","orderListId":-1,"clientOrderId":"sim-1","price":"19000","origQty":"0.01","Qty":"0.01","executedQty":"0","cummulativeQuoteQty":"0","origQuoteOrderQty":"0","status":"NEW","timeInForce":"GTC","type":"LIMIT","side":"BUY","stopPrice":"0","icebergQty":"0","time":1709251260000,"updateTime":1709251260000,"isWorking":true,"stpMode":""}`},
		{"cancel", "DELETE", "/api/v3/order", "symbol=BTCUSDT&orderId=1&" + ts, "", 200,
			`{"symbol":"BTCUSDT","origClientOrderId":"sim-1","orderId":"1","clientOrderId":"sim-1","price":"19000","origQty":"0.01","executedQty":"0","cummulativeQuoteQty":"0","status":"CANCELED","timeInForce":"GTC","type":"LIMIT","side":"BUY"}`},
		{"open orders of an unknown symbol", "GET", "/api/v3/openOrders", "symbol=NOPE&" + ts, "", 400, `{"code":10007,"msg":"bad symbol \"NOPE\""}`},
		{"allOrders limit 1001", "GET", "/api/v3/allOrders", "symbol=BTCUSDT&limit=1001&" + ts, "", 400, `{"code":33333,"msg":"parameter limit: 1001 is outside 1..1000"}`},
		{"allOrders over 7 days", "GET", "/api/v3/allOrders", "symbol=BTCUSDT&startTime=1&endTime=999999999&" + ts, "", 400, `{"code":33333,"msg":"the window must be at most 7 days"}`},
		{"myTrades limit 101", "GET", "/api/v3/myTrades", "symbol=BTCUSDT&limit=101&" + ts, "", 400, `{"code":33333,"msg":"parameter limit: 101 is outside 1..100"}`},
		{"myTrades reversed window", "GET", "/api/v3/myTrades", "symbol=BTCUSDT&startTime=5&endTime=4&" + ts, "", 400, `{"code":33333,"msg":"endTime is before startTime"}`},
		{"tokDeduct not a boolean", "POST", "/api/v3/tokDeduct/enable", "tokDeductEnable=yes&" + ts, "", 400,
			`{"code":33333,"msg":"parameter tokDeductEnable: \"yes\" is not true or false"}`},
		{"tokDeduct", "POST", "/api/v3/tokDeduct/enable", "tokDeductEnable=true&" + ts, "", 200,
			`{"data":{"tokDeductEnable":true},"code":0,"msg":"success","timestamp":1709251260000}`},
		{"trade fee", "GET", "/api/v3/tradeFee", "symbol=BTCUSDT&" + ts, "", 200,
			`{"data":{"makerCommission":0.001,"takerCommission":0.002},"code":0,"msg":"success","timestamp":1709251260000}`},
		{"STP group", "POST", "/api/v3/strategy/group", "tradeGroupName=g&" + ts, "", 200,
			`{"data":{"tradeGroupName":"g","tradeGroupId":1,"createTime":1709251260000,"updateTime":1709251260000},"code":0,"msg":"success","timestamp":1709251260000}`},
		{"add STP uid by GET", "GET", "/api/v3/strategy/group/uid", "uid=1000&tradeGroupId=1&" + ts, "", 200,
			`{"data":{"tradeGroupName":"g","tradeGroupId":1,"tradeGroupUid":"1000","createTime":1709251260000,"updateTime":1709251260000},"code":0,"msg":"success","timestamp":1709251260000}`},
		{"kyc", "GET", "/api/v3/kyc/status", ts, "", 200, `{"status":"1"}`},
		{"uid", "GET", "/api/v3/uid", ts, "", 200, `{"uid":"1000"}`},
	}
	for _, tt := range tests {
		st, reply := send(tt.method, tt.path, tt.query, tt.body)
		if st != tt.status || reply != tt.reply {
			t.Errorf("%s: %d %s\nwant %d %s", tt.name, st, reply, tt.status, tt.reply)
		}
	}
}
