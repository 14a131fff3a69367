package simserver

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

func TestAdminHandler(t *testing.T) {
	t.Parallel()
	sv := serve(t, sim.Options{MarketFill: sim.Immediate}, Options{Limits: Limits{Off: true}})
	admin := httptest.NewServer(sv.s.AdminHandler("tok3n"))
	t.Cleanup(admin.Close)
	auth := map[string]string{"Authorization": "Bearer tok3n"}
	t0 := exchangetest.T0.UnixMilli()
	tests := []struct {
		name, method, path, body string
		hdr                      map[string]string
		status                   int
		reply                    string
	}{
		{"no token", "GET", "/admin/state", "", nil, 401, `{"error":"admin token required"}`},
		{"wrong token", "GET", "/admin/state", "", map[string]string{"Authorization": "Bearer nope"}, 401, `{"error":"admin token required"}`},
		{"state", "GET", "/admin/state", "", auth, 200, fmt.Sprintf(`{"masterUid":"1000","prices":{},"time":%d}`, t0)},
		{"credit", "POST", "/admin/credit", `{"uid":"1000","asset":"USDT","amount":"250.5"}`, auth, 200, `{"ok":true}`},
		{"credit unknown account", "POST", "/admin/credit", `{"uid":"9","asset":"USDT","amount":"1"}`, auth, 400, `{"error":"exchange: HTTP 400, code 10001: user 9 does not exist"}`},
		{"credit typo", "POST", "/admin/credit", `{"uid":"1000","asset":"USDT","amonut":"1"}`, auth, 400, `{"error":"request body: json: unknown field \"amonut\""}`},
		{"kline", "POST", "/admin/kline", fmt.Sprintf(`{"symbol":"BTCUSDT","interval":"1m","kline":[%d,"20000","20100","19900","20050","3",%d,"0"]}`, t0, t0+59999), auth, 200,
			fmt.Sprintf(`{"time":%d}`, t0+60000)},
		{"advance", "POST", "/admin/time", `{"advanceMs":1000}`, auth, 200, fmt.Sprintf(`{"time":%d}`, t0+61000)},
		{"time and advance", "POST", "/admin/time", `{"advanceMs":1,"time":5}`, auth, 400, `{"error":"send a positive time or advanceMs, one of them"}`},
		{"pause", "POST", "/admin/symbol-status", `{"symbol":"XYZUSDT","status":"2"}`, auth, 200, `{"ok":true}`},
		{"account", "POST", "/admin/account", `{"name":"bot2"}`, auth, 200, `{"uid":"1002"}`},
		{"faults", "POST", "/admin/faults", `{"endpoints":{"newOrder":{"after5xx":1}},"clockOffsetMs":250}`, auth, 200, `{"ok":true}`},
		{"fault of an unknown endpoint", "POST", "/admin/faults", `{"endpoints":{"nope":{}}}`, auth, 400,
			`{"error":"endpoints: unknown endpoint \"nope\" (names of the endpoint table, such as newOrder)"}`},
		{"unknown path", "POST", "/admin/nope", `{}`, auth, 404, "404 page not found"},
	}
	for _, tt := range tests {
		st, body, _ := do(t, tt.method, admin.URL+tt.path, tt.body, tt.hdr)
		if st != tt.status || strings.TrimSpace(body) != tt.reply {
			t.Errorf("%s: %d %s, want %d %s", tt.name, st, strings.TrimSpace(body), tt.status, tt.reply)
		}
	}
	// The changes are visible through the exchange's own interface.
	ctx := t.Context()
	acct, err := sv.master.Spot.Account(ctx)
	if err != nil || acct.Balance("USDT").Free.String() != "250.5" {
		t.Errorf("account after credit %+v %v", acct, err)
	}
	if st, err := sv.master.Market.ServerTime(ctx); err != nil || !st.Equal(exchangetest.T0.Add(61*time.Second+250*time.Millisecond)) {
		t.Errorf("server time %s %v (with the 250 ms offset)", st, err)
	}
	if _, err := sv.master.Spot.NewOrder(ctx, lim(exchange.SideBuy, "0.01", "19000")); err == nil {
		t.Error("the after-5XX fault was not installed")
	}
	if off, _ := sv.master.Market.OfflineSymbols(ctx); len(off) != 1 || off[0].Symbol != "XYZUSDT" {
		t.Errorf("offline symbols %+v", off)
	}
}
