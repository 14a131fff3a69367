package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/exchange"
)

const testSimSecret = "sim-secret-for-tests-0123456789ab"

// startSimServer runs `bot sim-server` with args until the test ends and
// returns the lines it printed before serving, keyed by their first words.
func startSimServer(t *testing.T, environ []string, args ...string) (lines []string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := simServerArgs(ctx, args, pw, environ)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), "replaying") || strings.Contains(sc.Text(), "no klines") {
			break
		}
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "sim-server: listening on http://127.0.0.1:") {
		cancel()
		t.Fatalf("start-up output %q, error %v", lines, <-done)
	}
	rest := make(chan []string, 1)
	go func() {
		var more []string
		for sc.Scan() {
			more = append(more, sc.Text())
		}
		rest <- more
	}()
	return lines, func() error {
		cancel()
		err := <-done
		if more := <-rest; err == nil && (len(more) == 0 || more[len(more)-1] != "sim-server: stopped") {
			t.Errorf("output after stop %q", more)
		}
		return err
	}
}

func TestSimServerCommand(t *testing.T) {
	t.Parallel()
	env := []string{"SPOTBOT_SIM_SECRET=" + testSimSecret}
	lines, stop := startSimServer(t, env, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--speed", "0")
	base := strings.TrimPrefix(lines[0], "sim-server: listening on ")
	want := []string{
		"sim-server: account main (uid 1000): API key mx0vglSimMain0001, secret from $SPOTBOT_SIM_SECRET",
		"sim-server: admin API on http://127.0.0.1:", // port varies
		"sim-server: replaying 8618 60m bars of BTCUSDT, ETHUSDT (sample) from 2020-11-17T00:00:00Z at speed 0",
	}
	if len(lines) != 4 || lines[1] != want[0] || !strings.HasPrefix(lines[2], want[1]) || lines[3] != want[2] {
		t.Fatalf("start-up output\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	c, err := exchange.New(exchange.WithBaseURL(base), exchange.WithCredentials(exchange.NewSecret("mx0vglSimMain0001"), exchange.NewSecret(testSimSecret)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	// The server's clock is the replay's (2021): the client syncs to it.
	if _, err := c.SyncTime(ctx); err != nil {
		t.Fatal(err)
	}
	acct, err := c.Spot.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := acct.Balance("USDT").Free.String() + " " + acct.Balance("BTC").Free.String() + " " + acct.Balance("ETH").Free.String(); got != "10000 0.1 1" {
		t.Errorf("balances %s, want 10000 0.1 1", got)
	}
	// Every sample bar was fed: the last price is the last bar's close.
	last, err := c.Market.TickerPrice(ctx, "BTCUSDT")
	if err != nil || !last.Price.Valid {
		t.Fatalf("last price %+v %v", last, err)
	}
	ks, err := c.Market.Klines(ctx, exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m, Limit: 1})
	if err != nil || len(ks) != 1 || !ks[0].OpenTime.Equal(time.Date(2021, 5, 16, 0, 0, 0, 0, time.UTC)) || !ks[0].Close.Equal(last.Price.Decimal) {
		t.Errorf("last kline %+v %v (last price %s)", ks, err, last.Price.Decimal)
	}
	bid := last.Price.Decimal.Mul(decimal.RequireFromString("0.95")).Round(2)
	ack, err := c.Spot.NewOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		Quantity: decimal.RequireFromString("0.001"), Price: bid, NewClientOrderID: "cmd-1"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.Spot.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: ack.OrderID})
	if err != nil || o.Status != exchange.StatusNew || o.ClientOrderID != "cmd-1" || !o.Price.Equal(bid) {
		t.Errorf("order %+v %v", o, err)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := c.Market.ServerTime(ctx); err == nil {
		t.Error("the server still answers after the stop")
	}
}

func TestSimServerConfigErrors(t *testing.T) {
	t.Parallel()
	text, err := configs.FS.ReadFile("sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	loose := write("loose.key", testSimSecret+"\n")
	os.Chmod(loose, 0o644)
	tests := []struct {
		name    string
		yaml    string
		environ []string
		want    string
	}{
		{"no secret", string(text), nil, "accounts[0]: the API secret is missing: set SPOTBOT_SIM_SECRET (or secret_file)"},
		{"unknown key", string(text) + "\nbogus: 1\n", []string{"SPOTBOT_SIM_SECRET=x"}, "field bogus not found"},
		{"bad order type", strings.Replace(string(text), "[LIMIT, MARKET, LIMIT_MAKER]", "[LIMIT, STOP]", 1), []string{"SPOTBOT_SIM_SECRET=x"},
			`symbols[0].order_types: "STOP" is not LIMIT`},
		{"bad replay source", strings.Replace(string(text), "source: sample", "source: tape", 1), []string{"SPOTBOT_SIM_SECRET=x"},
			`replay.source: "tape" is not sample, csv or none`},
		{"key file readable by others", strings.Replace(string(text), "secret_env: SPOTBOT_SIM_SECRET", "secret_file: "+loose, 1), nil,
			"is readable by group or others (mode 0644)"},
		{"bad permission", strings.Replace(string(text), "permissions: all", "permissions: [SPOT_DEAL_WRITE, FLY]", 1), []string{"SPOTBOT_SIM_SECRET=x"},
			"accounts[0].permissions[1]: FLY is not a permission"},
	}
	for _, tt := range tests {
		path := write(strings.ReplaceAll(tt.name, " ", "_")+".yaml", tt.yaml)
		err := simServerArgs(t.Context(), []string{"--listen", "127.0.0.1:0", "--config", path}, io.Discard, tt.environ)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := simServerArgs(t.Context(), []string{"--nope"}, io.Discard, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("unknown flag: %v", err)
	}
}

func TestSimServerKeyFileAndCSVReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := filepath.Join(dir, "sim.key")
	os.WriteFile(key, []byte("# the main account's secret\n"+testSimSecret+"\n"), 0o600)
	csv := filepath.Join(dir, "btc.csv")
	os.WriteFile(csv, []byte("open_time_ms,open,high,low,close,volume\n1704067200000,42000,42100,41900,42050,3\n1704067260000,42050,42200,42000,42150,2\n"), 0o600)
	cfg := filepath.Join(dir, "sim.yaml")
	os.WriteFile(cfg, []byte(`symbols:
  - {symbol: BTCUSDT, base: BTC, quote: USDT, base_precision: 6, quote_precision: 2, min_amount: 5}
accounts:
  - {name: main, api_key: k1, secret_file: `+key+`, balances: {USDT: 500}}
  - {name: other, balances: {BTC: 1}}
replay: {source: csv, csv: {BTCUSDT: `+csv+`}, interval: 1m, speed: 0}
`), 0o600)
	lines, stop := startSimServer(t, nil, "--listen", "127.0.0.1:0", "--config", cfg)
	if got := strings.Join(lines[1:], "\n"); got != "sim-server: account main (uid 1000): API key k1, secret from "+key+
		"\nsim-server: replaying 2 1m bars of BTCUSDT (csv) from 2024-01-01T00:00:00Z at speed 0" {
		t.Errorf("start-up output\n%s", got)
	}
	base := strings.TrimPrefix(lines[0], "sim-server: listening on ")
	c, _ := exchange.New(exchange.WithBaseURL(base), exchange.WithCredentials(exchange.NewSecret("k1"), exchange.NewSecret(testSimSecret)))
	if p, err := c.Market.TickerPrice(t.Context(), "BTCUSDT"); err != nil || p.Price.Decimal.String() != "42150" {
		t.Errorf("last price %+v %v", p, err)
	}
	if a, err := c.Spot.Account(t.Context()); err != nil || a.Balance("USDT").Free.String() != "500" {
		t.Errorf("account %+v %v", a, err)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func TestSimServerWarmupThenPacedReplay(t *testing.T) {
	t.Parallel()
	lines, stop := startSimServer(t, []string{"SPOTBOT_SIM_SECRET=" + testSimSecret}, "--listen", "127.0.0.1:0")
	if want := "sim-server: replaying 8618 60m bars of BTCUSDT, ETHUSDT (sample) from 2020-11-17T00:00:00Z at speed 60, the first 376 at once"; lines[len(lines)-1] != want {
		t.Errorf("replay line %q, want %q", lines[len(lines)-1], want)
	}
	base := strings.TrimPrefix(lines[0], "sim-server: listening on ")
	c, err := exchange.New(exchange.WithBaseURL(base))
	if err != nil {
		t.Fatal(err)
	}
	// 200 hours of warm-up: BTCUSDT from its first bar, ETHUSDT (a day
	// later) for the 176 hours left.
	ks, err := c.Market.Klines(t.Context(), exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m})
	if err != nil || len(ks) == 0 {
		t.Fatalf("klines %d %v", len(ks), err)
	}
	if got := fmt.Sprintf("%d %s", len(ks), ks[len(ks)-1].OpenTime.UTC().Format(time.RFC3339)); got != "200 2020-11-25T07:00:00Z" {
		t.Errorf("warm-up bars: %s", got)
	}
	if p, err := c.Market.TickerPrice(t.Context(), "ETHUSDT"); err != nil || !p.Price.Valid {
		t.Errorf("ETHUSDT price after the warm-up %+v %v", p, err)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func TestSimServerSymbolsFromRecordedExchangeInfo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	info := filepath.Join(dir, "exchangeInfo.json")
	// The live service's quirks: numbers as strings, tradeSideType as a
	// string, a filter.
	os.WriteFile(info, []byte(`{"timezone":"CST","serverTime":1700000000000,"rateLimits":[],"exchangeFilters":[],"symbols":[
{"symbol":"MXUSDT","status":"1","baseAsset":"MX","baseAssetPrecision":"2","quoteAsset":"USDT","quotePrecision":"4","quoteAssetPrecision":4,
"baseCommissionPrecision":2,"quoteCommissionPrecision":4,"orderTypes":["LIMIT","MARKET"],"isSpotTradingAllowed":true,"isMarginTradingAllowed":false,
"permissions":["SPOT"],"filters":[{"filterType":"PERCENT_PRICE_BY_SIDE","bidMultiplierUp":"1.05","askMultiplierDown":"0.95"}],
"maxQuoteAmount":"2000000","makerCommission":"0","takerCommission":"0.0005","quoteAmountPrecision":"1","baseSizePrecision":"0",
"quoteAmountPrecisionMarket":"1","maxQuoteAmountMarket":"100000","tradeSideType":"1","st":false}]}`), 0o600)
	cfg := filepath.Join(dir, "sim.yaml")
	os.WriteFile(cfg, []byte("exchange_info: "+info+"\naccounts: [{name: main, api_key: k, secret_env: S}]\nreplay: {source: none}\n"), 0o600)
	lines, stop := startSimServer(t, []string{"S=" + testSimSecret}, "--listen", "127.0.0.1:0", "--config", cfg)
	c, _ := exchange.New(exchange.WithBaseURL(strings.TrimPrefix(lines[0], "sim-server: listening on ")))
	got, err := c.Market.ExchangeInfo(t.Context(), "MXUSDT")
	if err != nil || len(got.Symbols) != 1 {
		t.Fatalf("exchange info %+v %v", got, err)
	}
	s := got.Symbols[0]
	if r := fmt.Sprint(s.QuotePrecision, s.BaseAssetPrecision, s.TakerCommission, s.Filters[0].BidMultiplierUp, s.MaxQuoteAmountMarket, s.TradeSideType, s.OrderTypes); r !=
		"4 2 0.0005 1.05 100000 1 [LIMIT MARKET]" {
		t.Errorf("rules served %s", r)
	}
	if err := stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}
