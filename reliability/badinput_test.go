package reliability

import (
	"bytes"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/simserver"
)

// Order parameters with {ts} for the signing time.
const (
	orderHead = "symbol=BTCUSDT&side=BUY&type=LIMIT"
	orderQP   = "quantity=0.001&price=15000"
	orderQ    = orderHead + "&" + orderQP + "&timestamp={ts}"
)

// badCase is one malformed request and the spec's answer to it.
type badCase struct {
	name         string
	method, path string
	query, body  string
	contentType  string
	unsigned     bool // sent without key and signature
	status, code int
}

// order is a new-order case whose query is orderQ with old replaced by new.
func order(name, old, new string, status, code int) badCase {
	q := orderQ
	if old != "" {
		if !strings.Contains(q, old) {
			panic("order case " + name + ": " + old + " not in " + q)
		}
		q = strings.Replace(q, old, new, 1)
	}
	return badCase{name: name, method: "POST", path: "/api/v3/order", query: q, status: status, code: code}
}

func badCases() []badCase {
	const (
		perr  = exchange.CodeParameterError
		pnull = exchange.CodeParameterNull
		chars = exchange.CodeIllegalCharacters
	)
	big := strings.Repeat("9", 400)
	return []badCase{
		// Broken bodies and wrong types.
		{name: "broken JSON body", method: "POST", path: "/api/v3/order", query: "timestamp={ts}",
			body: `{"symbol":"BTCUSDT","side":"BUY",`, status: 400, code: perr},
		{name: "JSON then junk", method: "POST", path: "/api/v3/order", query: "timestamp={ts}",
			body: `{"symbol":"BTCUSDT"} {"side":"BUY"}`, status: 400, code: perr},
		{name: "JSON quantity of the wrong type", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: `{"quantity":"abc"}`, status: 400, code: perr},
		{name: "JSON quantity as an object", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: `{"quantity":{"v":1}}`, status: 400, code: perr},
		{name: "JSON quantity true", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: `{"quantity":true}`, status: 400, code: perr},
		order("quantity=abc", "quantity=0.001", "quantity=abc", 400, perr),
		order("price with a comma", "price=15000", "price=15%2C000", 400, perr),
		order("side lowercase", "side=BUY", "side=buy", 400, perr),
		order("unknown type", "type=LIMIT", "type=STOP_LOSS", 400, perr),
		order("stpMode unknown", "timestamp=", "stpMode=never&timestamp=", 400, perr),
		order("client id of 33 characters", "timestamp=", "newClientOrderId="+strings.Repeat("a", 33)+"&timestamp=", 400, perr),
		order("client id with a space", "timestamp=", "newClientOrderId=bad%20id%21&timestamp=", 400, perr),
		order("non-ASCII client id", "timestamp=", "newClientOrderId=%C3%A9t%C3%A9&timestamp=", 400, perr),

		// Missing parameters.
		order("no symbol", "symbol=BTCUSDT&", "", 400, pnull),
		order("no side", "side=BUY&", "", 400, pnull),
		order("no type", "type=LIMIT&", "", 400, pnull),
		order("no quantity", "quantity=0.001&", "", 400, pnull),
		order("no price", "price=15000&", "", 400, pnull),
		order("empty symbol", "symbol=BTCUSDT", "symbol=", 400, pnull),
		order("no timestamp", "&timestamp={ts}", "", 400, pnull),
		{name: "cancel without an id", method: "DELETE", path: "/api/v3/order", query: "symbol=BTCUSDT&timestamp={ts}",
			status: 400, code: exchange.CodeOrderIDMissing},
		{name: "batch without batchOrders", method: "POST", path: "/api/v3/batchOrders", query: "timestamp={ts}", status: 400, code: pnull},

		// Duplicated parameters within one part of the request.
		order("quantity twice in the query", "quantity=0.001", "quantity=0.001&quantity=5", 400, perr),
		order("symbol twice in the query", "symbol=BTCUSDT", "symbol=BTCUSDT&symbol=XYZUSDT", 400, perr),
		{name: "quantity twice in a JSON body", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: `{"quantity":"0.001","quantity":"5"}`, status: 400, code: perr},
		{name: "a JSON name twice, once escaped", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: `{"quantity":"0.001","quan\u0074ity":"5"}`, status: 400, code: perr},
		{name: "quantity twice in a form body", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: "quantity=0.001&quantity=5", status: 400, code: perr},

		// Oversized bodies.
		{name: "body of 1 MiB + 1", method: "POST", path: "/api/v3/order", query: orderQ,
			body: `{"x":"` + strings.Repeat("a", 1<<20-7) + `"}`, status: 413, code: perr},

		// Control and non-ASCII characters.
		order("control character in the symbol", "symbol=BTCUSDT", "symbol=BTC%01USDT", 400, chars),
		order("tab in the quantity", "quantity=0.001", "quantity=0.001%09", 400, chars),
		order("DEL in the client id", "timestamp=", "newClientOrderId=a%7Fb&timestamp=", 400, chars),
		order("newline in a parameter name", "timestamp=", "a%0Ab=1&timestamp=", 400, chars),
		order("broken percent-encoding", "symbol=BTCUSDT", "symbol=BTC%ZZUSDT", 400, chars),
		{name: "NUL in a JSON value", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: `{"quantity":"0.001\u0000"}`, status: 400, code: chars},
		order("invalid UTF-8 in the client id", "timestamp=", "newClientOrderId=a%FFb&timestamp=", 400, chars),
		order("non-ASCII symbol", "symbol=BTCUSDT", "symbol=BTC%C3%9CSDT", 400, exchange.CodeBadSymbol),
		order("full-width digit quantity", "quantity=0.001", "quantity=%EF%BC%91", 400, perr),

		// Numbers out of range.
		order("negative quantity", "quantity=0.001", "quantity=-0.001", 400, perr),
		order("negative price", "price=15000", "price=-15000", 400, perr),
		order("zero quantity", "quantity=0.001", "quantity=0", 400, pnull),
		order("zero price", "price=15000", "price=0", 400, pnull),
		order("NaN quantity", "quantity=0.001", "quantity=NaN", 400, perr),
		order("Inf price", "price=15000", "price=Inf", 400, perr),
		order("+Inf price", "price=15000", "price=%2BInf", 400, perr),
		order("exponent 1e400", "quantity=0.001", "quantity=1e400", 400, perr),
		order("exponent 1e-3", "quantity=0.001", "quantity=1e-3", 400, perr),
		order("400-digit quantity", "quantity=0.001", "quantity="+big, 400, perr),
		order("hex quantity", "quantity=0.001", "quantity=0x1", 400, perr),
		order("quantity above the maximum amount", "quantity=0.001", "quantity=1000", 400, exchange.CodeAboveMaxVolume),
		order("amount below the minimum", "quantity=0.001", "quantity=0.0001", 400, exchange.CodeBelowMinVolume),
		order("more than the balance", "quantity=0.001", "quantity=66.66", 400, exchange.CodeInsufficientPosition),
		{name: "JSON quantity 1e400", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: `{"quantity":1e400}`, status: 400, code: perr},
		{name: "JSON quantity NaN", method: "POST", path: "/api/v3/order", query: orderHead + "&price=15000&timestamp={ts}",
			body: `{"quantity":NaN}`, status: 400, code: perr},

		// Too many decimals (BTCUSDT: 4 in the quantity, 2 in the price).
		order("5 decimals in the quantity", "quantity=0.001", "quantity=0.00101", 400, perr),
		order("3 decimals in the price", "price=15000", "price=15000.001", 400, perr),

		// recvWindow and timestamps.
		order("recvWindow 60000", "timestamp=", "recvWindow=60000&timestamp=", 400, exchange.CodeRecvWindowTooLarge),
		order("recvWindow 0", "timestamp=", "recvWindow=0&timestamp=", 400, exchange.CodeRecvWindowTooLarge),
		order("recvWindow negative", "timestamp=", "recvWindow=-5&timestamp=", 400, exchange.CodeRecvWindowTooLarge),
		order("recvWindow not a number", "timestamp=", "recvWindow=5s&timestamp=", 400, perr),
		order("timestamp not a number", "timestamp={ts}", "timestamp=yesterday", 400, perr),
		order("timestamp in seconds", "timestamp={ts}", "timestamp={ts_s}", 400, exchange.CodeTimestampOutsideWindow),
		order("timestamp 1 s ahead", "timestamp={ts}", "timestamp={ts+1000}", 400, exchange.CodeTimestampOutsideWindow),
		order("timestamp 5001 ms old", "timestamp={ts}", "timestamp={ts-5001}", 400, exchange.CodeTimestampOutsideWindow),
		order("timestamp negative", "timestamp={ts}", "timestamp=-1", 400, exchange.CodeTimestampOutsideWindow),
		order("timestamp overflowing int64", "timestamp={ts}", "timestamp=99999999999999999999", 400, perr),
		order("timestamp with decimals", "timestamp={ts}", "timestamp={ts}.5", 400, perr),

		// Unknown symbol, on trading and on market data.
		order("unknown symbol", "symbol=BTCUSDT", "symbol=NOPEUSDT", 400, exchange.CodeBadSymbol),
		order("lowercase symbol", "symbol=BTCUSDT", "symbol=btcusdt", 400, exchange.CodeBadSymbol),
		{name: "depth of an unknown symbol", method: "GET", path: "/api/v3/depth", query: "symbol=NOPEUSDT", unsigned: true,
			status: 400, code: exchange.CodeBadSymbol},
		{name: "depth limit 5001", method: "GET", path: "/api/v3/depth", query: "symbol=BTCUSDT&limit=5001", unsigned: true,
			status: 400, code: perr},
		{name: "klines interval 1h", method: "GET", path: "/api/v3/klines", query: "symbol=BTCUSDT&interval=1h", unsigned: true,
			status: 400, code: perr},
		{name: "allOrders limit abc", method: "GET", path: "/api/v3/allOrders", query: "symbol=BTCUSDT&limit=abc&timestamp={ts}",
			status: 400, code: perr},

		// Batches.
		{name: "batchOrders not JSON", method: "POST", path: "/api/v3/batchOrders", query: "batchOrders=%5Bnope&timestamp={ts}",
			status: 400, code: perr},
		{name: "batch of 21", method: "POST", path: "/api/v3/batchOrders", query: "batchOrders=" + batchOf(21) + "&timestamp={ts}",
			status: 400, code: perr},
		{name: "batch of two symbols", method: "POST", path: "/api/v3/batchOrders",
			query: "batchOrders=" + escapeBatch(`[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.001","price":"15000"},`+
				`{"symbol":"XYZUSDT","side":"BUY","type":"LIMIT","quantity":"20","price":"0.4"}]`) + "&timestamp={ts}",
			status: 400, code: perr},

		// Content type: only a body is typed, and it must be JSON or form
		// parameters (a request without a body needs none).
		bodyOrder("text/plain form body", "text/plain"),
		bodyOrder("form body without a content type", "-"),
		bodyOrder("application/jsonp", "application/jsonp"),
		bodyOrder("application/json-seq", "application/json-seq"),
		bodyOrder("multipart/form-data", "multipart/form-data; boundary=x"),
	}
}

