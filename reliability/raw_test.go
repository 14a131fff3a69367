package reliability

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
)

// hmacHex signs text as the spec says: HMAC-SHA256 with the secret, in
// lowercase hex. It is written out here rather than taken from the
// exchange package, so a wrong signer there could not hide a wrong check
// in the server.
func hmacHex(secret, text string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(text))
	return hex.EncodeToString(m.Sum(nil))
}

// rawReq is one hand-built request.
type rawReq struct {
	method, path string
	query, body  string
	contentType  string // "-" sends none; "" sends application/json
	key, secret  string // empty key: no key header and no signature
	presigned    bool   // the query already ends with its signature
	header       map[string]string
}

// rawReply is what came back.
type rawReply struct {
	status int
	code   int // the error body's code; 0 for a success
	body   string
}

// send sends r. A keyed request is signed over query+body, with the
// signature appended last to the query, unless it is presigned.
func send(t *testing.T, base string, r rawReq) rawReply {
	t.Helper()
	q := r.query
	if r.key != "" && !r.presigned {
		if q != "" {
			q += "&"
		}
		q += "signature=" + hmacHex(r.secret, r.query+r.body)
	}
	u := base + r.path
	if q != "" {
		u += "?" + q
	}
	req, err := http.NewRequestWithContext(t.Context(), r.method, u, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	switch r.contentType {
	case "":
		req.Header.Set("Content-Type", "application/json")
	case "-":
	default:
		req.Header.Set("Content-Type", r.contentType)
	}
	if r.key != "" {
		req.Header.Set(exchange.DefaultKeyHeader, r.key)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := rawReply{status: resp.StatusCode, body: string(b)}
	if resp.StatusCode != 200 {
		var e struct {
			Code int `json:"code"`
		}
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s %s: error reply is not JSON: %d %q", r.method, r.path, resp.StatusCode, b)
		}
		out.code = e.Code
	}
	return out
}

// accountState renders what a refused request must leave untouched in
// one account, read from the simulator directly: balances, open orders,
// the number of orders and trades per symbol.
func accountState(t *testing.T, x *sim.Exchange, uid string) string {
	t.Helper()
	ctx := context.Background()
	p := x.As(uid)
	var b strings.Builder
	a, err := p.Account(ctx)
	must(t, err)
	for _, bl := range a.Balances {
		fmt.Fprintf(&b, "%s %s/%s; ", bl.Asset, bl.Free, bl.Locked)
	}
	open, err := p.OpenOrders(ctx, "")
	must(t, err)
	for _, o := range open {
		fmt.Fprintf(&b, "[%s %s %s %s %s@%s %s] ", o.OrderID, o.ClientOrderID, o.Symbol, o.Side, o.OrigQty, o.Price, o.Status)
	}
	for _, sym := range []string{"BTCUSDT", "XYZUSDT"} {
		all, err := p.AllOrders(ctx, exchange.AllOrdersRequest{Symbol: sym, Limit: 1000})
		must(t, err)
		tr, err := p.MyTrades(ctx, exchange.MyTradesRequest{Symbol: sym, Limit: 100})
		must(t, err)
		fmt.Fprintf(&b, "%s orders %d trades %d; ", sym, len(all), len(tr))
	}
	return b.String()
}
