package simserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// Decimal text is exchange.PlainDecimal's grammar, the form the client
// writes: "1.", ".5" and "+1" are refused (33333), in the query and in a
// JSON body alike. Before, all three were accepted and the order stored.
func TestDecimalGrammar(t *testing.T) {
	t.Parallel()
	sv := serve(t, sim.Options{MarketFill: sim.Immediate}, Options{Limits: Limits{Off: true}})
	if err := sv.x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	if err := sv.x.Credit(sv.uids[0], "USDT", dec("100000")); err != nil {
		t.Fatal(err)
	}
	ts := fmt.Sprintf("timestamp=%d", sv.x.Now().UnixMilli())
	for _, tt := range []struct{ quantity, price, want string }{
		{"1.", "19000", `{"code":33333,"msg":"parameter quantity: \"1.\" is not a decimal number"}`},
		{".5", "19000", `{"code":33333,"msg":"parameter quantity: \".5\" is not a decimal number"}`},
		{"+1", "19000", `{"code":33333,"msg":"parameter quantity: \"+1\" is not a decimal number"}`},
		{"1", "+19000", `{"code":33333,"msg":"parameter price: \"+19000\" is not a decimal number"}`},
		{"1", "19000.", `{"code":33333,"msg":"parameter price: \"19000.\" is not a decimal number"}`},
		{"-1", "19000", `{"code":33333,"msg":"parameter quantity: is negative"}`},
	} {
		for _, form := range []string{"query", "json"} {
			q, body := "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity="+tt.quantity+"&price="+tt.price+"&"+ts, ""
			if form == "json" {
				q, body = ts, `{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"`+tt.quantity+`","price":"`+tt.price+`"}`
			}
			q = strings.Replace(q, "+", "%2B", -1)
			st, got, _ := do(t, "POST", sv.url+"/api/v3/order?"+q+"&signature="+sign(q+body), body, keyHdr)
			if st != 400 || got != tt.want {
				t.Errorf("%s quantity %s price %s: %d %s, want %s", form, tt.quantity, tt.price, st, got, tt.want)
			}
		}
	}
	if open, err := sv.master.Spot.OpenOrders(t.Context(), "BTCUSDT"); err != nil || len(open) != 0 {
		t.Errorf("open orders %d %v, want none", len(open), err)
	}
}