// bodyOrder is a well-formed new order sent as a form body declared with
// the content type ct ("-": none), which the server refuses with 700013.
func bodyOrder(name, ct string) badCase {
	return badCase{name: name, method: "POST", path: "/api/v3/order", query: "timestamp={ts}", body: orderHead + "&" + orderQP,
		contentType: ct, status: 400, code: exchange.CodeInvalidContentType}
}

// escapeBatch percent-encodes a batch list as the facts file says.
func escapeBatch(s string) string {
	r := strings.NewReplacer("[", "%5B", "]", "%5D", "{", "%7B", "}", "%7D", `"`, "%22", ":", "%3A", ",", "%2C")
	return r.Replace(s)
}

func batchOf(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = `{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.001","price":"15000"}`
	}
	return escapeBatch("[" + strings.Join(items, ",") + "]")
}

// fillTS writes the signing time into a case's text.
func fillTS(s string, ts int64) string {
	return strings.NewReplacer("{ts}", strconv.FormatInt(ts, 10), "{ts_s}", strconv.FormatInt(ts/1000, 10),
		"{ts+1000}", strconv.FormatInt(ts+1000, 10), "{ts-5001}", strconv.FormatInt(ts-5001, 10)).Replace(s)
}

// TestBadInputToTheServer sends each malformed request over HTTP and
// checks the exact status and code, that the server never reached its
// panic guard or answered 500, and that the account is exactly as before.
func TestBadInputToTheServer(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	r := newRig(t, simserver.Options{Limits: simserver.Limits{Off: true}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	// One resting order, so "no state change" covers open orders too.
	_, err := r.x.Master().PlaceOrder(t.Context(), bid("BTCUSDT", "0.01", "15000"))
	must(t, err)
	uid := r.x.MasterUID()
	for _, c := range badCases() {
		t.Run(c.name, func(t *testing.T) {
			before := accountState(t, r.x, uid)
			ts := r.x.Now().UnixMilli()
			req := rawReq{method: c.method, path: c.path, query: fillTS(c.query, ts), body: fillTS(c.body, ts), contentType: c.contentType}
			if !c.unsigned {
				req.key, req.secret = masterKey, masterSecret
			}
			got := send(t, r.url, req)
			if got.status != c.status || got.code != c.code {
				t.Errorf("answered %d code %d (%.200s), want %d code %d", got.status, got.code, got.body, c.status, c.code)
			}
			if after := accountState(t, r.x, uid); after != before {
				t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	for _, l := range r.s.Requests() {
		if l.Status >= 500 {
			t.Errorf("a request was answered %d code %d", l.Status, l.Code)
		}
	}
	if logs.Len() != 0 {
		t.Errorf("server logged: %s", logs.String())
	}
}
