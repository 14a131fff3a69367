package reliability

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange/simserver"
)

// TestQueryWinsOverBody sends unusual but valid requests: a parameter in
// both the query and the body (the spec says the query's value is used)
// and a client order id of the longest allowed length using every allowed
// kind of character. Each places exactly the order the query names, and
// nothing else changes.
func TestQueryWinsOverBody(t *testing.T) {
	const longID = "Aa0-Zz9_" + "Aa0-Zz9_" + "Aa0-Zz9_" + "Aa0-Zz9_"
	t.Parallel()
	r := newRig(t, simserver.Options{Limits: simserver.Limits{Off: true}})
	uid := r.x.MasterUID()
	tests := []struct {
		name, query, body string
		want              string // the order as the simulator holds it
		reply             string // the acknowledgement's fields
		locked            string // USDT locked afterwards
	}{
		{"JSON body", orderHead + "&quantity=0.002&price=15000&newClientOrderId=q1&timestamp={ts}",
			`{"quantity":"5","price":"14000","symbol":"XYZUSDT","newClientOrderId":"b1"}`,
			"q1 BTCUSDT BUY LIMIT 0.002@15000 NEW", `"symbol":"BTCUSDT","orderId":"1","orderListId":-1,"price":"15000","origQty":"0.002"`, "30"},
		{"form body", orderHead + "&quantity=0.003&price=15000&newClientOrderId=q2&timestamp={ts}",
			"quantity=5&side=SELL&newClientOrderId=b2",
			"q2 BTCUSDT BUY LIMIT 0.003@15000 NEW", `"symbol":"BTCUSDT","orderId":"2","orderListId":-1,"price":"15000","origQty":"0.003"`, "75"},
		{"body fills what the query lacks", orderHead + "&quantity=0.001&newClientOrderId=q3&timestamp={ts}",
			`{"price":"14000","quantity":"9"}`,
			"q3 BTCUSDT BUY LIMIT 0.001@14000 NEW", `"symbol":"BTCUSDT","orderId":"3","orderListId":-1,"price":"14000","origQty":"0.001"`, "89"},
		{"client id of 32 characters of every allowed kind", orderHead + "&" + orderQP + "&newClientOrderId=" + longID + "&timestamp={ts}", "",
			longID + " BTCUSDT BUY LIMIT 0.001@15000 NEW", `"symbol":"BTCUSDT","orderId":"4","orderListId":-1,"price":"15000","origQty":"0.001"`, "104"},
		{"content type with a charset, in capitals", orderHead + "&" + orderQP + "&newClientOrderId=q5&timestamp={ts}", "",
			"q5 BTCUSDT BUY LIMIT 0.001@15000 NEW", `"symbol":"BTCUSDT","orderId":"5","orderListId":-1,"price":"15000","origQty":"0.001"`, "119"},
	}
	for _, tt := range tests { // in order: each adds one order
		ts := r.x.Now().UnixMilli()
		ct := ""
		if strings.HasPrefix(tt.name, "content type") {
			ct = "Application/JSON; charset=UTF-8"
		}
		got := send(t, r.url, rawReq{method: "POST", path: "/api/v3/order", query: fillTS(tt.query, ts), body: tt.body,
			key: masterKey, secret: masterSecret, contentType: ct})
		if got.status != 200 || !strings.Contains(got.body, tt.reply) {
			t.Errorf("%s: %d %s, want 200 with %s", tt.name, got.status, got.body, tt.reply)
		}
		open, err := r.x.As(uid).OpenOrders(t.Context(), "")
		must(t, err)
		last := open[len(open)-1]
		if s := fmt.Sprintf("%s %s %s %s %s@%s %s", last.ClientOrderID, last.Symbol, last.Side, last.Type, last.OrigQty, last.Price,
			last.Status); s != tt.want {
			t.Errorf("%s: simulator holds %q, want %q", tt.name, s, tt.want)
		}
		a, err := r.x.As(uid).Account(t.Context())
		must(t, err)
		if b := a.Balance("USDT"); b.Locked.String() != tt.locked {
			t.Errorf("%s: USDT locked %s, want %s", tt.name, b.Locked, tt.locked)
		}
	}
	a, err := r.x.As(uid).Account(t.Context())
	must(t, err)
	if b := a.Balance("USDT"); b.Free.String() != "999881" || a.Balance("XYZ").Free.String() != "0" {
		t.Errorf("balances after: USDT %s/%s, XYZ %s", b.Free, b.Locked, a.Balance("XYZ").Free)
	}
	open, err := r.x.As(uid).OpenOrders(t.Context(), "")
	must(t, err)
	if len(open) != len(tests) {
		t.Errorf("%d open orders, want %d", len(open), len(tests))
	}
}
