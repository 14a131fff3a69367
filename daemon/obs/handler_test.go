package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// secret is a known API secret: no endpoint may ever serve it.
const secret = "s3cr3t-Zq9-never-print-me"

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// fixture is a running bot with two instances, positions, open orders,
// balances, feeds and counters; its error texts wrap the secret the way
// a careless caller might, through exchange.Secret.
func fixture() daemon.Status {
	sec := exchange.NewSecret(secret)
	return daemon.Status{
		Mode: "paper-replay", Phase: daemon.PhaseRunning, Started: t0, Updated: t0.Add(24 * time.Hour),
		FirstPoll: t0.Add(time.Second),
		Strategies: []daemon.StrategyStatus{
			{ID: "btc-cross", Name: "smacross"},
			{ID: "eth-grid", Name: "grid", Stopped: fmt.Sprintf("OnKline: signing with %v failed", sec)},
		},
		Positions: []daemon.PositionStatus{
			{Instance: "btc-cross", Position: strategy.Position{Symbol: "BTCUSDT", Qty: d("0.5"), AvgPrice: d("40000"), Realized: d("120.5")}},
			{Instance: "eth-grid", Position: strategy.Position{Symbol: "ETHUSDT", Qty: d("2"), AvgPrice: d("2000"), Realized: d("-10")}},
		},
		OpenOrders: []daemon.OrderStatus{
			{Instance: "eth-grid", Order: strategy.Order{ClientOrderID: "eth-grid-a-1", Symbol: "ETHUSDT", Side: exchange.SideBuy, Price: d("1900"), Quantity: d("0.1")}},
			{Instance: "eth-grid", Order: strategy.Order{ClientOrderID: "eth-grid-a-2", Symbol: "ETHUSDT", Side: exchange.SideSell, Price: d("2300"), Quantity: d("0.1")}},
		},
		Balances: []exchange.Balance{
			{Asset: "BTC", Free: d("0.5")},
			{Asset: "ETH", Free: d("1.9"), Locked: d("0.1")},
			{Asset: "USDT", Free: d("1000"), Locked: d("200")},
			{Asset: "XYZ", Free: d("3")}, // no XYZUSDT feed: left out of equity
		},
		LastKlines: []daemon.FeedKline{
			{Symbol: "BTCUSDT", Interval: exchange.Interval60m, Kline: exchange.Kline{OpenTime: t0.Add(23 * time.Hour), CloseTime: t0.Add(24*time.Hour - time.Millisecond), Close: d("42000")}},
			{Symbol: "ETHUSDT", Interval: exchange.Interval60m, Kline: exchange.Kline{OpenTime: t0.Add(23 * time.Hour), CloseTime: t0.Add(24*time.Hour - time.Millisecond), Close: d("2100")}},
		},
		ClockOffset: 150 * time.Millisecond, ClockSynced: t0.Add(23*time.Hour + 50*time.Minute),
		LastError: fmt.Sprintf("poll: key %v rejected", sec),
		Counters: daemon.Counters{
			Bars: 48, OrdersPlaced: 7, OrdersUnknown: 1, Fills: 5, Polls: 24, Retries: 3, Gaps: 2,
			OrdersRefused: map[string]int{exchange.RuleMinAmount: 2, "exchange:-2010": 1},
			APIErrors:     map[string]int{"-1021": 3, "transport": 1},
			JobRuns:       map[string]int{"ok": 4},
			Reconciled:    daemon.Reconciled{Checked: 3, Updated: 1, Fills: 2},
		},
		Budget: []daemon.BudgetUsage{{Pool: "ip-weight", Used: 12, Max: 300, Window: 10 * time.Second}},
	}
}

