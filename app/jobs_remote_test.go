package app

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/session"
)

const (
	remoteKey    = "jobs-test-key"
	remoteSecret = "jobs-test-secret-0123456789abcdef0123"
)

// remoteExchange serves a simulated exchange over HTTP: BTCUSDT at 40000
// and the token at 2, three hourly bars each, and an account holding
// 1000 USDT and 0.00005 BTC (2 USDT: dust).
func remoteExchange(t *testing.T) (*sim.Exchange, string) {
	t.Helper()
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	bars := map[string][]exchange.Kline{}
	var rules []exchange.SymbolInfo
	for _, sym := range []string{"BTCUSDT", "TOKUSDT"} {
		p := decimal.RequireFromString(map[string]string{"BTCUSDT": "40000", "TOKUSDT": "2"}[sym])
		for i := range 3 {
			open := start.Add(time.Duration(i) * time.Hour)
			bars[sym] = append(bars[sym], exchange.Kline{OpenTime: open, Open: p, High: p, Low: p, Close: p,
				Volume: decimal.NewFromInt(10), CloseTime: open.Add(time.Hour - time.Millisecond)})
		}
		info, err := session.DefaultRules(sym, bars[sym])
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, info)
	}
	x, err := sim.New(sim.Options{Start: start, Symbols: rules, MarketFill: sim.Immediate})
	if err != nil {
		t.Fatal(err)
	}
	if err := simserver.FeedAll(x, bars, exchange.Interval60m); err != nil {
		t.Fatal(err)
	}
	for asset, amt := range map[string]string{"USDT": "1000", "BTC": "0.00005"} {
		if err := x.Credit(x.MasterUID(), asset, decimal.RequireFromString(amt)); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := simserver.New(x, simserver.Options{Keys: []simserver.Key{{APIKey: remoteKey, Secret: remoteSecret,
		UID: x.MasterUID(), Main: true, Permissions: simserver.AllPermissions()}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return x, hs.URL
}

func remoteConfig(t *testing.T, mode, url string) (path, db string) {
	t.Helper()
	dir := t.TempDir()
	db = filepath.Join(dir, "jobs.db")
	balances := "account:\n  balances: {USDT: 1000, BTC: 0.00005}\n" // the simulated account of paper mode
	if mode == config.ModeLive {
		balances = ""
	}
	text := fmt.Sprintf(`mode: %s
exchange: {base_url: %q}
store: {path: %q}
%sstrategies:
  - {name: dust, id: dust, schedule: "0 3 * * *", params: {exclude: [USDT]}}
  - {name: dca, id: btc-dca, symbols: [BTCUSDT], interval: 1h, schedule: "0 9 * * MON", params: {amount: 25}}
`, mode, url, db, balances)
	path = filepath.Join(dir, "jobs.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, db
}

// Live: the job trades on the exchange itself through the REST client.
func TestJobsRunLive(t *testing.T) {
	t.Parallel()
	x, url := remoteExchange(t)
	cfg, db := remoteConfig(t, "live", url)
	env := []string{"SPOTBOT_API_KEY=" + remoteKey, "SPOTBOT_API_SECRET=" + remoteSecret}
	var out, errOut strings.Builder
	if err := jobsArgs(t.Context(), []string{"run", "dust", "--config", cfg}, &out, &errOut, env, x); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	want := "job dust (dust), schedule convert, live (" + url + ") at 2024-06-01T03:00:00Z\n" +
		"not convertible: USDT (asset cannot be converted)\n" +
		"converted BTC into 0.98 of the platform token (fee 0.02)\n" +
		"orders: none\n" +
		"outcome: ok\n" +
		"recorded: run of dust/convert in " + db + "\n"
	if out.String() != want {
		t.Errorf("dust output\n%s\nwant\n%s", out.String(), want)
	}
	acct, err := x.Master().Account(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, bal := range acct.Balances {
		got[bal.Asset] = bal.Free.String()
	}
	if _, ok := got["BTC"]; ok || got["TOK"] != "0.98" || got["USDT"] != "1000" {
		t.Errorf("exchange balances after the conversion %v", got)
	}

	out.Reset()
	if err := jobsArgs(t.Context(), []string{"run", "btc-dca", "--config", cfg}, &out, &errOut, env, x); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	// The client order id: instance, the time in base-36 milliseconds, and
	// the runtime's first sequence number.
	cid := "btc-dca-" + strconv.FormatInt(time.Date(2024, 6, 1, 3, 0, 0, 0, time.UTC).UnixMilli(), 36) + "-1"
	want = "job btc-dca (dca), schedule buy, live (" + url + ") at 2024-06-01T03:00:00Z\n" +
		"order " + cid + ": BUY MARKET BTCUSDT quote 25 -> FILLED, executed 0.000625 for 25, 1 fill\n" +
		"outcome: ok\n" +
		"recorded: run of btc-dca/buy in " + db + "\n"
	if out.String() != want {
		t.Errorf("dca output\n%s\nwant\n%s", out.String(), want)
	}
	st := readStore(t, db)
	fills, err := st.FillsByOrder(t.Context(), cid)
	if err != nil || len(fills) != 1 || fills[0].Qty.String() != "0.000625" || fills[0].Price.String() != "40000" {
		t.Errorf("fills %+v %v", fills, err)
	}
	for job, n := range map[string]int{"convert": 1, "buy": 1} {
		if runs, err := st.JobRuns(t.Context(), job); err != nil || len(runs) != n || !runs[0].OK {
			t.Errorf("runs of %s: %+v %v", job, runs, err)
		}
	}
}

// Paper: a simulated account priced from the exchange's public klines; the
// exchange's own account is untouched, and no key is needed.
func TestJobsRunPaper(t *testing.T) {
	t.Parallel()
	x, url := remoteExchange(t)
	cfg, db := remoteConfig(t, "paper", url)
	var out, errOut strings.Builder
	if err := jobsArgs(t.Context(), []string{"run", "dust", "--config", cfg}, &out, &errOut, nil, x); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	want := "job dust (dust), schedule convert, paper (simulated account, prices from " + url + ") at 2024-06-01T03:00:00Z\n" +
		"not convertible: USDT (asset cannot be converted)\n" +
		"converted BTC into 0.98 TOK (fee 0.02 TOK)\n" +
		"orders: none\n" +
		"outcome: ok\n" +
		"recorded: run of dust/convert in " + db + "\n"
	if out.String() != want {
		t.Errorf("output\n%s\nwant\n%s", out.String(), want)
	}
	acct, err := x.Master().Account(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range acct.Balances {
		if b.Asset == "BTC" && b.Free.String() != "0.00005" || b.Asset == "TOK" {
			t.Errorf("the exchange's account changed: %+v", acct.Balances)
		}
	}
}
