package simserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// FuzzWalletHandlers sends signed requests with arbitrary parameters to
// the wallet and sub-account endpoints, so the handlers themselves (not
// only the parser) see the input: no panic, never a 500, always JSON.
func FuzzWalletHandlers(f *testing.F) {
	f.Add(uint8(0), "coin=BTC&netWork=BTC&address=a&amount=1")
	f.Add(uint8(3), "coin=BTC&limit=1001&startTime=1&endTime=99999999999999")
	f.Add(uint8(8), "coin=BTC&page=2147483647&limit=100")
	f.Add(uint8(9), "fromAccountType=SPOT&toAccountType=FUTURES&asset=USDT&amount=-0.000000001")
	f.Add(uint8(10), "fromAccountType=SPOT&toAccountType=FUTURES&page=99999999999&size=0")
	f.Add(uint8(17), "subAccount=abcdefgh1&note=n")
	f.Add(uint8(19), "subAccount=abcdefgh1&note=n&permissions=SPOT_DEAL_READ,,&ip=1.2.3.4,::1,")
	f.Add(uint8(22), "clientTranId=x&toAccount=abcdefgh1&fromAccountType=SPOT&toAccountType=SPOT&asset=USDT&amount=1e5")

	x, err := sim.New(sim.Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols()})
	if err != nil {
		f.Fatal(err)
	}
	if err := x.Credit(x.MasterUID(), "USDT", dec("1000")); err != nil {
		f.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := New(x, Options{Limits: Limits{Off: true}, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Keys: []Key{{APIKey: apiKey, Secret: secret, UID: x.MasterUID(), Main: true, Permissions: AllPermissions()}}})
	if err != nil {
		f.Fatal(err)
	}
	var eps []exchange.Endpoint
	for _, e := range exchange.Endpoints() {
		if e.Area == "wallet" || e.Area == "sub-account" {
			eps = append(eps, e)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, query string) {
		e := eps[int(which)%len(eps)]
		q := strings.ReplaceAll(query, "#", "%23")
		if q != "" {
			q += "&"
		}
		q += fmt.Sprint("timestamp=", x.Now().UnixMilli())
		q += "&signature=" + exchange.Sign(exchange.NewSecret(secret), q, "")
		req, rerr := http.NewRequest(e.Method, "http://127.0.0.1"+e.Path+"?"+q, http.NoBody)
		if rerr != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(exchange.DefaultKeyHeader, apiKey)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code >= 500 || !json.Valid(w.Body.Bytes()) || strings.Contains(logs.String(), "handler panic") {
			t.Fatalf("%s ?%s: %d %s %s", e, q, w.Code, w.Body.String(), logs.String())
		}
	})
}
