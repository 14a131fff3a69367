package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "(devel)"},
		{&debug.BuildInfo{}, true, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, true, "v1.2.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2025-01-02T03:04:05Z"},
			{Key: "vcs.modified", Value: "true"}}}, true, "(devel) (0123456789ab, 2025-01-02T03:04:05Z, modified)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.3.1"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}}, true, "v0.3.1 (abc)"},
	} {
		if got := version(tt.info, tt.ok); got != tt.want {
			t.Errorf("version(%+v) = %q, want %q", tt.info, got, tt.want)
		}
	}
	// Both roots and New's answer --version with "NAME version V".
	shape := regexp.MustCompile(`^(bot|backtest|mybot) version (\(devel\)|v\S+)( \([^)]*\))?\n$`)
	for _, root := range []func() *cobra.Command{
		func() *cobra.Command { return Bot(strategies.NewRegistry()) },
		func() *cobra.Command { return Backtest(strategies.NewRegistry()) },
		func() *cobra.Command { return New("mybot", strategies.NewRegistry()) },
	} {
		r := root()
		var out, errOut bytes.Buffer
		if code := Execute(t.Context(), r, []string{"--version"}, &out, &errOut); code != ExitOK || !shape.MatchString(out.String()) ||
			!strings.HasPrefix(out.String(), r.Name()+" version ") {
			t.Errorf("%s --version: exit %d, %q %q", r.Name(), code, out.String(), errOut.String())
		}
	}
}

// `help run` and `run --help` print the same help, with the text of the
// former usage string, the flags and the examples.
func TestHelpRun(t *testing.T) {
	t.Parallel()
	var viaHelp, viaFlag, errOut bytes.Buffer
	if code := Execute(t.Context(), Bot(strategies.NewRegistry()), []string{"help", "run"}, &viaHelp, &errOut); code != ExitOK {
		t.Fatalf("help run: exit %d %s", code, errOut.String())
	}
	if code := Execute(t.Context(), Bot(strategies.NewRegistry()), []string{"run", "--help"}, &viaFlag, &errOut); code != ExitOK {
		t.Fatalf("run --help: exit %d %s", code, errOut.String())
	}
	if viaHelp.String() != viaFlag.String() {
		t.Errorf("help run and run --help differ:\n%s\n---\n%s", viaHelp.String(), viaFlag.String())
	}
	for _, want := range []string{
		"run runs the trading bot in the configuration's mode until SIGINT or SIGTERM\n",
		"  paper-replay  the simulated exchange, fed data.source at data.speed\n",
		"Usage:\n  bot run --config FILE [flags]\n",
		"Examples:\n  bot run --config configs/paper.yaml\n",
		"      --config string   configuration file (required)\n",
		"      --speed float     paper-replay speed, overriding data.speed (0: as fast as possible) (default -1)\n",
	} {
		if !strings.Contains(viaHelp.String(), want) {
			t.Errorf("help run lacks %q:\n%s", want, viaHelp.String())
		}
	}
	// Every command of both trees has help of its own.
	for _, args := range [][]string{{"check", "--help"}, {"jobs", "run", "--help"}, {"endpoints", "--help"}, {"sim-server", "--help"},
		{"download", "--help"}, {"import", "--help"}, {"export", "--help"}, {"backtest", "sweep", "--help"}, {"help", "backtest", "report"}} {
		var out, errOut bytes.Buffer
		code := Execute(t.Context(), New("mybot", strategies.NewRegistry()), args, &out, &errOut)
		if code != ExitOK || !strings.Contains(out.String(), "Usage:\n  mybot ") || !strings.Contains(out.String(), "Examples:\n") ||
			!strings.Contains(out.String(), " mybot "+strings.Join(slicesWithout(args, "help", "--help"), " ")+" ") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
	}
}

