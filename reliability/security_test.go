package reliability

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/simserver"
)

// subKey is a sub-account API key as created through the REST API.
type subKey struct {
	uid, apiKey, secret string
}

// newSubKey creates, through the REST API as a user would, a sub-account
// named name and a key for it with the given permissions (comma-separated)
// and IP binding (comma-separated, may be empty); the sub-account is
// credited 1000 USDT and holds one resting order, whose id is returned.
func newSubKey(t *testing.T, r *rig, name, perms, ips string) (subKey, string) {
	t.Helper()
	ctx := t.Context()
	master := r.client(t, masterKey, masterSecret, exchange.WithClock(r.x), exchange.WithLimits(nil))
	_, err := master.Sub.CreateSubAccount(ctx, name, "reliability")
	must(t, err)
	uid, err := r.x.SubAccountUID(name)
	must(t, err)
	q := "subAccount=" + name + "&note=key&permissions=" + perms + "&timestamp={ts}"
	if ips != "" {
		q = "ip=" + ips + "&" + q
	}
	got := send(t, r.url, rawReq{method: "POST", path: "/api/v3/sub-account/apiKey", query: fillTS(q, r.x.Now().UnixMilli()),
		key: masterKey, secret: masterSecret})
	var k struct {
		APIKey    string `json:"apiKey"`
		SecretKey string `json:"secretKey"`
	}
	if err := json.Unmarshal([]byte(got.body), &k); got.status != 200 || err != nil || k.APIKey == "" || len(k.SecretKey) < 16 {
		t.Fatalf("create key: %d %s %v", got.status, got.body, err)
	}
	must(t, r.x.Credit(uid, "USDT", dec("1000")))
	ack, err := r.x.As(uid).PlaceOrder(ctx, bid("BTCUSDT", "0.01", "15000"))
	must(t, err)
	return subKey{uid: uid, apiKey: k.APIKey, secret: k.SecretKey}, ack.OrderID
}

func (k subKey) client(t *testing.T, r *rig) *exchange.Client {
	return r.client(t, k.apiKey, k.secret, exchange.WithClock(r.x), exchange.WithLimits(nil))
}

func wantCode(t *testing.T, what string, err error, status, code int) {
	t.Helper()
	var ae *exchange.APIError
	if !errors.As(err, &ae) || ae.Status != status || ae.Code != code {
		t.Errorf("%s: %v, want HTTP %d code %d", what, err, status, code)
	}
}

