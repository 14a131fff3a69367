package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/strategy"
)

type params struct {
	Fast int `koanf:"fast"`
	Slow int `koanf:"slow"`
}

func (p params) Validate() error {
	if p.Fast >= p.Slow {
		return errors.New("fast: must be < slow")
	}
	return nil
}

type nop struct{}

func (nop) OnKline(strategy.Context, strategy.Bar) error { return nil }

func testRegistry() *strategy.Registry {
	r := strategy.NewRegistry()
	r.Register("cross", func(c strategy.Config) (strategy.Strategy, error) {
		p := params{Fast: 10, Slow: 30}
		if err := strategy.DecodeParams(c.Params, &p); err != nil {
			return nil, err
		}
		return nop{}, nil
	})
	return r
}

const good = `
mode: backtest
data:
  source: sample
  interval: 1h
  from: 2021-01-01
account:
  balances: {USDT: 10000.50}
risk:
  max_drawdown: 0.25
strategies:
  - name: cross
    id: a
    symbols: [BTCUSDT]
    interval: 1h
    params: {fast: 5, slow: 20}
`

func TestLoad(t *testing.T) {
	t.Parallel()
	env := []string{"SPOTBOT_DATA__INTERVAL=4h", "SPOTBOT_RISK__MAX_OPEN_ORDERS=7", "SPOTBOT_API_SECRET=hidden", "OTHER=1",
		"SPOTBOT_ACCOUNT__BALANCES__BTC=0.5", "SPOTBOT_SIM__FILL=touch",
		// Other spotbot tools' variables are not configuration.
		"SPOTBOT_SIM_SECRET=s3cret", "SPOTBOT_SIM_ADMIN_TOKEN=t0ken"}
	c, err := Load([]byte(good), env, map[string]any{"data.interval": "1d"}, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != ModeBacktest || c.Data.Interval != "1d" || c.Risk.MaxOpenOrders != 7 || c.Risk.MaxDrawdown.String() != "0.25" ||
		c.Account.Balances["USDT"].String() != "10000.5" || c.Account.Balances["BTC"].String() != "0.5" ||
		c.Exchange.RecvWindow != 5*time.Second || c.Sim.Fill != "touch" ||
		len(c.Strategies) != 1 || c.Strategies[0].Params["fast"] != 5 {
		t.Errorf("loaded %+v", c)
	}
	r, err := c.Data.Range()
	if err != nil || !r[0].Equal(time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)) || !r[1].IsZero() {
		t.Errorf("range %v %v", r, err)
	}
}

func TestLoadErrorsNameTheField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		env        []string
		want       string
	}{
		{"unknown key", "mode: backtest\ndata: {sorce: csv}\n", nil, "data.sorce: unknown key; did you mean source?"},
		{"lower-case quote", "account: {quote: usdt}\n", nil, `account.quote: "usdt" must be an asset name in capitals`},
		{"strategy param", strings.Replace(good, "slow: 20", "slow: 3", 1), nil, "strategies[0].params.fast: must be < slow"},
		{"strategy param type", strings.Replace(good, "fast: 5", "fast: five", 1), nil, "strategies[0].params.fast: is not a whole number"},
		{"unknown strategy", strings.Replace(good, "name: cross", "name: crosss", 1), nil, `strategies[0].name: unknown strategy "crosss" (known: cross)`},
		{"secret in yaml", "exchange:\n  api_secret: abc\n", nil, "exchange.api_secret: secrets must not be in the configuration file"},
		{"bad mode", "mode: yolo\n", nil, `mode: "yolo" must be live, paper, paper-replay, backtest or sim-server`},
		{"live without url", "mode: live\n", nil, "exchange.base_url: required in live mode"},
		{"recv window", "exchange: {recv_window: 60s}\n", nil, "exchange.recv_window: 1m0s must be above 0 and below 60s"},
		{"bad from", "data: {from: yesterday}\n", nil, `data.from: "yesterday" is neither YYYY-MM-DD nor RFC 3339`},
		{"to before from", "data: {from: 2021-02-01, to: 2021-01-01}\n", nil, "data.to: must be after data.from"},
		{"csv without path", "data: {source: csv}\n", nil, "data.path: required for source csv"},
		{"risk", "risk: {max_drawdown: 1.5}\n", nil, "risk.max_drawdown: must be a fraction in [0, 1)"},
		{"bad env value", "", []string{"SPOTBOT_RISK__MAX_OPEN_ORDERS=many"}, "max_open_orders"},
		{"negative balance", "account: {balances: {USDT: -1}}\n", nil, "account.balances.USDT: must not be negative"},
		{"duplicate id", good + "  - {name: cross, id: a, symbols: [ETHUSDT], interval: 1h}\n", nil, `strategies[1].id: "a" already used by strategies[0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load([]byte(tt.yaml), tt.env, nil, testRegistry())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	c := &Config{}
	k, s, err := c.Credentials([]string{"SPOTBOT_API_KEY=key1", "SPOTBOT_API_SECRET=sec1"})
	if err != nil || k.String() != "REDACTED" || s.IsZero() {
		t.Fatalf("env credentials: %v", err)
	}
	if _, _, err := c.Credentials([]string{"SPOTBOT_API_KEY=key1"}); err == nil || !strings.Contains(err.Error(), "set both") {
		t.Errorf("half credentials: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "keys")
	if err := os.WriteFile(path, []byte("# spotbot keys\nkey2\nsec2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Exchange.KeyFile = path
	_, _, err = c.Credentials(nil)
	if err == nil || !strings.Contains(err.Error(), "readable by group or others (mode 0644)") {
		t.Errorf("open key file: %v", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	k, s, err = c.Credentials(nil)
	if err != nil || k.IsZero() || s.IsZero() {
		t.Fatalf("key file: %v", err)
	}
	if err := os.WriteFile(path, []byte("only-one-line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Credentials(nil); err == nil || !strings.Contains(err.Error(), "must hold two lines") {
		t.Errorf("short key file: %v", err)
	}
}

// A backtest with no starting balance (none, or only zeros) could place no
// order and would report zeros; it is refused instead.
func TestBacktestNeedsABalance(t *testing.T) {
	t.Parallel()
	const msg = "account.balances: a backtest needs a starting balance, for example account.balances.USDT: 10000 (without one no order can be placed)"
	for text, want := range map[string]string{
		"mode: backtest\n": msg,
		"mode: backtest\naccount: {balances: {USDT: 0}}\n":           msg,
		"mode: backtest\naccount: {balances: {USDT: 0, BTC: 0.5}}\n": "",
		"mode: paper-replay\n":                                       "",
	} {
		_, err := Load([]byte(text), nil, nil, testRegistry())
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
