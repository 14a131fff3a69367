package app

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/configs"
)

// checkEnv holds credentials for live.yaml, as an operator's environment
// would; simEnv the simulated exchange's secret for sim.yaml. They are kept
// apart: the bot reads every SPOTBOT_ variable as a configuration override,
// and sim_secret is none.
var (
	checkEnv = []string{"SPOTBOT_API_KEY=key-AKIA-visible-nowhere", "SPOTBOT_API_SECRET=secret-Zq9-visible-nowhere", "HOME=/nonexistent"}
	simEnv   = []string{"SPOTBOT_SIM_SECRET=" + strings.Repeat("s", 40)}
)

func runCheck(t *testing.T, path string, environ []string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := checkArgs(t.Context(), []string{"--config", path}, &out, environ)
	code := exitCode("bot", err, &errOut)
	return out.String(), errOut.String(), code
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bot.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every example configuration passes `bot check`, so none rots.
func TestCheckEveryExampleConfig(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(configs.FS, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 6 {
		t.Fatalf("only %d example configs: %v", len(names), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("..", "configs", name)
			env := checkEnv
			if name == "sim.yaml" {
				env = simEnv
			}
			out, errOut, code := runCheck(t, path, env)
			if code != ExitOK || errOut != "" {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, path+": ok") {
				t.Errorf("first line %q", first)
			}
			for _, s := range []string{"key-AKIA-visible-nowhere", "secret-Zq9-visible-nowhere", strings.Repeat("s", 40)} {
				if strings.Contains(out+errOut, s) {
					t.Errorf("a secret was printed:\n%s", out)
				}
			}
		})
	}
}

func TestCheckSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, want string
		environ    []string
	}{
		{"paper.yaml", `../configs/paper.yaml: ok
mode:         paper-replay (data: sample 1h)
strategies:   2
  btc-cross   smacross  BTCUSDT 1h
  eth-grid    grid      ETHUSDT 1h
symbols:      BTCUSDT, ETHUSDT
store:        paper.db
http:         off
credentials:  not needed
`, nil},
		{"live.yaml", `../configs/live.yaml: ok
mode:         live (https://api.example.com)
strategies:   1
  eth-grid    grid  ETHUSDT 1h
symbols:      ETHUSDT
store:        live.db
http:         127.0.0.1:9090
credentials:  present (SPOTBOT_API_KEY, SPOTBOT_API_SECRET)
`, checkEnv},
		{"jobs.yaml", `../configs/jobs.yaml: ok
mode:         paper-replay (data: sample 1h)
strategies:   3
  dust        dust       schedule 0 3 * * *
  rebal       rebalance  BTCUSDT,ETHUSDT 1h schedule 0 0 * * *
  btc-dca     dca        BTCUSDT 1h schedule 0 9 * * MON
symbols:      BTCUSDT, ETHUSDT
store:        spotbot.db
http:         off
credentials:  not needed
`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runCheck(t, filepath.Join("..", "configs", tc.name), tc.environ)
			if code != ExitOK || out != tc.want {
				t.Errorf("exit %d, stderr %q, output\n%s\nwant\n%s", code, errOut, out, tc.want)
			}
		})
	}
}

func TestCheckKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.WriteFile(keys, []byte("key-in-file-AKIA\nsecret-in-file-Zq9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := "mode: live\nexchange: {base_url: 'http://127.0.0.1:1', key_file: " + keys + "}\nstore: {path: " + filepath.Join(dir, "live.db") + "}\n"
	out, errOut, code := runCheck(t, writeConfig(t, text), nil)
	if code != ExitOK || !strings.Contains(out, "\ncredentials:  present (exchange.key_file "+keys+")\n") {
		t.Fatalf("exit %d %s\n%s", code, errOut, out)
	}
	if strings.Contains(out, "in-file") {
		t.Errorf("key file content printed:\n%s", out)
	}
	// Readable by others: refused, and still nothing of it printed.
	if err := os.Chmod(keys, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCheck(t, writeConfig(t, text), nil)
	want := "exchange.key_file: " + keys + " is readable by group or others (mode 0644); run chmod 600 " + keys
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "\n  "+want+"\n") || strings.Contains(errOut, "in-file") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

func TestCheckProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml string
		environ    []string
		problems   []string
	}{
		{"fast not below slow", `mode: paper-replay
strategies:
  - {name: smacross, id: a, symbols: [BTCUSDT], interval: 1h, params: {fast: 10, slow: 30}}
  - {name: smacross, id: b, symbols: [BTCUSDT], interval: 1h, params: {fast: 30, slow: 10}}
`, nil, []string{"strategies[1].params.fast: must be < slow (bot.yaml:4)"}},
		{"several fields", `mode: paper-replay
log: {level: loud}
exchange: {recv_window: 90s}
strategies:
  - {name: nosuch, id: a}
  - {name: dca, id: a, symbols: [BTCUSDT], interval: 1h, params: {amount: 25}}
`, nil, []string{
			`exchange.recv_window: 1m30s must be above 0 and below 60s (bot.yaml:3)`,
			`strategies[0].name: unknown strategy "nosuch" (known: dca, dust, grid, rebalance, smacross) (bot.yaml:5)`,
			`strategies[1].id: "a" already used by strategies[0] (bot.yaml:6)`,
			`log.level: "loud" must be debug, info, warn or error (bot.yaml:2)`,
			`exchange.recv_window: not used in paper-replay mode (only live and paper reach the exchange); remove it or change mode (bot.yaml:3)`,
		}},
		{"live without credentials", "mode: live\nexchange: {base_url: 'http://127.0.0.1:1'}\n", nil,
			[]string{"credentials: none found; set SPOTBOT_API_KEY and SPOTBOT_API_SECRET or exchange.key_file"}},
		{"half the credentials", "mode: live\nexchange: {base_url: 'http://127.0.0.1:1'}\n", []string{"SPOTBOT_API_KEY=k"},
			[]string{"credentials: set both SPOTBOT_API_KEY and SPOTBOT_API_SECRET, or neither"}},
		{"secret in the file", "mode: live\nexchange: {base_url: 'http://127.0.0.1:1', secret: hunter2-Zq9}\n", nil,
			[]string{"config: exchange.secret: secrets must not be in the configuration file; use SPOTBOT_API_KEY/SPOTBOT_API_SECRET or exchange.key_file"}},
		{"replay data missing", `mode: paper-replay
data: {source: csv, path: /nonexistent/bars}
strategies:
  - {name: dca, id: d, symbols: [BTCUSDT], interval: 1h, params: {amount: 25}}
`, nil, []string{"data: data.path: stat /nonexistent/bars: no such file or directory"}},
		{"store folder and listen address", "mode: paper-replay\nstore: {path: /nonexistent/dir/x.db}\nhttp: {listen: '9090'}\n", nil,
			[]string{"http.listen: address 9090: missing port in address (bot.yaml:3)", "store.path: folder /nonexistent/dir does not exist"}},
		{"bad schedule", `mode: paper-replay
strategies:
  - {name: dust, id: dust, schedule: "61 * * * *"}
`, nil, []string{`strategies[0].params.schedule: end of range (61) above maximum (59): 61 (bot.yaml:3)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := writeConfig(t, tc.yaml)
			out, errOut, code := runCheck(t, path, tc.environ)
			want := path + ": " + itoa(len(tc.problems)) + " problem(s):\n  " + strings.Join(tc.problems, "\n  ") + "\n"
			if code != ExitUsage || out != "" || errOut != want {
				t.Errorf("exit %d, stdout %q, stderr\n%s\nwant\n%s", code, out, errOut, want)
			}
			if strings.Contains(errOut, "hunter2") {
				t.Error("the secret was printed")
			}
		})
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// The commands are reachable from bot's command tree.
func TestCheckAndJobsDispatch(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if err := botArgs(t.Context(), []string{"check", "--config", "../configs/paper.yaml"}, &out, &errOut); err != nil ||
		!strings.HasPrefix(out.String(), "../configs/paper.yaml: ok\n") {
		t.Errorf("check: %v %q", err, out.String())
	}
	err := botArgs(t.Context(), []string{"jobs", "list"}, &out, &errOut)
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "jobs: the only subcommand is run") {
		t.Errorf("jobs: %v", err)
	}
	out.Reset()
	if err := botArgs(t.Context(), []string{"help"}, &out, &errOut); err != nil ||
		!strings.Contains(out.String(), "\n  check        Validate a configuration without trading\n  completion   Generate the autocompletion script for the specified shell\n") {
		t.Errorf("usage: %v\n%s", err, out.String())
	}
}

// A sim-server configuration is checked in one pass: every field problem
// with its path, then, once the fields are sound, everything the server
// would read (recorded exchange info, secrets, bars), all at once.
func TestCheckSimServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	tests := []struct {
		name, yaml string
		problems   []string
	}{
		{"fields", `mode: sim-server
sim: {market: immediate, slippage_ticks: -2}
server:
  warmup: -1
  symbols: [{symbol: BTCUSDT, base: BTC}]
  accounts: [{name: main, api_key: k, permissions: [FLY]}]
`, []string{
			`sim.market: "immediate" must be next-open or close (bot.yaml:2)`,
			`sim.slippage_ticks: -2 must not be negative (bot.yaml:2)`,
			`server.warmup: -1 must not be negative (bot.yaml:4)`,
			`server.symbols[0].quote: required (bot.yaml:5)`,
			`server.accounts[0].secret_env: required with api_key (or secret_file): secrets are never in the file (bot.yaml:6)`,
			`server.accounts[0].permissions[0]: "FLY" is not a permission: give all, or a list of SPOT_ACCOUNT_READ, SPOT_ACCOUNT_WRITE, ` +
				`SPOT_DEAL_READ, SPOT_DEAL_WRITE, CONTRACT_ACCOUNT_READ, CONTRACT_ACCOUNT_WRITE, CONTRACT_DEAL_READ, CONTRACT_DEAL_WRITE, ` +
				`SPOT_TRANSFER_READ, SPOT_TRANSFER_WRITE, SPOT_WITHDRAW_READ, SPOT_WITHDRAW_WRITE (bot.yaml:6)`,
		}},
		{"what it reads", `mode: sim-server
data: {source: csv, path: ` + missing + `, interval: 1m}
server:
  exchange_info: ` + missing + `.json
  symbols: [{symbol: BTCUSDT, base: BTC, quote: USDT}]
  accounts:
    - {name: main, api_key: k1, secret_env: SIM_MAIN_SECRET}
    - {name: sub, api_key: k2, secret_env: SIM_SUB_SECRET, secret_file: ` + missing + `.key}
`, []string{
			"server.exchange_info: open " + missing + ".json: no such file or directory",
			"server.accounts[0]: the API secret is missing: set SIM_MAIN_SECRET (or secret_file)",
			"server.accounts[1].secret_file: stat " + missing + ".key: no such file or directory",
			"data.path: stat " + missing + ": no such file or directory",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := writeConfig(t, tc.yaml)
			out, errOut, code := runCheck(t, path, nil)
			want := path + ": " + itoa(len(tc.problems)) + " problem(s):\n  " + strings.Join(tc.problems, "\n  ") + "\n"
			if code != ExitUsage || out != "" || errOut != want {
				t.Errorf("exit %d, stdout %q, stderr\n%s\nwant\n%s", code, out, errOut, want)
			}
		})
	}
	out, errOut, code := runCheck(t, "../configs/sim.yaml", simEnv)
	if want := "../configs/sim.yaml: ok (a bot sim-server configuration)\n" +
		"replaying 8618 60m bars of BTCUSDT, ETHUSDT (sample) from 2020-11-17T00:00:00Z at speed 60, the first 376 at once\n"; code != ExitOK || out != want {
		t.Errorf("exit %d %s\n%s\nwant\n%s", code, errOut, out, want)
	}
}

// Ten mistakes, from the file and the environment, come out in one run of
// bot check, each with its path and its source; enumerations in capitals
// and durations in days are not mistakes, and the secret pasted into a
// duration is not printed back.
func TestCheckTenMistakesInOnePass(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `mode: PAPER
exchange:
  base_url: 'http://127.0.0.1:1'
  recv_window: hunter2-Zq9-pasted-secret
risk: {max_open_order: 3}
log: {level: DEBUG, format: yaml}
poll: {orders: 2d, kline_delay: -1s}
sim: {fill: TOUCH}
daemon: {unknown_orders: keep}
http: {listen: '9090'}
store: {path: /nonexistent/dir/bot.db}
strategies:
  - {name: smacross, id: a, symbols: [BTCUSDT], interval: 1h, params: {fast: 30, slow: 10}}
  - {name: smacross, id: b, symbols: [BTCUSDT], interval: 1h, params: {fsat: 5}}
  - {name: smacross, id: c, symbols: [BTCUSDT], interval: 1h, schedule: "0 25 * * *"}
`)
	environ := append([]string{"SPOTBOT_RISK__MAX_DRAWDOWNN=0.2", "SPOTBOT_DAEMON__CANCEL_ON_SHUTDOWN=perhaps"}, checkEnv...)
	out, errOut, code := runCheck(t, path, environ)
	problems := []string{
		"exchange.recv_window: is not a duration (such as 90s, 15m, 1h30m or 2d) (bot.yaml:4)",
		"risk.max_drawdownn: unknown key; did you mean max_drawdown? (from SPOTBOT_RISK__MAX_DRAWDOWNN)",
		"risk.max_open_order: unknown key; did you mean max_open_orders? (bot.yaml:5)",
		"daemon.cancel_on_shutdown: is not true or false (from SPOTBOT_DAEMON__CANCEL_ON_SHUTDOWN)",
		"strategies[0].params.fast: must be < slow (bot.yaml:13)",
		"strategies[1].params.fsat: unknown parameter; did you mean fast? (bot.yaml:14)",
		`strategies[2].schedule: "0 25 * * *": end of range (25) above maximum (23): 25 (bot.yaml:15)`,
		"strategies[2].schedule: strategy smacross has no schedules; remove schedule (bot.yaml:15)",
		"http.listen: address 9090: missing port in address (bot.yaml:10)",
		`log.format: "yaml" must be text or json (bot.yaml:6)`,
		"poll.kline_delay: -1s must not be negative (bot.yaml:7)",
		`daemon.unknown_orders: "keep" must be adopt or cancel (bot.yaml:9)`,
		"store.path: folder /nonexistent/dir does not exist",
	}
	want := path + ": " + strconv.Itoa(len(problems)) + " problem(s):\n  " + strings.Join(problems, "\n  ") + "\n"
	if code != ExitUsage || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant\n%s", code, out, errOut, want)
	}
	if strings.Contains(errOut, "hunter2") {
		t.Error("the secret pasted into recv_window was printed")
	}
}