func serve(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
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
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func TestMetricsExactLines(t *testing.T) {
	t.Parallel()
	srv := serve(t, Options{Status: fixture, Build: BuildInfo{Version: "v1.4.0", Revision: "0123abc", GoVersion: "go1.26.0"}})
	code, _, body := get(t, srv.URL+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	want := []string{
		`spotbot_build_info{goversion="go1.26.0",revision="0123abc",version="v1.4.0"} 1`,
		// Known reasons and kinds are present at zero before they happen.
		`spotbot_orders_refused_total{reason="balance"} 0`,
		`spotbot_orders_refused_total{reason="kill-switch"} 0`,
		`spotbot_orders_refused_total{reason="clock-offset"} 0`,
		`spotbot_orders_refused_total{reason="store"} 0`,
		`spotbot_orders_refused_total{reason="shutdown"} 0`,
		`spotbot_orders_refused_total{reason="ip-banned"} 0`,
		`spotbot_api_errors_total{code="ip-banned"} 0`,
		`spotbot_api_errors_total{code="rate-limit"} 0`,
		`spotbot_api_errors_total{code="unknown-outcome"} 0`,
		// Spot positions are the account's holdings; the quote asset is not one.
		`spotbot_spot_position_quantity{asset="BTC"} 0.5`,
		`spotbot_spot_position_quantity{asset="ETH"} 2`,
		`spotbot_spot_position_quantity{asset="XYZ"} 3`,
		`spotbot_rate_budget_use_ratio{pool="ip-weight"} 0.04`,
		`spotbot_orders_placed_total 7`,
		`spotbot_orders_refused_total{reason="exchange:-2010"} 1`,
		`spotbot_orders_refused_total{reason="min-amount"} 2`,
		`spotbot_orders_unknown_total 1`,
		`spotbot_fills_total 5`,
		`spotbot_api_errors_total{code="-1021"} 3`,
		`spotbot_api_errors_total{code="transport"} 1`,
		`spotbot_job_runs_total{outcome="error"} 0`,
		`spotbot_job_runs_total{outcome="ok"} 4`,
		`spotbot_bars_total 48`,
		`spotbot_polls_total 24`,
		`spotbot_poll_retries_total 3`,
		`spotbot_gaps_total 2`,
		`spotbot_reconciled_total{action="checked"} 3`,
		`spotbot_reconciled_total{action="fills"} 2`,
		`spotbot_rate_budget_used{pool="ip-weight"} 12`,
		`spotbot_rate_budget_max{pool="ip-weight"} 300`,
		`spotbot_rate_budget_window_seconds{pool="ip-weight"} 10`,
		// 1200 USDT + 0.5 BTC × 42000 + 2 ETH × 2100; XYZ has no price.
		`spotbot_equity{quote="USDT"} 26400`,
		`spotbot_balance{asset="ETH"} 2`,
		`spotbot_balance{asset="XYZ"} 3`,
		`spotbot_realized_pnl{instance="btc-cross",symbol="BTCUSDT"} 120.5`,
		`spotbot_unrealized_pnl{instance="btc-cross",symbol="BTCUSDT"} 1000`,
		`spotbot_realized_pnl{instance="eth-grid",symbol="ETHUSDT"} -10`,
		`spotbot_unrealized_pnl{instance="eth-grid",symbol="ETHUSDT"} 200`,
		`spotbot_position_quantity{instance="btc-cross",symbol="BTCUSDT"} 0.5`,
		`spotbot_strategy_pnl{instance="btc-cross",quote="USDT"} 1120.5`,
		`spotbot_strategy_pnl{instance="eth-grid",quote="USDT"} 190`,
		`spotbot_strategy_running{instance="btc-cross",strategy="smacross"} 1`,
		`spotbot_strategy_running{instance="eth-grid",strategy="grid"} 0`,
		`spotbot_open_orders{instance="btc-cross"} 0`,
		`spotbot_open_orders{instance="eth-grid"} 2`,
		`spotbot_last_kline_close_time_seconds{interval="60m",symbol="BTCUSDT"} 1.704153599999e+09`,
		`spotbot_clock_offset_seconds 0.15`,
		`spotbot_clock_synced_time_seconds 1.704153e+09`,
		`spotbot_trading_blocked 0`,
		`spotbot_ip_banned_until_seconds 0`,
		`spotbot_kill_switch_tripped 0`,
		`spotbot_phase{phase="running"} 1`,
		`spotbot_phase{phase="stopped"} 0`,
		`spotbot_start_time_seconds 1.7040672e+09`,
		`# TYPE spotbot_orders_refused_total counter`,
		`# TYPE spotbot_equity gauge`,
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		lines[l] = true
	}
	for _, w := range want {
		if !lines[w] {
			t.Errorf("missing line %q", w)
		}
	}
	if t.Failed() {
		t.Logf("body:\n%s", body)
	}
	if strings.Contains(body, `spotbot_spot_position_quantity{asset="USDT"}`) {
		t.Error("the quote asset listed as a spot position")
	}
	refused := 0
	for l := range lines {
		if strings.HasPrefix(l, "spotbot_orders_refused_total{") {
			refused++
		}
	}
	// Every known reason, and exchange:-2010 besides.
	if refused != len(daemon.RefusalReasons())+1 {
		t.Errorf("%d orders_refused_total series, want %d", refused, len(daemon.RefusalReasons())+1)
	}
	// Without Options.Runtime, only the bot's own metrics are served.
	if strings.Contains(body, "go_goroutines") || strings.Contains(body, "process_") {
		t.Errorf("runtime collectors present without Options.Runtime")
	}
}

// A spot quantity is never negative, even from a balance snapshot that
// says so; the build information defaults to the binary's.
func TestMetricsSpotAndBuild(t *testing.T) {
	t.Parallel()
	srv := serve(t, Options{Status: func() daemon.Status {
		return daemon.Status{Phase: daemon.PhaseRunning, Balances: []exchange.Balance{
			{Asset: "BTC", Free: d("-0.1")}, {Asset: "ETH", Free: d("0"), Locked: d("0.25")}}}
	}})
	_, _, body := get(t, srv.URL+"/metrics")
	b := ReadBuildInfo()
	if b.GoVersion != runtime.Version() {
		t.Errorf("go version %q, want %q", b.GoVersion, runtime.Version())
	}
	for _, w := range []string{
		`spotbot_spot_position_quantity{asset="BTC"} 0`,
		`spotbot_spot_position_quantity{asset="ETH"} 0.25`,
		fmt.Sprintf(`spotbot_build_info{goversion=%q,revision=%q,version=%q} 1`, b.GoVersion, b.Revision, b.Version),
		`spotbot_job_runs_total{outcome="error"} 0`,
		`spotbot_api_errors_total{code="transport"} 0`,
	} {
		if !slices.Contains(strings.Split(body, "\n"), w) {
			t.Errorf("missing line %q", w)
		}
	}
	if t.Failed() {
		t.Logf("body:\n%s", body)
	}
}

// While the exchange bans the bot's address the metrics say so, why
// trading is blocked and until when.
func TestMetricsBan(t *testing.T) {
	t.Parallel()
	until := t0.Add(24*time.Hour + 2*time.Minute)
	srv := serve(t, Options{Status: func() daemon.Status {
		s := fixture()
		s.BannedUntil, s.BlockedRule = until, daemon.RuleIPBanned
		s.Blocked = "ip-banned: the exchange banned this IP (HTTP 418) until 2024-01-02T00:02:00Z"
		return s
	}})
	_, _, body := get(t, srv.URL+"/metrics")
	lines := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		lines[l] = true
	}
	for _, w := range []string{`spotbot_trading_blocked 1`, `spotbot_trading_blocked_by{rule="ip-banned"} 1`,
		`spotbot_ip_banned_until_seconds 1.70415372e+09`} {
		if !lines[w] {
			t.Errorf("missing line %q", w)
		}
	}
	if strings.Contains(body, `rule="clock-offset"`) {
		t.Error("a rule that does not block is served")
	}
}

func TestMetricsRuntimeCollectors(t *testing.T) {
	t.Parallel()
	srv := serve(t, Options{Status: fixture, Runtime: true})
	_, _, body := get(t, srv.URL+"/metrics")
	for _, w := range []string{"# TYPE go_goroutines gauge", "# TYPE process_resident_memory_bytes gauge"} {
		if !strings.Contains(body, w+"\n") {
			t.Errorf("missing %q", w)
		}
	}
}

// Counters come from each scrape's fresh snapshot, never from a copy the
// handler keeps.
func TestMetricsFollowTheSnapshot(t *testing.T) {
	t.Parallel()
	n := 0
	status := func() daemon.Status {
		n++
		return daemon.Status{Phase: daemon.PhaseRunning, Counters: daemon.Counters{OrdersPlaced: n * 10}}
	}
	srv := serve(t, Options{Status: status})
	for _, want := range []string{"spotbot_orders_placed_total 10", "spotbot_orders_placed_total 20"} {
		_, _, body := get(t, srv.URL+"/metrics")
		if !strings.Contains(body, "\n"+want+"\n") {
			t.Errorf("scrape lacks %q:\n%s", want, body)
		}
	}
	// An empty snapshot serves no equity (no balances known yet).
	_, _, body := get(t, srv.URL+"/metrics")
	if strings.Contains(body, "spotbot_equity{") {
		t.Errorf("equity served without balances")
	}
}

func TestStatusJSON(t *testing.T) {
	t.Parallel()
	srv := serve(t, Options{Status: fixture})
	code, ctype, body := get(t, srv.URL+"/status")
	if code != http.StatusOK || ctype != "application/json" {
		t.Fatalf("status %d %q", code, ctype)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	want := map[string]string{
		"mode":         `"paper-replay"`,
		"phase":        `"running"`,
		"started":      `"2024-01-01T00:00:00Z"`,
		"clock_offset": `150000000`,
		"strategies":   `[{"id":"btc-cross","name":"smacross"},{"id":"eth-grid","name":"grid","stopped":"OnKline: signing with REDACTED failed"}]`,
		"positions": `[{"instance":"btc-cross","symbol":"BTCUSDT","qty":"0.5","avg_price":"40000","realized":"120.5","fees_quote":"0","fees_base":"0","fees_other":"0"},` +
			`{"instance":"eth-grid","symbol":"ETHUSDT","qty":"2","avg_price":"2000","realized":"-10","fees_quote":"0","fees_base":"0","fees_other":"0"}]`,
		"open_orders": `[{"instance":"eth-grid","client_order_id":"eth-grid-a-1","symbol":"ETHUSDT","side":"BUY","type":"","price":"1900","quantity":"0.1","quote_order_qty":"0","executed_qty":"0","cum_quote_qty":"0"},` +
			`{"instance":"eth-grid","client_order_id":"eth-grid-a-2","symbol":"ETHUSDT","side":"SELL","type":"","price":"2300","quantity":"0.1","quote_order_qty":"0","executed_qty":"0","cum_quote_qty":"0"}]`,
		"balances": `[{"asset":"BTC","free":"0.5","locked":"0"},{"asset":"ETH","free":"1.9","locked":"0.1"},{"asset":"USDT","free":"1000","locked":"200"},{"asset":"XYZ","free":"3","locked":"0"}]`,
		"last_klines": `[{"symbol":"BTCUSDT","interval":"60m","open_time":"2024-01-01T23:00:00Z","close_time":"2024-01-01T23:59:59.999Z","open":"0","high":"0","low":"0","close":"42000","volume":"0"},` +
			`{"symbol":"ETHUSDT","interval":"60m","open_time":"2024-01-01T23:00:00Z","close_time":"2024-01-01T23:59:59.999Z","open":"0","high":"0","low":"0","close":"2100","volume":"0"}]`,
		"budget":     `[{"pool":"ip-weight","used":12,"max":300,"window":10000000000}]`,
		"last_error": `"poll: key REDACTED rejected"`,
	}
	// The counters are the daemon's own encoding; these fields are the ones
	// the fixture sets.
	var counters map[string]json.RawMessage
	if err := json.Unmarshal(got["counters"], &counters); err != nil {
		t.Fatal(err)
	}
	for k, w := range map[string]string{"orders_placed": "7", "orders_refused": `{"exchange:-2010":1,"min-amount":2}`,
		"api_errors": `{"-1021":3,"transport":1}`, "job_runs": `{"ok":4}`, "fills": "5", "bars": "48"} {
		got["counters."+k] = counters[k]
		want["counters."+k] = w
	}
	for k, w := range want {
		var c bytes.Buffer
		if err := json.Compact(&c, got[k]); err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		if c.String() != w {
			t.Errorf("%s:\n got %s\nwant %s", k, c.String(), w)
		}
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	srv := serve(t, Options{Status: fixture})
	code, _, body := get(t, srv.URL+"/healthz")
	if code != http.StatusOK || body != "ok\n" {
		t.Fatalf("%d %q", code, body)
	}
	code, _, _ = get(t, srv.URL+"/nothing")
	if code != http.StatusNotFound {
		t.Errorf("unknown path: %d", code)
	}
}

type serverTime struct{ err error }

func (s serverTime) ServerTime(context.Context) (time.Time, error) { return t0, s.err }

func TestReadyz(t *testing.T) {
	t.Parallel()
	synced := func(off time.Duration, at time.Time) func() (time.Duration, time.Time) {
		return func() (time.Duration, time.Time) { return off, at }
	}
	writable := func(err error) Checker {
		return StoreWritable(func(context.Context) error { return err })
	}
	tests := []struct {
		name   string
		checks []Checker
		code   int
		body   string
	}{
		{"all pass", []Checker{ExchangeReachable(serverTime{}), ClockWithin(time.Second, synced(-900*time.Millisecond, t0)), writable(nil)},
			http.StatusOK, `{"ready":true,"failed":[],"checks":[{"name":"exchange","ok":true},{"name":"clock","ok":true},{"name":"store","ok":true}]}`},
		{"exchange down", []Checker{ExchangeReachable(serverTime{errors.New("dial tcp: connection refused")}), ClockWithin(time.Second, synced(0, t0)), writable(nil)},
			http.StatusServiceUnavailable, `{"ready":false,"failed":["exchange"],"checks":[{"name":"exchange","ok":false,"error":"server time: dial tcp: connection refused"},{"name":"clock","ok":true},{"name":"store","ok":true}]}`},
		{"clock and store", []Checker{ExchangeReachable(serverTime{}), ClockWithin(time.Second, synced(-1500*time.Millisecond, t0)), writable(errors.New("store: database is read-only"))},
			http.StatusServiceUnavailable, `{"ready":false,"failed":["clock","store"],"checks":[{"name":"exchange","ok":true},{"name":"clock","ok":false,"error":"clock offset -1.5s is beyond 1s"},{"name":"store","ok":false,"error":"store: database is read-only"}]}`},
		{"never synced", []Checker{ClockWithin(time.Second, synced(0, time.Time{}))},
			http.StatusServiceUnavailable, `{"ready":false,"failed":["clock"],"checks":[{"name":"clock","ok":false,"error":"clock not synced with the exchange yet"}]}`},
		{"no checks", nil, http.StatusOK, `{"ready":true,"failed":[],"checks":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, Options{Status: fixture, Checks: tc.checks})
			code, ctype, body := get(t, srv.URL+"/readyz")
			var compact strings.Builder
			if err := json.NewEncoder(&compact).Encode(json.RawMessage(body)); err != nil {
				t.Fatal(err)
			}
			if code != tc.code || ctype != "application/json" || strings.TrimSpace(compact.String()) != tc.body {
				t.Errorf("got %d %q %s\nwant %d %s", code, ctype, compact.String(), tc.code, tc.body)
			}
		})
	}
}

// A check that hangs is cut off at CheckTimeout and reported as failed.
func TestReadyzTimeout(t *testing.T) {
	t.Parallel()
	slow := Checker{Name: "exchange", Check: func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	srv := serve(t, Options{Status: fixture, Checks: []Checker{slow}, CheckTimeout: 20 * time.Millisecond})
	code, _, body := get(t, srv.URL+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, `"error": "context deadline exceeded"`) {
		t.Errorf("%d %s", code, body)
	}
}

func TestNoSecretInAnyEndpoint(t *testing.T) {
	t.Parallel()
	sec := exchange.NewSecret(secret)
	leaky := Checker{Name: "exchange", Check: func(context.Context) error {
		return fmt.Errorf("auth with key %v: %w", sec, errors.New("-2015 invalid API key"))
	}}
	srv := serve(t, Options{Status: fixture, Checks: []Checker{leaky}, Runtime: true})
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/status"} {
		_, _, body := get(t, srv.URL+path)
		if strings.Contains(body, secret) {
			t.Errorf("%s serves the secret", path)
		}
		if path != "/healthz" && path != "/metrics" && !strings.Contains(body, "REDACTED") {
			t.Errorf("%s: expected the redacted marker where the secret was formatted:\n%s", path, body)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	t.Parallel()
	ok := Checker{Name: "store", Check: func(context.Context) error { return nil }}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no status", Options{}, "obs: Options.Status is required"},
		{"unnamed check", Options{Status: fixture, Checks: []Checker{{Check: ok.Check}}}, "obs: every readiness check needs a name and a function"},
		{"duplicate", Options{Status: fixture, Checks: []Checker{ok, ok}}, "obs: readiness check store listed twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := New(tc.opts); err == nil || err.Error() != tc.want {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}
