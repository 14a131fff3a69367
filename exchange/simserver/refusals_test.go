package simserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// orderFields are an order's set parameters, in the client's order.
func orderFields(o exchange.NewOrder) [][2]string {
	var out [][2]string
	add := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	dec := func(d decimal.Decimal) string {
		if d.IsZero() {
			return ""
		}
		return d.String()
	}
	add("symbol", o.Symbol)
	add("side", string(o.Side))
	add("type", string(o.Type))
	add("quantity", dec(o.Quantity))
	add("quoteOrderQty", dec(o.QuoteOrderQty))
	add("price", dec(o.Price))
	add("newClientOrderId", o.NewClientOrderID)
	add("stpMode", string(o.STPMode))
	return out
}

// wireOrder is an order as query parameters: the client's own encoding,
// without its validation in front.
func wireOrder(o exchange.NewOrder) string {
	var b strings.Builder
	for _, kv := range orderFields(o) {
		b.WriteString(kv[0] + "=" + exchange.Escape(kv[1]) + "&")
	}
	return b.String()
}

// wireBatch is a batch as the batchOrders parameter.
func wireBatch(orders []exchange.NewOrder) string {
	items := make([]map[string]string, len(orders))
	for i, o := range orders {
		items[i] = map[string]string{}
		for _, kv := range orderFields(o) {
			items[i][kv[0]] = kv[1]
		}
	}
	text, err := json.Marshal(items)
	if err != nil {
		panic(err)
	}
	return "batchOrders=" + exchange.Escape(string(text)) + "&"
}

// TestOrderRefusalsOnTheWire sends every refusal of the conformance suite
// to the server by hand, past the client's validation, and checks the exact
// reply; then sends it through the REST client, which refuses it before
// sending with the very status, code and message the server answered (and
// the endpoint's name), and shows nothing reached the simulator. A refusal
// the wire does not make (WireAccepts) passes the server's order test.
func TestOrderRefusalsOnTheWire(t *testing.T) {
	t.Parallel()
	sv := serve(t, sim.Options{MarketFill: sim.Immediate}, Options{Limits: Limits{Off: true}})
	if err := sv.x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	for asset, amt := range map[string]string{"USDT": "10000", "BTC": "1"} {
		if err := sv.x.Credit(sv.uids[0], asset, dec(amt)); err != nil {
			t.Fatal(err)
		}
	}
	ts := fmt.Sprintf("timestamp=%d", sv.x.Now().UnixMilli())
	for _, r := range exchangetest.Refusals() {
		type attempt struct {
			id     exchange.EndpointID
			query  string
			client func() error
		}
		var attempts []attempt
		if r.IsBatch {
			attempts = append(attempts, attempt{exchange.EpBatchOrders, wireBatch(r.Batch) + ts, func() error {
				_, err := sv.master.Spot.BatchOrders(t.Context(), r.Batch)
				return err
			}})
		} else {
			attempts = append(attempts,
				attempt{exchange.EpNewOrder, wireOrder(r.Order) + ts, func() error {
					_, err := sv.master.Spot.NewOrder(t.Context(), r.Order)
					return err
				}},
				attempt{exchange.EpTestOrder, wireOrder(r.Order) + ts, func() error { return sv.master.Spot.TestOrder(t.Context(), r.Order) }})
		}
		for _, at := range attempts {
			ep, _ := exchange.Lookup(at.id)
			requests := len(sv.s.Requests())
			err := at.client()
			if n := len(sv.s.Requests()); n != requests {
				t.Errorf("%s %s: the client sent %d requests, want none", r.Name, ep.Name, n-requests)
			}
			var local *exchange.APIError
			if !errors.As(err, &local) {
				t.Errorf("%s %s: client %v, want an *exchange.APIError", r.Name, ep.Name, err)
				continue
			}
			st, body, _ := do(t, ep.Method, sv.url+ep.Path+"?"+at.query+"&signature="+sign(at.query), "", keyHdr)
			if r.WireAccepts {
				// The wire drops what the rule refuses: the test order
				// passes; a placement is the compatibility test's.
				if at.id == exchange.EpTestOrder && (st != 200 || body != `{}`) {
					t.Errorf("%s %s: the server answered %d %s, want 200 {}", r.Name, ep.Name, st, body)
				}
				if want := (exchange.APIError{Endpoint: ep.Name, Status: 400, Code: r.Code, Msg: r.Msg}); *local != want {
					t.Errorf("%s: the client refused with %+v, want %+v", r.Name, *local, want)
				}
				continue
			}
			var wire struct {
				Code int    `json:"code"`
				Msg  string `json:"msg"`
			}
			if err := json.Unmarshal([]byte(body), &wire); err != nil {
				t.Errorf("%s %s: reply %s: %v", r.Name, ep.Name, body, err)
				continue
			}
			want := exchange.APIError{Endpoint: ep.Name, Status: 400, Code: r.Code, Msg: r.Msg}
			if got := (exchange.APIError{Endpoint: ep.Name, Status: st, Code: wire.Code, Msg: wire.Msg}); got != want {
				t.Errorf("%s: the server answered %+v (%s), want %+v", r.Name, got, body, want)
			}
			if *local != want {
				t.Errorf("%s: the client refused with %+v, want %+v", r.Name, *local, want)
			}
		}
	}
	open, err := sv.x.Master().OpenOrders(t.Context(), "")
	if err != nil || len(open) != 0 {
		t.Errorf("open orders after refusals: %+v %v", open, err)
	}
}
