package simserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

const (
	apiKey = "mx0aBYs33eIilxBWC5"
	secret = "45d0b3c26f2644f19bfb98b07741b2f5"
)

var testNow = time.UnixMilli(1644489390087)

// protoServer is the protocol layer with an account handler that echoes the
// parameters it received, so the tests see parsing, auth and limits without
// the simulator.
func protoServer(t *testing.T, o Options) (*Server, *httptest.Server, *exchangetest.StepClock) {
	t.Helper()
	clk := exchangetest.NewStepClock(testNow)
	if o.Clock == nil {
		o.Clock = clk
	}
	if o.Keys == nil {
		o.Keys = []Key{{APIKey: apiKey, Secret: secret, UID: "1001", Main: true, Permissions: AllPermissions()}}
	}
	s, err := newServer(o)
	if err != nil {
		t.Fatal(err)
	}
	echo := func(r *request) (any, *apiError) {
		out := map[string]string{}
		for k, v := range r.p.vals {
			out[k] = v
		}
		return out, nil
	}
	for _, id := range []exchange.EndpointID{exchange.EpAccount, exchange.EpNewOrder, exchange.EpDepth, exchange.EpCreateSubAccount, exchange.EpAddSTPGroupUID} {
		s.handlers[id] = echo
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs, clk
}

func sign(text string) string { return exchange.Sign(exchange.NewSecret(secret), text, "") }

// do sends a raw request and returns status, body and the Retry-After header.
func do(t *testing.T, method, url, body string, hdr map[string]string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Retry-After")
}

var keyHdr = map[string]string{"x-svc-apikey": apiKey}

func TestRoutingAndContentType(t *testing.T) {
	t.Parallel()
	_, hs, _ := protoServer(t, Options{})
	noType := map[string]string{"Content-Type": ""}
	plain := map[string]string{"Content-Type": "text/plain"}
	bad := `{"code":700013,"msg":"Invalid content Type"}`
	tests := []struct {
		method, path string
		hdr          map[string]string
		reqBody      string
		status       int
		body         string
	}{
		{"GET", "/api/v3/ping", nil, "", 200, `{}`},
		{"GET", "/api/v3/time", nil, "", 200, `{"serverTime":1644489390087}`},
		{"GET", "/api/v3/nope", nil, "", 404, `{"code":730003,"msg":"no such endpoint: /api/v3/nope"}`},
		{"PUT", "/api/v3/order", nil, "", 405, `{"code":730003,"msg":"method PUT not allowed on /api/v3/order"}`},
		// Without a body no Content-Type is needed, and one that is sent
		// describes nothing (facts file).
		{"GET", "/api/v3/ping", noType, "", 200, `{}`},
		{"GET", "/api/v3/time", noType, "", 200, `{"serverTime":1644489390087}`},
		{"GET", "/api/v3/ping", plain, "", 200, `{}`},
		{"POST", "/api/v3/ping", noType, "", 405, `{"code":730003,"msg":"method POST not allowed on /api/v3/ping"}`},
		// A body must be JSON or form-encoded parameters.
		{"GET", "/api/v3/ping", plain, "{}", 400, bad},
		{"GET", "/api/v3/ping", noType, "{}", 400, bad},
		{"GET", "/api/v3/ping", map[string]string{"Content-Type": "application/jsonp"}, "{}", 400, bad},
		{"GET", "/api/v3/ping", map[string]string{"Content-Type": "application/json; charset=utf-8"}, "{}", 200, `{}`},
		{"GET", "/api/v3/ping", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "a=1", 200, `{}`},
	}
	for _, tt := range tests {
		st, body, _ := do(t, tt.method, hs.URL+tt.path, tt.reqBody, tt.hdr)
		if st != tt.status || body != tt.body {
			t.Errorf("%s %s %v %q: %d %s, want %d %s", tt.method, tt.path, tt.hdr, tt.reqBody, st, body, tt.status, tt.body)
		}
	}
}

func TestParameterForms(t *testing.T) {
	t.Parallel()
	_, hs, _ := protoServer(t, Options{})
	ts := "timestamp=1644489390087"
	tests := []struct {
		name, query, body, want string
	}{
		{"query", "symbol=BTCUSDT&" + ts, "", `{"symbol":"BTCUSDT","timestamp":"1644489390087"}`},
		{"form body", "", "symbol=BTCUSDT&" + ts, `{"symbol":"BTCUSDT","timestamp":"1644489390087"}`},
		{"mixed", "symbol=BTCUSDT", "side=BUY&" + ts, `{"side":"BUY","symbol":"BTCUSDT","timestamp":"1644489390087"}`},
		{"query wins", "symbol=BTCUSDT&" + ts, "symbol=ETHUSDT", `{"symbol":"BTCUSDT","timestamp":"1644489390087"}`},
		{"json body", ts, `{"symbol":"ETHUSDT","quantity":1.5,"post":true,"skip":null}`, `{"post":"true","quantity":"1.5","symbol":"ETHUSDT","timestamp":"1644489390087"}`},
		{"json body, query wins", "symbol=BTCUSDT&" + ts, `{"symbol":"ETHUSDT"}`, `{"symbol":"BTCUSDT","timestamp":"1644489390087"}`},
		{"escaped", "network=BEP20%28BSC%29&note=a%20b&" + ts, "", `{"network":"BEP20(BSC)","note":"a b","timestamp":"1644489390087"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.query
			q += "&signature=" + sign(tt.query+tt.body)
			q = strings.TrimPrefix(q, "&")
			st, body, _ := do(t, "POST", hs.URL+"/api/v3/order?"+q, tt.body, keyHdr)
			if st != 200 || body != tt.want {
				t.Errorf("%d %s, want %s", st, body, tt.want)
			}
		})
	}
	// The signature may also end a form body (the facts file's mixed vector).
	qs, bd := "symbol=BTCUSDT&side=BUY&type=LIMIT", "quantity=1&price=11&recvWindow=5000&timestamp=1644489390087"
	st, body, _ := do(t, "POST", hs.URL+"/api/v3/order?"+qs, bd+"&signature=d1a676610ceb39174c8039b3f548357994b2a34139a8addd33baadba65684592", keyHdr)
	if st != 200 || !strings.Contains(body, `"price":"11"`) {
		t.Errorf("facts vector 2: %d %s", st, body)
	}
}

func TestMalformedParameters(t *testing.T) {
	t.Parallel()
	_, hs, _ := protoServer(t, Options{})
	tests := []struct {
		name, query, body string
		code              int
	}{
		{"bad escape", "symbol=%zz", "", exchange.CodeIllegalCharacters},
		{"control character", "symbol=a%01b", "", exchange.CodeIllegalCharacters},
		{"broken json", "", `{"symbol":`, exchange.CodeParameterError},
		{"json then junk", "", `{"a":"1"} x`, exchange.CodeParameterError},
		{"signature twice", "a=1&signature=ab&signature=cd", "", exchange.CodeParameterError},
	}
	for _, tt := range tests {
		st, body, _ := do(t, "POST", hs.URL+"/api/v3/order?"+tt.query, tt.body, keyHdr)
		if st != 400 || !strings.Contains(body, `"code":`+strconv.Itoa(tt.code)) {
			t.Errorf("%s: %d %s, want code %d", tt.name, st, body, tt.code)
		}
	}
	big := strings.Repeat("a", maxBody+1)
	if st, _, _ := do(t, "POST", hs.URL+"/api/v3/order", big, keyHdr); st != 413 {
		t.Errorf("oversized body: %d", st)
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	_, hs, clk := protoServer(t, Options{Limits: Limits{Off: true}, Keys: []Key{
		{APIKey: apiKey, Secret: secret, UID: "1001", Main: true, Permissions: AllPermissions()},
		{APIKey: "readonly", Secret: secret, UID: "1001", Main: true, Permissions: []exchange.Permission{exchange.PermSpotAccountRead}},
		{APIKey: "subkey", Secret: secret, UID: "2002", Permissions: AllPermissions()},
		{APIKey: "bound", Secret: secret, UID: "1001", Main: true, Permissions: AllPermissions(), IPs: []string{"10.1.2.3"}},
	}})
	signed := func(q string) string { return q + "&signature=" + sign(q) }
	ts := "timestamp=1644489390087"
	tests := []struct {
		name, path, query, key string
		status, code           int
	}{
		{"ok", "/api/v3/account", signed(ts), apiKey, 200, 0},
		{"missing key", "/api/v3/account", signed(ts), "", 401, exchange.CodeAPIKeyRequired},
		{"invalid key", "/api/v3/account", signed(ts), "nope", 401, exchange.CodeInvalidAccessKey},
		{"ip binding", "/api/v3/account", signed(ts), "bound", 401, exchange.CodeIPNotWhitelisted},
		{"permission", "/api/v3/order", signed("symbol=X&" + ts), "readonly", 401, exchange.CodeNoEndpointPermission},
		{"sub key on sub-account endpoint", "/api/v3/sub-account/virtualSubAccount", signed(ts), "subkey", 401, exchange.CodeNoAuthority},
		{"bad signature", "/api/v3/account", ts + "&signature=" + sign("timestamp=1"), apiKey, 400, exchange.CodeSignatureInvalid},
		{"uppercase signature", "/api/v3/account", ts + "&signature=" + strings.ToUpper(sign(ts)), apiKey, 400, exchange.CodeSignatureInvalid},
		{"no signature", "/api/v3/account", ts, apiKey, 400, exchange.CodeParameterNull},
		{"no timestamp", "/api/v3/account", signed("recvWindow=5000"), apiKey, 400, exchange.CodeParameterNull},
		{"recvWindow 60000", "/api/v3/account", signed(ts + "&recvWindow=60000"), apiKey, 400, exchange.CodeRecvWindowTooLarge},
		{"timestamp 1s ahead", "/api/v3/account", signed("timestamp=1644489391087"), apiKey, 400, exchange.CodeTimestampOutsideWindow},
		{"timestamp 999ms ahead", "/api/v3/account", signed("timestamp=1644489391086"), apiKey, 200, 0},
		{"timestamp too old", "/api/v3/account", signed("timestamp=1644489385086"), apiKey, 400, exchange.CodeTimestampOutsideWindow},
		{"timestamp at the window", "/api/v3/account", signed("timestamp=1644489385087"), apiKey, 200, 0},
		{"wider window", "/api/v3/account", signed("timestamp=1644489380087&recvWindow=10000"), apiKey, 200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.Set(testNow)
			method := "GET"
			if tt.path != "/api/v3/account" {
				method = "POST"
			}
			st, body, _ := do(t, method, hs.URL+tt.path+"?"+tt.query, "", map[string]string{"X-SVC-APIKEY": tt.key})
			if st != tt.status || (tt.code != 0 && !strings.Contains(body, `"code":`+strconv.Itoa(tt.code))) {
				t.Errorf("%d %s, want %d code %d", st, body, tt.status, tt.code)
			}
		})
	}
}

func TestRateLimitsAndBans(t *testing.T) {
	t.Parallel()
	s, hs, clk := protoServer(t, Options{Limits: Limits{BanAfter: 3, TimeScale: 0.001}})
	// depth weighs 3: 100 requests fill the IP budget of 300 per 10 s.
	for i := range 100 {
		if st, body, _ := do(t, "GET", hs.URL+"/api/v3/depth?symbol=BTCUSDT", "", nil); st != 200 {
			t.Fatalf("request %d: %d %s", i, st, body)
		}
	}
	st, body, ra := do(t, "GET", hs.URL+"/api/v3/depth?symbol=BTCUSDT", "", nil)
	if st != 429 || ra != "10" || body != `{"code":429,"msg":"too many requests (ip budget)"}` {
		t.Fatalf("over budget: %d %s Retry-After %q", st, body, ra)
	}
	// Keyed endpoints count against the UID budget, separately.
	q := "timestamp=1644489390087"
	if st, body, _ := do(t, "GET", hs.URL+"/api/v3/account?"+q+"&signature="+sign(q), "", keyHdr); st != 200 {
		t.Fatalf("UID budget not separate: %d %s", st, body)
	}
	do(t, "GET", hs.URL+"/api/v3/depth?symbol=BTCUSDT", "", nil)
	st, _, ra = do(t, "GET", hs.URL+"/api/v3/depth?symbol=BTCUSDT", "", nil)
	if st != 418 || ra != "1" { // 2 minutes × 0.001, rounded up to a second
		t.Fatalf("third strike: %d Retry-After %q", st, ra)
	}
	if st, _, _ := do(t, "GET", hs.URL+"/api/v3/ping", "", nil); st != 418 {
		t.Fatalf("banned IP served: %d", st)
	}
	clk.Set(testNow.Add(10*time.Second + 121*time.Millisecond))
	if st, body, _ := do(t, "GET", hs.URL+"/api/v3/ping", "", nil); st != 200 {
		t.Fatalf("ban did not expire: %d %s", st, body)
	}
	var bans int
	for _, r := range s.Requests() {
		if r.Status == 418 {
			bans++
		}
	}
	if bans != 2 {
		t.Errorf("logged %d 418s, want 2", bans)
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	s, hs, clk := protoServer(t, Options{Limits: Limits{Off: true}})
	c, err := exchange.New(exchange.WithBaseURL(hs.URL), exchange.WithCredentials(exchange.NewSecret(apiKey), exchange.NewSecret(secret)),
		exchange.WithClock(clk), exchange.WithLimits(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var called int
	var mu sync.Mutex
	s.handlers[exchange.EpNewOrder] = func(*request) (any, *apiError) {
		mu.Lock()
		called++
		mu.Unlock()
		return map[string]any{"symbol": "BTCUSDT", "orderId": "1"}, nil
	}
	// A POST: Go's transport never replays it after a dropped connection,
	// so the handler count is exact.
	placeOrder := func() error {
		_, err := c.Spot.NewOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
			Quantity: decimal.NewFromInt(1), Price: decimal.NewFromInt(10)})
		return err
	}
	check := func(name string, f Fault, wantCalled int, wantUnknown bool) {
		t.Helper()
		s.SetFaults(Faults{Seed: 1, ByEndpoint: map[exchange.EndpointID]Fault{exchange.EpNewOrder: f}})
		mu.Lock()
		called = 0
		mu.Unlock()
		err := placeOrder()
		mu.Lock()
		got := called
		mu.Unlock()
		if got != wantCalled || errors.Is(err, exchange.ErrUnknownOutcome) != wantUnknown {
			t.Errorf("%s: handler ran %d times, err %v", name, got, err)
		}
	}
	check("5XX before acting", Fault{Before5XX: 1}, 0, true)
	check("5XX after acting", Fault{After5XX: 1}, 1, true)
	check("drop after acting", Fault{DropAfter: 1}, 1, true)
	check("latency", Fault{Latency: 20 * time.Millisecond}, 1, false)

	s.SetFaults(Faults{Storm429Until: clk.Now().Add(time.Hour)})
	if err := placeOrder(); !errors.Is(err, exchange.ErrRateLimited) {
		t.Errorf("storm: %v", err)
	}
	s.SetFaults(Faults{ClockOffset: 1500 * time.Millisecond})
	off, err := c.SyncTime(ctx)
	if err != nil || off != 1500*time.Millisecond {
		t.Errorf("clock offset: %v %v", off, err)
	}
}
