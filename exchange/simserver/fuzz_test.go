package simserver

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// FuzzParseParams drives the request parser, and then the whole server,
// with arbitrary query and body text. The parser must never panic, must
// keep the query's value on a conflict, and must hand the signature check
// exactly the query text followed by the body text less the signature; the
// server must answer every request with JSON and never reach its panic
// guard.
func FuzzParseParams(f *testing.F) {
	f.Add("symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1&price=11&recvWindow=5000&timestamp=1644489390087", "")
	f.Add("symbol=BTCUSDT&side=BUY&type=LIMIT", "quantity=1&price=11&recvWindow=5000&timestamp=1644489390087&signature=ab")
	f.Add("timestamp=1&signature=00", `{"symbol":"ETHUSDT","quantity":1.5,"post":true,"skip":null}`)
	f.Add("batchOrders=%5B%7B%22symbol%22%3A%22BTCUSDT%22%7D%5D", "")
	f.Add("a=%zz&b=%01", `{"a":[1,{"b":2}],"c":"\u0000"}`)
	f.Add("symbol=BTCUSDT&limit=-1&startTime=99999999999999999999", "{")
	f.Add("&&=&signature=&signature=", "=&=")
	f.Add("symbol=BTCUSDT", `{ "side": "BUY", "signature": "ab", "timestamp": 1 }`)
	f.Add("", `{"signature":null}`)
	f.Add("", `{"a":"\ud800","b\udc00":1,"c":"\ud83d\ude00"}`)

	x, err := sim.New(sim.Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: sim.Immediate})
	if err != nil {
		f.Fatal(err)
	}
	x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000"))
	var logs bytes.Buffer
	s, err := New(x, Options{Limits: Limits{Off: true}, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Keys: []Key{{APIKey: apiKey, Secret: secret, UID: x.MasterUID(), Main: true, Permissions: AllPermissions()}}})
	if err != nil {
		f.Fatal(err)
	}
	routes := exchange.Endpoints()

	f.Fuzz(func(t *testing.T, query, body string) {
		p, perr := parseParams(query, []byte(body))
		if perr == nil {
			if qp, qerr := parseParams(query, nil); qerr == nil {
				for k, v := range qp.vals {
					if p.vals[k] != v {
						t.Fatalf("query value %s=%q lost to %q", k, v, p.vals[k])
					}
				}
			}
			if len(p.signedText) > len(query)+len(body) {
				t.Fatalf("signed text longer than the request: %q", p.signedText)
			}
			// A signature cut out of a JSON body leaves a JSON object.
			q, _, _ := stripSignature(query)
			if b := bytes.TrimSpace([]byte(body)); len(b) > 0 && b[0] == '{' && !json.Valid([]byte(p.signedText[len(q):])) {
				t.Fatalf("signed body %q of %q is not JSON", p.signedText[len(q):], body)
			}
		} else if perr.status != 400 {
			t.Fatalf("parse error with status %d: %v", perr.status, perr)
		}
		// One signed and one public endpoint, chosen by the input, over the
		// whole server.
		e := routes[(len(query)+len(body))%len(routes)]
		target := e.Path
		if query != "" {
			target += "?" + strings.ReplaceAll(query, "#", "%23")
		}
		req, rerr := http.NewRequest(e.Method, "http://127.0.0.1"+target, strings.NewReader(body))
		if rerr != nil {
			return // not a request a client could send
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(exchange.DefaultKeyHeader, apiKey)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %s: reply %d is not JSON: %q", e.Method, target, w.Code, w.Body.String())
		}
		if strings.Contains(logs.String(), "handler panic") {
			t.Fatalf("%s %s with body %q: %s", e.Method, target, body, logs.String())
		}
	})
}
