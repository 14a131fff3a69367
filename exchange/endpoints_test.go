package exchange

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// specEndpoints is the interface as the spec lists it: method, path,
// weight, permission. A changed row in the table fails this test.
var specEndpoints = []struct {
	method, path string
	weight       int
	perm         Permission
}{
	{"GET", "/api/v3/ping", 1, ""},
	{"GET", "/api/v3/time", 1, ""},
	{"GET", "/api/v3/defaultSymbols", 1, ""},
	{"GET", "/api/v3/symbol/offline", 10, ""},
	{"GET", "/api/v3/exchangeInfo", 25, ""},
	{"GET", "/api/v3/depth", 3, ""},
	{"GET", "/api/v3/trades", 5, ""},
	{"GET", "/api/v3/aggTrades", 1, ""},
	{"GET", "/api/v3/klines", 1, ""},
	{"GET", "/api/v3/avgPrice", 1, ""},
	{"GET", "/api/v3/ticker/24hr", 25, ""},
	{"GET", "/api/v3/ticker/price", 10, ""},
	{"GET", "/api/v3/ticker/bookTicker", 10, ""},
	{"POST", "/api/v3/sub-account/virtualSubAccount", 1, PermSpotAccountRead},
	{"GET", "/api/v3/sub-account/list", 1, PermSpotAccountRead},
	{"POST", "/api/v3/sub-account/apiKey", 1, PermSpotAccountRead},
	{"GET", "/api/v3/sub-account/apiKey", 1, PermSpotAccountRead},
	{"DELETE", "/api/v3/sub-account/apiKey", 1, PermSpotAccountRead},
	{"POST", "/api/v3/capital/sub-account/universalTransfer", 50, PermSpotTransferWrite},
	{"GET", "/api/v3/capital/sub-account/universalTransfer", 1, PermSpotTransferRead},
	{"GET", "/api/v3/sub-account/asset", 1, PermSpotTransferRead},
	{"GET", "/api/v3/kyc/status", 1, PermSpotAccountRead},
	{"GET", "/api/v3/uid", 1, PermSpotAccountRead},
	{"GET", "/api/v3/selfSymbols", 1, PermSpotAccountRead},
	{"POST", "/api/v3/order/test", 1, PermSpotDealWrite},
	{"POST", "/api/v3/order", 1, PermSpotDealWrite},
	{"POST", "/api/v3/batchOrders", 1, PermSpotDealWrite},
	{"DELETE", "/api/v3/order", 1, PermSpotDealWrite},
	{"DELETE", "/api/v3/openOrders", 1, PermSpotDealWrite},
	{"GET", "/api/v3/order", 2, PermSpotDealRead},
	{"GET", "/api/v3/openOrders", 3, PermSpotDealRead},
	{"GET", "/api/v3/allOrders", 10, PermSpotDealRead},
	{"GET", "/api/v3/account", 10, PermSpotAccountRead},
	{"GET", "/api/v3/myTrades", 10, PermSpotAccountRead},
	{"POST", "/api/v3/tokDeduct/enable", 1, PermSpotDealWrite},
	{"GET", "/api/v3/tokDeduct/enable", 1, PermSpotDealRead},
	{"GET", "/api/v3/tradeFee", 20, PermSpotAccountRead},
	{"POST", "/api/v3/strategy/group", 20, PermSpotAccountWrite},
	{"GET", "/api/v3/strategy/group", 20, PermSpotAccountRead},
	{"DELETE", "/api/v3/strategy/group", 20, PermSpotAccountWrite},
	{"POST", "/api/v3/strategy/group/uid", 20, PermSpotAccountWrite},
	{"DELETE", "/api/v3/strategy/group/uid", 20, PermSpotAccountWrite},
	{"GET", "/api/v3/capital/config/getall", 10, PermSpotWithdrawRead},
	{"POST", "/api/v3/capital/withdraw", 1, PermSpotWithdrawWrite},
	{"DELETE", "/api/v3/capital/withdraw", 1, PermSpotWithdrawWrite},
	{"GET", "/api/v3/capital/deposit/hisrec", 10, PermSpotWithdrawRead},
	{"GET", "/api/v3/capital/withdraw/history", 1, PermSpotWithdrawRead},
	{"POST", "/api/v3/capital/deposit/address", 1, PermSpotWithdrawWrite},
	{"GET", "/api/v3/capital/deposit/address", 10, PermSpotWithdrawRead},
	{"GET", "/api/v3/capital/withdraw/address", 10, PermSpotWithdrawRead},
	{"POST", "/api/v3/capital/transfer", 50, PermSpotTransferWrite},
	{"GET", "/api/v3/capital/transfer", 1, PermSpotTransferRead},
	{"GET", "/api/v3/capital/transfer/tranId", 1, PermSpotTransferRead},
	{"GET", "/api/v3/capital/convert/list", 1, PermSpotAccountRead},
	{"POST", "/api/v3/capital/convert", 10, PermSpotAccountWrite},
	{"GET", "/api/v3/capital/convert", 1, PermSpotDealRead},
	{"POST", "/api/v3/capital/transfer/internal", 1, PermSpotWithdrawWrite},
	{"GET", "/api/v3/capital/transfer/internal", 1, PermSpotWithdrawRead},
	{"POST", "/api/v3/capital/withdraw/apply", 10, PermSpotWithdrawWrite},
}

