package simserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange/sim"
)

// A refusal quotes at most exchange.MaxEcho (64) bytes of what was sent.
// Before, each of these echoed the whole text (up to the 1 MiB body cap).
func TestRefusalsQuoteAShortPrefix(t *testing.T) {
	t.Parallel()
	sv := serve(t, sim.Options{}, Options{Limits: Limits{Off: true}})
	ts := fmt.Sprintf("timestamp=%d", sv.x.Now().UnixMilli())
	long := func(c string) string { return strings.Repeat(c, 1000) }
	p64 := func(c string) string { return strings.Repeat(c, 64) + "..." }
	tests := []struct {
		name, method, path, query, body string
		signed                          bool
		want                            string
	}{
		{"unknown symbol (market data)", "GET", "/api/v3/depth", "symbol=" + long("A"), "", false,
			`{"code":10007,"msg":"bad symbol \"` + p64("A") + `\""}`},
		{"unknown symbol (order)", "POST", "/api/v3/order", "symbol=" + long("B") + "&side=BUY&type=LIMIT&quantity=1&price=1&" + ts, "", true,
			`{"code":10007,"msg":"bad symbol \"` + p64("B") + `\""}`},
		{"timestamp", "GET", "/api/v3/account", "timestamp=" + long("1"), "", true,
			`{"code":33333,"msg":"parameter timestamp: \"` + p64("1") + `\" is not an integer"}`},
		{"quantity", "POST", "/api/v3/order", "symbol=BTCUSDT&side=BUY&type=LIMIT&price=1&quantity=" + long("9") + "x&" + ts, "", true,
			`{"code":33333,"msg":"parameter quantity: \"` + p64("9") + `\" is not a decimal number"}`},
		{"kline interval", "GET", "/api/v3/klines", "symbol=BTCUSDT&interval=" + long("m"), "", false,
			`{"code":33333,"msg":"parameter interval: \"` + p64("m") + `\" is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M"}`},
		{"parameter name twice", "GET", "/api/v3/depth", "symbol=BTCUSDT&" + long("n") + "=1&" + long("n") + "=2", "", false,
			`{"code":33333,"msg":"parameter ` + p64("n") + ` sent twice"}`},
		{"unknown path", "GET", "/api/v3/" + long("p"), "", "", false,
			`{"code":730003,"msg":"no such endpoint: /api/v3/` + strings.Repeat("p", 56) + `..."}`},
		{"huge number in a batch item", "POST", "/api/v3/batchOrders", ts, `{"batchOrders":[` + long("7") + `]}`, true,
			`{"code":33333,"msg":"parameter batchOrders[0]: body is not a JSON object: found a JSON number"}`},
	}
	for _, tt := range tests {
		q := tt.query
		if tt.signed {
			q = strings.TrimPrefix(q+"&signature="+sign(q+tt.body), "&")
		}
		st, body, _ := do(t, tt.method, sv.url+tt.path+"?"+q, tt.body, keyHdr)
		if st < 400 || st >= 500 || body != tt.want {
			t.Errorf("%s: %d %s\nwant %s", tt.name, st, body, tt.want)
		}
	}
}