// A mistyped command is a usage error (exit 2) that suggests the command
// meant, at the root and in a group.
func TestMistypedCommandSuggests(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		root func() *cobra.Command
		args []string
		want string
	}{
		{func() *cobra.Command { return Bot(strategies.NewRegistry()) }, []string{"rnu"},
			"usage: unknown command \"rnu\" for \"bot\"\n\nDid you mean this?\n\trun\nRun 'bot --help' for usage.\n"},
		{func() *cobra.Command { return Bot(strategies.NewRegistry()) }, []string{"chek"},
			"usage: unknown command \"chek\" for \"bot\"\n\nDid you mean this?\n\tcheck\nRun 'bot --help' for usage.\n"},
		{func() *cobra.Command { return Backtest(strategies.NewRegistry()) }, []string{"swep"},
			"usage: unknown command \"swep\" for \"backtest\"\n\nDid you mean this?\n\tsweep\nRun 'backtest --help' for usage.\n"},
		{func() *cobra.Command { return New("mybot", strategies.NewRegistry()) }, []string{"backtest", "walkfoward"},
			"usage: unknown command \"walkfoward\" for \"mybot backtest\"\n\nDid you mean this?\n\twalkforward\nRun 'mybot backtest --help' for usage.\n"},
		{func() *cobra.Command { return Bot(strategies.NewRegistry()) }, []string{"run", "--confg", "x.yaml"},
			"usage: unknown flag: --confg\nRun 'bot run --help' for usage.\n"},
	} {
		var out, errOut bytes.Buffer
		if code := Execute(t.Context(), tt.root(), tt.args, &out, &errOut); code != ExitUsage || errOut.String() != tt.want || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q\nwant stderr %q", tt.args, code, errOut.String(), out.String(), tt.want)
		}
	}
}

// `completion SHELL` writes the shell's completion script for the root.
func TestCompletion(t *testing.T) {
	t.Parallel()
	for shell, want := range map[string]string{"bash": "# bash completion V2 for bot", "zsh": "#compdef bot", "fish": "# fish completion for bot"} {
		var out, errOut bytes.Buffer
		if code := Execute(t.Context(), Bot(strategies.NewRegistry()), []string{"completion", shell}, &out, &errOut); code != ExitOK ||
			!strings.HasPrefix(out.String(), want) {
			t.Errorf("completion %s: exit %d %q, starts %q", shell, code, errOut.String(), out.String()[:min(out.Len(), 60)])
		}
	}
	var out, errOut bytes.Buffer
	if code := Execute(t.Context(), Backtest(strategies.NewRegistry()), []string{"completion", "bash"}, &out, &errOut); code != ExitOK ||
		!strings.HasPrefix(out.String(), "# bash completion V2 for backtest") {
		t.Errorf("backtest completion bash: exit %d %q", code, errOut.String())
	}
}

// New's tree holds every bot command and the backtest group, whose
// commands run as `NAME backtest ...`.
func TestNewExposesBothTrees(t *testing.T) {
	t.Parallel()
	root := New("mybot", strategies.NewRegistry())
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	if got := strings.Join(names, " "); got != "backtest check download endpoints export import jobs new-strategy paper run sim-server store" {
		t.Errorf("commands: %s", got)
	}
	bt, _, err := root.Find([]string{"backtest", "walkforward"})
	if err != nil || bt.CommandPath() != "mybot backtest walkforward" {
		t.Errorf("backtest walkforward: %v %v", bt, err)
	}
	var out, errOut bytes.Buffer
	if code := Execute(t.Context(), New("mybot", strategies.NewRegistry()), []string{"endpoints"}, &out, &errOut); code != ExitOK ||
		!strings.HasSuffix(out.String(), "\n59 endpoints\n") {
		t.Errorf("mybot endpoints: exit %d %q", code, errOut.String())
	}
	dir := t.TempDir()
	out.Reset()
	code := Execute(t.Context(), New("mybot", strategies.NewRegistry()), []string{"backtest", "run", "--out", dir, "--no-store", "--no-html"}, &out, &errOut)
	if code != ExitOK || !strings.Contains(out.String(), "Equity final           20,438.17 USDT") {
		t.Errorf("mybot backtest run: exit %d %s\n%s", code, errOut.String(), out.String())
	}
	// Bad usage and a failed run keep their exit codes under New.
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"backtest", "run", "--fill", "sideways"}, ExitUsage},
		{[]string{"backtest", "report", "9", "--db", filepath.Join(dir, "none.db")}, ExitUsage},
		{[]string{"jobs"}, ExitUsage},
		{[]string{}, ExitUsage},
		{[]string{"export", "--symbol", "BTCUSDT", "--interval", "60m", "--db", filepath.Join(dir, "none.db")}, ExitError},
	} {
		errOut.Reset()
		if code := Execute(t.Context(), New("mybot", strategies.NewRegistry()), tt.args, &out, &errOut); code != tt.code {
			t.Errorf("%v: exit %d, want %d: %s", tt.args, code, tt.code, errOut.String())
		}
	}
}