func TestEndpointTableMatchesSpec(t *testing.T) {
	t.Parallel()
	eps := Endpoints()
	if len(eps) != NumEndpoints || NumEndpoints != 59 || len(specEndpoints) != 59 {
		t.Fatalf("%d endpoints (NumEndpoints %d), want 59", len(eps), NumEndpoints)
	}
	for i, want := range specEndpoints {
		e := eps[i]
		if e.ID != EndpointID(i+1) || e.Method != want.method || e.Path != want.path || e.Weight != want.weight || e.Permission != want.perm {
			t.Errorf("row %d: %s %s weight %d perm %q, want %s %s %d %q", i+1, e.Method, e.Path, e.Weight, e.Permission,
				want.method, want.path, want.weight, want.perm)
		}
		if (want.perm == "") != (e.Security == Public) {
			t.Errorf("%s: security %s", e, e.Security)
		}
		if e.MainOnly != (e.Area == "sub-account") {
			t.Errorf("%s: MainOnly %v in area %s", e, e.MainOnly, e.Area)
		}
		pools := map[Pool]int{}
		for _, d := range e.Draws {
			pools[d.Pool] = d.Amount
		}
		wantPools := map[Pool]int{}
		if e.Security == Public {
			wantPools[PoolIP] = e.Weight
		} else {
			wantPools[PoolUID] = e.Weight
		}
		switch e.ID {
		case EpNewOrder, EpCancelOrder, EpCancelOpenOrders:
			wantPools[PoolOrder] = 1
		case EpBatchOrders:
			wantPools[PoolOrder], wantPools[PoolBatch] = 1, 1
		case EpAccount:
			wantPools[PoolAccount] = 1
		}
		if len(pools) != len(wantPools) {
			t.Errorf("%s: draws %v, want %v", e, pools, wantPools)
		}
		for p, n := range wantPools {
			if pools[p] != n {
				t.Errorf("%s: draws %v, want %v", e, pools, wantPools)
			}
		}
	}
	if _, ok := Lookup(0); ok {
		t.Error("Lookup(0) found a row")
	}
	if _, ok := Lookup(60); ok {
		t.Error("Lookup(60) found a row")
	}
	// Lookup hands out copies.
	e, _ := Lookup(EpNewOrder)
	e.Draws[0].Amount = 99
	if e2, _ := Lookup(EpNewOrder); e2.Draws[0].Amount != 1 {
		t.Error("Lookup shares the table's draws")
	}
}

// TestEndpointTableMatchesSpecText parses the spec's endpoint tables and
// compares the method+path pairs and weights with the table.
func TestEndpointTableMatchesSpecText(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../shared/spec/rest-api.md")
	if err != nil {
		t.Skip("../../shared/spec/rest-api.md not present: the spec text check needs the shared folder")
	}
	text := string(b)
	sec := strings.Index(text, "## 4. Endpoints")
	end := strings.Index(text, "## 5. Authentication")
	if sec < 0 || end < sec {
		t.Fatal("spec sections not found")
	}
	text = text[sec:end]
	type row struct {
		mp     string
		weight int
	}
	var rows []row
	market := regexp.MustCompile("(?m)^\\| (/api/v3/[^ |]+) \\| (\\d+) \\|")
	for _, m := range market.FindAllStringSubmatch(text, -1) {
		w, _ := strconv.Atoi(m[2])
		rows = append(rows, row{"GET " + m[1], w})
	}
	other := regexp.MustCompile("(?m)^\\| (GET|POST|DELETE|POST or GET) (/api/v3/[^ |]+)[^|]*\\| [A-Z_]+ \\| ([^|]+) \\|")
	for _, m := range other.FindAllStringSubmatch(text, -1) {
		method := m[1]
		if method == "POST or GET" {
			method = "POST" // the facts file: clients send POST
		}
		w, err := strconv.Atoi(strings.Fields(m[3])[0])
		if err != nil || strings.Contains(m[3], "requests/s") {
			w = 1 // "12 requests/s shared": a rate, not a weight; counted as 1
		}
		rows = append(rows, row{method + " " + m[2], w})
	}
	got := map[string]int{}
	for _, e := range Endpoints() {
		got[e.Method+" "+e.Path] = e.Weight
	}
	if len(rows) != 59 {
		t.Errorf("parsed %d rows from the spec, want 59", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.mp] = true
		w, ok := got[r.mp]
		if !ok {
			t.Errorf("spec endpoint %s missing from the table", r.mp)
		} else if w != r.weight {
			t.Errorf("%s: weight %d, spec says %d", r.mp, w, r.weight)
		}
	}
	for mp := range got {
		if !seen[mp] {
			t.Errorf("table endpoint %s not in the spec", mp)
		}
	}
}

// TestEveryEndpointHasAMethod calls each area's method for every row and
// checks that it reaches exactly that row's method and path.
func TestEveryEndpointHasAMethod(t *testing.T) {
	t.Parallel()
	calls := map[EndpointID]func(context.Context, *Client) error{}
	for _, m := range []map[EndpointID]func(context.Context, *Client) error{marketCalls, spotCalls, subCalls, walletCalls} {
		for id, f := range m {
			if _, dup := calls[id]; dup {
				t.Errorf("%s listed twice", id)
			}
			calls[id] = f
		}
	}
	var mu sync.Mutex
	var hit []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hit = append(hit, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.WriteHeader(http.StatusNotFound) // any reply: only the request matters
	}))
	defer srv.Close()
	c, err := New(WithBaseURL(srv.URL), WithCredentials(NewSecret(testKey), NewSecret(testSecret)), WithLimits(nil))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, e := range Endpoints() {
		f, ok := calls[e.ID]
		if !ok {
			missing = append(missing, e.String())
			continue
		}
		mu.Lock()
		hit = hit[:0]
		mu.Unlock()
		f(t.Context(), c)
		mu.Lock()
		if len(hit) != 1 || hit[0] != e.String() {
			t.Errorf("%s: method sent %v", e, hit)
		}
		mu.Unlock()
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("endpoints without a client method: %v", missing)
	}
}
