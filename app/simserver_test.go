package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategies"
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
	edit := func(old, new string) string {
		if !strings.Contains(string(text), old) {
			t.Fatalf("configs/sim.yaml has no %q", old)
		}
		return strings.Replace(string(text), old, new, 1)
	}
	secret := []string{"SPOTBOT_SIM_SECRET=" + testSimSecret}
	short := "short-secret-0123456789abcdefgh" // 31 characters
	shortKey := write("short.key", "# 31 characters, 61 bytes\n"+strings.Repeat("é", 30)+"x\n")
	// want is the whole error; PATH stands for the file's path.
	tests := []struct {
		name    string
		yaml    string
		environ []string
		want    string
	}{
		{"no secret", string(text), nil, "server.accounts[0]: the API secret is missing: set SPOTBOT_SIM_SECRET (or secret_file)"},
		{"unknown key", string(text) + "\nbogus: 1\n", secret, "PATH: bogus: unknown key"},
		{"unknown key under server", edit("  warmup: 200", "  warmup: 200\n  speed: 60"), secret, "PATH: server.speed: unknown key"},
		{"the old replay block", string(text) + "\nreplay: {source: sample}\n", secret, "PATH: replay: unknown key"},
		{"the old market word", edit("market: close", "market: immediate"), secret, `PATH: sim.market: "immediate" must be next-open or close`},
		{"not a sim-server configuration", edit("mode: sim-server", "mode: paper-replay"), secret,
			`PATH: mode: "paper-replay" is not sim-server; the sim-server command serves a configuration with mode: sim-server`},
		{"bad order type", edit("[LIMIT, MARKET, LIMIT_MAKER]", "[LIMIT, STOP]"), secret,
			`PATH: server.symbols[0].order_types[1]: "STOP" is not LIMIT, MARKET, LIMIT_MAKER, IMMEDIATE_OR_CANCEL or FILL_OR_KILL`},
		{"bad data source", edit("source: sample", "source: tape"), secret, `PATH: data.source: "tape" must be sample, csv, store or none`},
		{"key file readable by others", edit("secret_env: SPOTBOT_SIM_SECRET", "secret_file: "+loose), nil,
			"server.accounts[0].secret_file: " + loose + " is readable by group or others (mode 0644); run chmod 600 " + loose},
		{"bad permission", edit("permissions: all", "permissions: [SPOT_DEAL_WRITE, FLY]"), secret,
			`PATH: server.accounts[0].permissions[1]: "FLY" is not a permission: give all, or a list of SPOT_ACCOUNT_READ, SPOT_ACCOUNT_WRITE, ` +
				`SPOT_DEAL_READ, SPOT_DEAL_WRITE, CONTRACT_ACCOUNT_READ, CONTRACT_ACCOUNT_WRITE, CONTRACT_DEAL_READ, CONTRACT_DEAL_WRITE, ` +
				`SPOT_TRANSFER_READ, SPOT_TRANSFER_WRITE, SPOT_WITHDRAW_READ, SPOT_WITHDRAW_WRITE`},
		{"a secret in the file", edit("secret_env: SPOTBOT_SIM_SECRET", "secret: hunter2"), nil,
			"PATH: config: server.accounts[0].secret: secrets must not be in the configuration file; give the account's secret_env or secret_file"},
		{"a secret of 31 characters", string(text), []string{"SPOTBOT_SIM_SECRET=" + short},
			"server.accounts[0]: the API secret from $SPOTBOT_SIM_SECRET is shorter than 32 characters; use a longer one"},
		{"a secret of 31 characters in a file", edit("secret_env: SPOTBOT_SIM_SECRET", "secret_file: "+shortKey), nil,
			"server.accounts[0]: the API secret from " + shortKey + " is shorter than 32 characters; use a longer one"},
		{"csv data missing", edit("source: sample", "source: csv\n  path: "+filepath.Join(dir, "none")), secret,
			"data.path: stat " + filepath.Join(dir, "none") + ": no such file or directory"},
	}
	for _, tt := range tests {
		path := write(strings.ReplaceAll(tt.name, " ", "_")+".yaml", tt.yaml)
		// A configuration accepted by mistake serves until the timeout
		// and then fails the comparison (nil error).
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		err := simServerArgs(ctx, []string{"--listen", "127.0.0.1:0", "--config", path}, io.Discard, tt.environ)
		cancel()
		if want := strings.ReplaceAll(tt.want, "PATH", path); err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", tt.name, err, want)
		}
	}
	if err := simServerArgs(t.Context(), []string{"--nope"}, io.Discard, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("unknown flag: %v", err)
	}
}