// every is a strategy of a user's own: a fixed 100 USDT market buy on
// every hundredth bar, sold in full fifty bars later.
type every struct{ n int }

func (s *every) OnKline(ctx strategy.Context, bar strategy.Bar) error {
	s.n++
	info, err := ctx.Rules(bar.Symbol)
	if err != nil {
		return err
	}
	switch s.n % 100 {
	case 0:
		_, err = ctx.Place(exchange.NewOrder{Symbol: bar.Symbol, Side: exchange.SideBuy, Type: exchange.TypeMarket,
			QuoteOrderQty: decimal.NewFromInt(100)})
	case 50:
		if qty := info.FloorQty(ctx.Balance(info.BaseAsset).Free); qty.IsPositive() {
			_, err = ctx.Place(exchange.NewOrder{Symbol: bar.Symbol, Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: qty})
		}
	}
	return err
}

const everyConfig = `mode: backtest
data: {source: sample, interval: 1h}
account: {balances: {USDT: 10000}}
strategies:
  - {name: every, id: mine, symbols: [BTCUSDT], interval: 1h}
`

// A registry with a strategy of one's own is what `backtest run` builds
// from: the configuration names it, the run trades it; the built-ins'
// registry does not know it.
func TestBacktestRunsARegisteredStrategy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "every.yaml")
	if err := os.WriteFile(cfg, []byte(everyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := strategy.NewRegistry()
	reg.Register("every", func(strategy.Config) (strategy.Strategy, error) { return &every{}, nil })
	var out, errOut bytes.Buffer
	code := Execute(t.Context(), Backtest(reg), []string{"run", "--config", cfg, "--out", dir, "--no-store", "--no-html"}, &out, &errOut)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "Backtest               mine (every)\n") {
		t.Errorf("summary:\n%s", out.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Title   string `json:"title"`
		Metrics struct {
			Bars   int `json:"bars"`
			Trades int `json:"trades"`
		} `json:"metrics"`
		Trades []struct {
			EntryTime string `json:"entry_time"`
			ExitTime  string `json:"exit_time"`
		} `json:"trades"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	// 4309 bars (the whole sample: no warm-up): buys on bars 100, 200, ...
	// 4300 and sells fifty bars after each but the last, both filled at the
	// next bar's open: 42 round trips of 50 hours each.
	if rep.Title != "mine (every)" || rep.Metrics.Bars != 4309 || rep.Metrics.Trades != 42 || len(rep.Trades) != 42 {
		t.Fatalf("title %q, %d bars, %d trades (%d listed)", rep.Title, rep.Metrics.Bars, rep.Metrics.Trades, len(rep.Trades))
	}
	// Bar 100 opens 2020-11-21T03:00 (the sample starts 2020-11-17T00:00);
	// bar 150 opens fifty hours later.
	if first := rep.Trades[0]; first.EntryTime != "2020-11-21T04:00:00Z" || first.ExitTime != "2020-11-23T06:00:00Z" {
		t.Errorf("first trade %+v", first)
	}
	// The built-ins' registry does not know the strategy: a usage error.
	errOut.Reset()
	code = Execute(t.Context(), Backtest(strategies.NewRegistry()), []string{"run", "--config", cfg, "--no-store"}, &out, &errOut)
	if code != ExitUsage || !strings.Contains(errOut.String(), `unknown strategy "every" (known: dca, dust, grid, rebalance, smacross)`) {
		t.Errorf("built-ins: exit %d %q", code, errOut.String())
	}
}

// slicesWithout returns args without the words drop.
func slicesWithout(args []string, drop ...string) []string {
	var out []string
	for _, a := range args {
		if !slices.Contains(drop, a) {
			out = append(out, a)
		}
	}
	return out
}
