package config

import (
	"fmt"
	"strings"
	"testing"
)

const serverYAML = `
mode: sim-server
server:
  start: 2024-01-01
  warmup: 5
  symbols:
    - {symbol: BTCUSDT, base: BTC, quote: USDT, base_precision: 6, quote_precision: 2, min_amount: 5, max_amount: 2000000,
       taker_fee: 0.0005, order_types: [LIMIT, MARKET], bid_multiplier_up: 1.1, ask_multiplier_down: 0.9}
  accounts:
    - {name: main, api_key: mx0key1, secret_env: SIM_SECRET, balances: {USDT: 100.5, TOK: 3}}
    - {name: sub, api_key: mx0key2, secret_file: /keys/sub, permissions: [SPOT_DEAL_READ, SPOT_DEAL_WRITE], ips: [127.0.0.1]}
data: {source: none}
sim: {market: close, slippage_ticks: 2, token_fees: true}
`

func TestServerSection(t *testing.T) {
	t.Parallel()
	c, err := Load([]byte(serverYAML), nil, nil, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s := c.Server
	got := fmt.Sprintf("%s %d %t %d %d %s %s %v %v %d %t", s.Start, s.Warmup, s.Limits, len(s.Symbols), len(s.Accounts),
		s.Accounts[0].Balances["USDT"], s.Accounts[0].Balances["TOK"], s.Accounts[0].KeyPermissions(), s.Accounts[1].KeyPermissions(),
		c.Sim.SlippageTicks, c.Sim.TokenFees)
	want := "2024-01-01 5 true 1 2 100.5 3 " + fmt.Sprint(AllPermissions()) + " [SPOT_DEAL_READ SPOT_DEAL_WRITE] 2 true"
	if got != want {
		t.Errorf("loaded %s\nwant   %s", got, want)
	}
	info := s.Symbols[0].Info()
	if r := fmt.Sprintln(info.Symbol, info.BaseAsset, info.QuoteAsset, info.BaseAssetPrecision, info.QuotePrecision, info.QuoteAmountPrecision,
		info.QuoteAmountPrecisionMarket, info.MaxQuoteAmountMarket, info.MakerCommission, info.TakerCommission, info.OrderTypes,
		info.Filters[0].BidMultiplierUp, info.Filters[0].AskMultiplierDown); r != "BTCUSDT BTC USDT 6 2 5 5 2000000 0 0.0005 [LIMIT MARKET] 1.1 0.9\n" {
		t.Errorf("rules %s", r)
	}
	// The environment reaches the server section like any other.
	c, err = Load([]byte(serverYAML), []string{"SPOTBOT_SERVER__LIMITS=false", "SPOTBOT_SERVER__WARMUP=7", "SPOTBOT_SIM_SECRET=not-config"}, nil, testRegistry())
	if err != nil || c.Server.Limits || c.Server.Warmup != 7 {
		t.Errorf("environment: %+v %v", c.Server, err)
	}
}

// The access key id of a sim-server account may be in the file; every
// other secret-looking key, in lists too, may not.
func TestServerSecretGuard(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, yaml, want string }{
		{"api_key elsewhere", "exchange: {api_key: k}\n",
			"config: exchange.api_key: secrets must not be in the configuration file; use SPOTBOT_API_KEY/SPOTBOT_API_SECRET or exchange.key_file"},
		{"api_key of the server", "server: {api_key: k}\n",
			"config: server.api_key: secrets must not be in the configuration file; use SPOTBOT_API_KEY/SPOTBOT_API_SECRET or exchange.key_file"},
		{"an account's secret", strings.Replace(serverYAML, "secret_env: SIM_SECRET", "secret: hunter2", 1),
			"config: server.accounts[0].secret: secrets must not be in the configuration file; give the account's secret_env or secret_file"},
		{"api_key below an account", strings.Replace(serverYAML, "balances: {USDT: 100.5, TOK: 3}", "balances: {api_key: 1}", 1),
			"config: server.accounts[0].balances.api_key: secrets must not be in the configuration file; give the account's secret_env or secret_file"},
		{"in a strategy's params", strings.Replace(good, "params: {fast: 5, slow: 20}", "params: {fast: 5, slow: 20, secret: x}", 1),
			"config: strategies[0].params.secret: secrets must not be in the configuration file; use SPOTBOT_API_KEY/SPOTBOT_API_SECRET or exchange.key_file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load([]byte(tt.yaml), nil, nil, testRegistry())
			if err == nil || err.Error() != tt.want {
				t.Errorf("Load = %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestServerSectionProblems(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, yaml, want string }{
		{"old market word", strings.Replace(serverYAML, "market: close", "market: immediate", 1),
			`sim.market: "immediate" must be next-open or close`},
		{"unknown key under server", strings.Replace(serverYAML, "warmup: 5", "warmup: 5\n  replay: {speed: 1}", 1),
			"server.replay: unknown key"},
		{"unknown key in an account", strings.Replace(serverYAML, "name: sub,", "name: sub, colour: red,", 1),
			"server.accounts[1].colour: unknown key"},
		{"nothing to serve", "mode: sim-server\n",
			"server.symbols: at least one is required (or server.exchange_info)\nserver.accounts: at least one (the main account) is required"},
		{"every problem at once", `mode: sim-server
data: {source: tape}
sim: {slippage_ticks: -1, taker_fee: 1}
server:
  start: noon
  warmup: -1
  symbols:
    - {symbol: BTCUSDT, base: BTC, quote_precision: -2, min_amount: -5, order_types: [LIMIT, STOP]}
    - {symbol: BTCUSDT, base: BTC, quote: USDT}
  accounts:
    - {name: main, api_key: k, permissions: [SPOT_DEAL_WRITE, FLY], ips: [localhost], balances: {USDT: -1}}
    - {api_key: k, secret_env: S}
    - {name: c, secret_file: /k}
`, strings.Join([]string{
			`data.source: "tape" must be sample, csv, store or none`,
			`sim.slippage_ticks: -1 must not be negative`,
			`sim.taker_fee: 1 must be at least 0 and below 1`,
			`server.start: "noon" is neither YYYY-MM-DD nor RFC 3339`,
			`server.warmup: -1 must not be negative`,
			`server.symbols[0].quote: required`,
			`server.symbols[0].quote_precision: -2 must not be negative`,
			`server.symbols[0].min_amount: -5 must not be negative`,
			`server.symbols[0].order_types[1]: "STOP" is not LIMIT, MARKET, LIMIT_MAKER, IMMEDIATE_OR_CANCEL or FILL_OR_KILL`,
			`server.symbols[1].symbol: "BTCUSDT" already listed by server.symbols[0]`,
			`server.accounts[0].secret_env: required with api_key (or secret_file): secrets are never in the file`,
			`server.accounts[0].permissions[1]: "FLY" is not a permission: give all, or a list of SPOT_ACCOUNT_READ, SPOT_ACCOUNT_WRITE, ` +
				`SPOT_DEAL_READ, SPOT_DEAL_WRITE, CONTRACT_ACCOUNT_READ, CONTRACT_ACCOUNT_WRITE, CONTRACT_DEAL_READ, CONTRACT_DEAL_WRITE, ` +
				`SPOT_TRANSFER_READ, SPOT_TRANSFER_WRITE, SPOT_WITHDRAW_READ, SPOT_WITHDRAW_WRITE`,
			`server.accounts[0].ips[0]: "localhost" is not an IP address`,
			`server.accounts[0].balances.USDT: must not be negative`,
			`server.accounts[1].name: required (the first account is the master; the others are named)`,
			`server.accounts[1].api_key: already used by server.accounts[0]`,
			`server.accounts[2].api_key: required with secret_env or secret_file`,
		}, "\n")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load([]byte(tt.yaml), nil, nil, testRegistry())
			if err == nil || err.Error() != tt.want {
				t.Errorf("Load = %v\nwant %s", err, tt.want)
			}
		})
	}
}

// data.source none is a sim-server's choice only: every other mode reads
// bars.
func TestDataSourceNone(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ mode, want string }{
		{ModeSimServer, ""},
		{ModeBacktest, "data.source: none is only for mode sim-server; backtest mode needs bars: sample, csv or store"},
		{ModePaperReplay, "data.source: none is only for mode sim-server; paper-replay mode needs bars: sample, csv or store"},
		{ModePaper, "data.source: none is only for mode sim-server; paper mode needs bars: sample, csv or store\n" +
			"data.source: not used in paper mode (only paper-replay, backtest and the simulated server replay data); remove it or change mode"},
	} {
		text := "mode: " + tt.mode + "\ndata: {source: none}\n"
		if tt.mode == ModeBacktest {
			text += "account: {balances: {USDT: 1}}\n"
		}
		if tt.mode == ModePaper {
			text += "exchange: {base_url: 'http://127.0.0.1:1'}\n"
		}
		if tt.mode == ModeSimServer {
			text = serverYAML
		}
		_, err := Load([]byte(text), nil, nil, testRegistry())
		if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
			t.Errorf("%s: %v, want %q", tt.mode, err, tt.want)
		}
	}
}

// A value of the wrong type is named by its path.
func TestServerTypeError(t *testing.T) {
	t.Parallel()
	_, err := Load([]byte(serverYAML), []string{"SPOTBOT_SERVER__LIMITS=maybe"}, nil, testRegistry())
	if want := `server.limits: is not true or false (from SPOTBOT_SERVER__LIMITS)`; err == nil || err.Error() != want {
		t.Errorf("Load = %v\nwant %s", err, want)
	}
}