// writeSimConfig writes a sim-server configuration and returns its path.
func writeSimConfig(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "sim.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSimServerKeyFileAndCSVReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := filepath.Join(dir, "sim.key")
	os.WriteFile(key, []byte("# the main account's secret\n"+testSimSecret+"\n"), 0o600)
	csv := filepath.Join(dir, "btc.csv")
	os.WriteFile(csv, []byte("open_time_ms,open,high,low,close,volume\n1704067200000,42000,42100,41900,42050,3\n1704067260000,42050,42200,42000,42150,2\n"), 0o600)
	cfg := writeSimConfig(t, dir, `mode: sim-server
server:
  symbols:
    - {symbol: BTCUSDT, base: BTC, quote: USDT, base_precision: 6, quote_precision: 2, min_amount: 5}
  accounts:
    - {name: main, api_key: k1, secret_file: `+key+`, balances: {USDT: 500}}
    - {name: other, balances: {BTC: 1}}
data: {source: csv, path: `+csv+`, interval: 1m, speed: 0, cache: off}
`)
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

// sim.* options reach a sim-server's fills exactly as they reach a
// backtest's: the same market order, sent over HTTP to a server built from
// the file and to the master port of a simulator built from the same sim
// section through the session package, fills at the same price with the
// same fee in the same asset.
func TestSimServerFillsAsInABacktest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, rows := range map[string]string{
		"BTCUSDT-1m.csv": "1704067200000,42000,42100,41900,42050,3\n1704067260000,42050,42200,42000,42150,2\n",
		"TOKUSDT-1m.csv": "1704067200000,0.48,0.51,0.47,0.49,1000\n1704067260000,0.49,0.52,0.48,0.5,1000\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("open_time_ms,open,high,low,close,volume\n"+rows), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const head = `mode: sim-server
server:
  symbols:
    - {symbol: BTCUSDT, base: BTC, quote: USDT, base_precision: 6, quote_precision: 2, min_amount: 5, taker_fee: 0.001}
    - {symbol: TOKUSDT, base: TOK, quote: USDT, base_precision: 2, quote_precision: 4, min_amount: 1, taker_fee: 0.001}
  accounts:
    - {name: main, api_key: k1, secret_env: S, balances: {USDT: 1000, TOK: 100}}
data: {source: csv, interval: 1m, speed: 0, cache: off, path: `
	for _, tt := range []struct{ name, sim, want string }{
		// At the last close, the fee of 0.1% in the asset bought.
		{"symbol fees", "{market: close}", "42150 0.001 0.000001 BTC"},
		// Two ticks of 0.01 worse; the fee 20% off, in TOK at its last
		// price (42.15002 × 0.001 × 0.8 / 0.5).
		{"token fees and slippage ticks", "{market: close, slippage_ticks: 2, token_fees: true}", "42150.02 0.001 0.06744003 TOK"},
		// The fee override, no ticks.
		{"taker fee override", "{market: close, taker_fee: 0.002}", "42150 0.001 0.000002 BTC"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text := head + dir + "}\nsim: " + tt.sim + "\n"
			sub := t.TempDir()
			lines, stop := startSimServer(t, []string{"S=" + testSimSecret}, "--listen", "127.0.0.1:0", "--config", writeSimConfig(t, sub, text))
			c, err := exchange.New(exchange.WithBaseURL(strings.TrimPrefix(lines[0], "sim-server: listening on ")),
				exchange.WithCredentials(exchange.NewSecret("k1"), exchange.NewSecret(testSimSecret)))
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if _, err := c.SyncTime(ctx); err != nil {
				t.Fatal(err)
			}
			order := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeMarket,
				Quantity: decimal.RequireFromString("0.001"), NewClientOrderID: "fill-1"}
			ack, err := c.Spot.NewOrder(ctx, order)
			if err != nil {
				t.Fatal(err)
			}
			trades, err := c.Spot.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT", OrderID: ack.OrderID})
			if err != nil || len(trades) != 1 {
				t.Fatalf("trades %+v %v", trades, err)
			}
			served := fmt.Sprintf("%s %s %s %s", trades[0].Price, trades[0].Qty, trades[0].Commission, trades[0].CommissionAsset)
			if served != tt.want {
				t.Errorf("served fill %s, want %s", served, tt.want)
			}
			if err := stop(); err != nil {
				t.Errorf("stop: %v", err)
			}

			// The backtest's way: the same configuration, the sim section
			// through session.FillFromConfig and session.NewSim.
			cfg, err := config.Load([]byte(text), nil, nil, strategies.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			fill, err := session.FillFromConfig(cfg.Sim)
			if err != nil {
				t.Fatal(err)
			}
			var rules []exchange.SymbolInfo
			for _, s := range cfg.Server.Symbols {
				rules = append(rules, s.Info())
			}
			x, err := session.NewSim(ctx, session.Venue{Fill: fill, Start: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Rules: rules,
				Balances: cfg.Server.Accounts[0].Balances, Retention: session.KeepRun})
			if err != nil {
				t.Fatal(err)
			}
			bars, err := session.LoadData(config.Data{Source: "csv", Path: dir, Cache: config.CacheOff}, exchange.Interval1m, []string{"BTCUSDT", "TOKUSDT"}, [2]time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				for _, sym := range []string{"BTCUSDT", "TOKUSDT"} {
					if err := x.FeedKline(sym, exchange.Interval1m, bars[sym][i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			back, err := x.Master().PlaceOrder(ctx, order)
			if err != nil {
				t.Fatal(err)
			}
			bt, err := x.Master().MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT", OrderID: back.OrderID})
			if err != nil || len(bt) != 1 {
				t.Fatalf("backtest trades %+v %v", bt, err)
			}
			if got := fmt.Sprintf("%s %s %s %s", bt[0].Price, bt[0].Qty, bt[0].Commission, bt[0].CommissionAsset); got != served {
				t.Errorf("backtest fill %s, served %s", got, served)
			}
		})
	}
}

// The environment overrides a sim-server configuration as any other:
// SPOTBOT_SERVER__LIMITS=false lifts the rate limits (the 13th
// exchangeInfo of weight 25 passes 300 per 10 s), SPOTBOT_DATA__SPEED
// sets the replay speed.
func TestSimServerEnvironment(t *testing.T) {
	t.Parallel()
	cfg := writeSimConfig(t, t.TempDir(), `mode: sim-server
server:
  symbols: [{symbol: BTCUSDT, base: BTC, quote: USDT, base_precision: 6, quote_precision: 2, min_amount: 5}]
  accounts: [{name: main}]
data: {source: sample, interval: 1h, speed: 60}
`)
	for _, tt := range []struct {
		name    string
		environ []string
		replay  string
		codes   string
	}{
		{"limits by default", nil, "at speed 60", "200 200 200 200 200 200 200 200 200 200 200 200 429"},
		{"limits off, speed 0", []string{"SPOTBOT_SERVER__LIMITS=false", "SPOTBOT_DATA__SPEED=0"}, "at speed 0",
			"200 200 200 200 200 200 200 200 200 200 200 200 200"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lines, stop := startSimServer(t, tt.environ, "--listen", "127.0.0.1:0", "--config", cfg)
			if last := lines[len(lines)-1]; !strings.HasSuffix(last, tt.replay) {
				t.Errorf("replay line %q, want it to end %q", last, tt.replay)
			}
			base := strings.TrimPrefix(lines[0], "sim-server: listening on ")
			var codes []string
			for range 13 {
				req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/api/v3/exchangeInfo", nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				codes = append(codes, fmt.Sprint(resp.StatusCode))
			}
			if got := strings.Join(codes, " "); got != tt.codes {
				t.Errorf("statuses %s, want %s", got, tt.codes)
			}
			if err := stop(); err != nil {
				t.Errorf("stop: %v", err)
			}
		})
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
	os.WriteFile(cfg, []byte("mode: sim-server\nserver: {exchange_info: "+info+", accounts: [{name: main, api_key: k, secret_env: S}]}\ndata: {source: none}\n"), 0o600)
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