// TestKeyWithoutTradePermissionCannotTrade: a sub-account key holding
// SPOT_ACCOUNT_READ and SPOT_DEAL_READ reads its account and orders, and
// every trading call is refused with 401 code 700007 and changes nothing.
func TestKeyWithoutTradePermissionCannotTrade(t *testing.T) {
	t.Parallel()
	r := newRig(t, simserver.Options{Limits: simserver.Limits{Off: true}})
	k, resting := newSubKey(t, r, "readonly01", "SPOT_ACCOUNT_READ,SPOT_DEAL_READ", "")
	uid, c := k.uid, k.client(t, r)
	ctx := t.Context()
	before := accountState(t, r.x, uid)

	// It can read.
	a, err := c.Spot.Account(ctx)
	if err != nil || a.Balance("USDT").Free.String() != "850" || a.Balance("USDT").Locked.String() != "150" {
		t.Fatalf("account: %+v %v", a, err)
	}
	open, err := c.Spot.OpenOrders(ctx, "BTCUSDT")
	if err != nil || len(open) != 1 || open[0].OrderID != resting {
		t.Fatalf("open orders: %+v %v", open, err)
	}
	o, err := c.Spot.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: resting})
	if err != nil || o.Status != exchange.StatusNew || o.OrigQty.String() != "0.01" {
		t.Fatalf("query order: %+v %v", o, err)
	}
	all, err := c.Spot.AllOrders(ctx, exchange.AllOrdersRequest{Symbol: "BTCUSDT"})
	if err != nil || len(all) != 1 {
		t.Fatalf("all orders: %d %v", len(all), err)
	}

	// It cannot trade.
	const perm = exchange.CodeNoEndpointPermission
	_, err = c.Spot.NewOrder(ctx, bid("BTCUSDT", "0.01", "15000"))
	wantCode(t, "new order", err, 401, perm)
	wantCode(t, "test order", c.Spot.TestOrder(ctx, bid("BTCUSDT", "0.01", "15000")), 401, perm)
	_, err = c.Spot.BatchOrders(ctx, []exchange.NewOrder{bid("BTCUSDT", "0.01", "15000")})
	wantCode(t, "batch", err, 401, perm)
	_, err = c.Spot.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrderID: resting})
	wantCode(t, "cancel", err, 401, perm)
	_, err = c.Spot.CancelOpenOrders(ctx, "BTCUSDT")
	wantCode(t, "cancel all", err, 401, perm)
	_, err = c.Spot.SetTokDeduct(ctx, true)
	wantCode(t, "token deduction", err, 401, perm)

	// Every spot endpoint the table marks SPOT_DEAL_WRITE, by hand, with
	// the parameters a real order would carry.
	n := 0
	for _, e := range exchange.Endpoints() {
		if e.Security != exchange.Signed || e.Permission != exchange.PermSpotDealWrite {
			continue
		}
		n++
		got := send(t, r.url, rawReq{method: e.Method, path: e.Path, query: fillTS(orderQ+"&orderId="+resting, r.x.Now().UnixMilli()),
			key: k.apiKey, secret: k.secret})
		if got.status != 401 || got.body != `{"code":700007,"msg":"no permission to access the endpoint"}` {
			t.Errorf("%s: %d %s", e.Name, got.status, got.body)
		}
	}
	if n != 6 {
		t.Errorf("%d endpoints need SPOT_DEAL_WRITE, want 6", n)
	}
	if after := accountState(t, r.x, uid); after != before {
		t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestIPBindingOnEveryKeyedEndpoint: a key bound to another address is
// refused on every signed endpoint with 401 code 700006 and changes
// nothing; the same key bound to the caller's address passes the check on
// every one; forwarding headers naming a listed address change nothing. A
// sub-account key created with an IP binding holds it too.
func TestIPBindingOnEveryKeyedEndpoint(t *testing.T) {
	t.Parallel()
	r := newRig(t, simserver.Options{Limits: simserver.Limits{Off: true}, Keys: []simserver.Key{
		{APIKey: "away", Secret: masterSecret, UID: "1000", Main: true, Permissions: simserver.AllPermissions(), IPs: []string{"10.9.9.9", "::1"}},
		{APIKey: "here", Secret: masterSecret, UID: "1000", Main: true, Permissions: simserver.AllPermissions(), IPs: []string{"10.9.9.9", "127.0.0.1"}},
	}})
	uid := r.x.MasterUID()
	if uid != "1000" {
		t.Fatalf("master UID %s", uid)
	}
	before := accountState(t, r.x, uid)
	n := 0
	for _, e := range exchange.Endpoints() {
		if e.Security != exchange.Signed {
			continue
		}
		n++
		q := fillTS("symbol=BTCUSDT&orderId=1&coin=USDT&amount=1&timestamp={ts}", r.x.Now().UnixMilli())
		got := send(t, r.url, rawReq{method: e.Method, path: e.Path, query: q, key: "away", secret: masterSecret})
		if got.status != 401 || got.body != `{"code":700006,"msg":"IP [127.0.0.1] not in the ip white list"}` {
			t.Errorf("%s from an unlisted address: %d %s", e.Name, got.status, got.body)
		}
		if after := accountState(t, r.x, uid); after != before {
			t.Fatalf("%s from an unlisted address changed state:\nbefore %s\nafter  %s", e.Name, before, after)
		}
		if got := send(t, r.url, rawReq{method: e.Method, path: e.Path, query: q, key: "here", secret: masterSecret}); got.code == exchange.CodeIPNotWhitelisted {
			t.Errorf("%s from a listed address: %d %s", e.Name, got.status, got.body)
		}
	}
	if n != 46 {
		t.Errorf("%d signed endpoints, want 46", n)
	}

	// Headers a proxy would set do not move the caller: the binding is
	// checked against the connection's address.
	spoof := map[string]string{"X-Forwarded-For": "10.9.9.9", "X-Real-IP": "10.9.9.9", "Forwarded": "for=10.9.9.9"}
	q := fillTS("timestamp={ts}", r.x.Now().UnixMilli())
	if got := send(t, r.url, rawReq{method: "GET", path: "/api/v3/account", query: q, key: "away", secret: masterSecret, header: spoof}); got.status != 401 ||
		got.code != exchange.CodeIPNotWhitelisted {
		t.Errorf("spoofed forwarding headers: %d %s", got.status, got.body)
	}

	k, _ := newSubKey(t, r, "boundsub01", "SPOT_ACCOUNT_READ,SPOT_DEAL_READ,SPOT_DEAL_WRITE", "10.1.1.1")
	_, err := k.client(t, r).Spot.Account(t.Context())
	wantCode(t, "bound sub-account key", err, 401, exchange.CodeIPNotWhitelisted)
}

// TestSignatureMustMatchExactly: the server compares the whole signature,
// so one that differs from the right one only in its last (or first)
// character, is cut short, runs on, is uppercase, or was made with
// another secret is refused with 400 code 700002, and the order is not
// placed. The comparison itself is hmac.Equal (constant time): see
// docs/reliability.md.
func TestSignatureMustMatchExactly(t *testing.T) {
	t.Parallel()
	r := newRig(t, simserver.Options{Limits: simserver.Limits{Off: true}})
	uid := r.x.MasterUID()
	flip := func(c byte) string {
		if c == '0' {
			return "1"
		}
		return "0"
	}
	tests := []struct {
		name string
		mut  func(sig string) string
	}{
		{"last character", func(s string) string { return s[:63] + flip(s[63]) }},
		{"first character", func(s string) string { return flip(s[0]) + s[1:] }},
		{"last byte cut", func(s string) string { return s[:62] }},
		{"a byte too many", func(s string) string { return s + "00" }},
		{"uppercase", strings.ToUpper},
		{"empty", func(string) string { return "" }},
		{"another secret", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := accountState(t, r.x, uid)
			q := fillTS(orderQ, r.x.Now().UnixMilli())
			sig := hmacHex(masterSecret, q)
			if tt.mut == nil {
				sig = hmacHex("0123456789abcdef0123456789abcdef", q)
			} else {
				sig = tt.mut(sig)
			}
			if tt.name == "uppercase" && sig == strings.ToLower(sig) {
				t.Fatal("signature has no letters to uppercase")
			}
			got := send(t, r.url, rawReq{method: "POST", path: "/api/v3/order", query: q + "&signature=" + sig, key: masterKey, presigned: true})
			if got.status != 400 || got.body != `{"code":700002,"msg":"signature for this request is not valid"}` {
				t.Errorf("%d %s", got.status, got.body)
			}
			if after := accountState(t, r.x, uid); after != before {
				t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	// The unaltered signature places the order: the refusals above were
	// for the signature alone.
	q := fillTS(orderQ, r.x.Now().UnixMilli())
	if got := send(t, r.url, rawReq{method: "POST", path: "/api/v3/order", query: q + "&signature=" + hmacHex(masterSecret, q),
		key: masterKey, presigned: true}); got.status != 200 || !strings.Contains(got.body, `"origQty":"0.001"`) {
		t.Errorf("the right signature: %d %s", got.status, got.body)
	}
}

// TestPermissionPerSpotEndpoint completes the server's own per-endpoint
// permission test (wallet and sub-account areas) for the spot area: a key
// holding every permission but the endpoint's is refused with 401 code
// 700007, and one holding only that permission gets past the check.
func TestPermissionPerSpotEndpoint(t *testing.T) {
	t.Parallel()
	r := newRig(t, simserver.Options{Limits: simserver.Limits{Off: true}})
	uid := r.x.MasterUID()
	n := 0
	for _, e := range exchange.Endpoints() {
		if e.Area != "spot" {
			continue
		}
		n++
		var without []exchange.Permission
		for _, p := range simserver.AllPermissions() {
			if p != e.Permission {
				without = append(without, p)
			}
		}
		lacking, holding := "lack-"+e.Name, "hold-"+e.Name
		must(t, r.s.AddKey(simserver.Key{APIKey: lacking, Secret: masterSecret, UID: uid, Main: true, Permissions: without}))
		must(t, r.s.AddKey(simserver.Key{APIKey: holding, Secret: masterSecret, UID: uid, Main: true, Permissions: []exchange.Permission{e.Permission}}))
		before := accountState(t, r.x, uid)
		q := fillTS(orderQ, r.x.Now().UnixMilli())
		if got := send(t, r.url, rawReq{method: e.Method, path: e.Path, query: q, key: lacking, secret: masterSecret}); got.status != 401 ||
			got.body != `{"code":700007,"msg":"no permission to access the endpoint"}` {
			t.Errorf("%s without %s: %d %s", e.Name, e.Permission, got.status, got.body)
		}
		if after := accountState(t, r.x, uid); after != before {
			t.Errorf("%s without %s changed state:\nbefore %s\nafter  %s", e.Name, e.Permission, before, after)
		}
		if got := send(t, r.url, rawReq{method: e.Method, path: e.Path, query: q, key: holding, secret: masterSecret}); got.code == exchange.CodeNoEndpointPermission {
			t.Errorf("%s with only %s: %d %s", e.Name, e.Permission, got.status, got.body)
		}
	}
	if n != 21 {
		t.Errorf("%d spot endpoints, want 21", n)
	}
}
