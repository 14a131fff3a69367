// Package app is spotbot's command line, importable: the command trees of
// the bot and backtest commands, built over a strategy registry the caller
// fills, and the entry point that runs them.
//
// cmd/bot and cmd/backtest are this package over the built-in strategies.
// A strategy written in one's own module gets every command (run, check,
// jobs, sim-server, download, import, export, new-strategy, and backtest with its
// sweeps, walk-forward and recorded reports) from a main.go of a few
// lines:
//
//	package main
//
//	import (
//		"github.com/spotbot/spotbot/app"
//		"github.com/spotbot/spotbot/strategies"
//
//		"example.com/mybot/breakout"
//	)
//
//	func main() {
//		reg := strategies.NewRegistry() // the built-ins, or strategy.NewRegistry() for none
//		reg.Register("breakout", breakout.New)
//		app.Main(app.New("mybot", reg))
//	}
//
// Then "mybot run --config paper.yaml" trades a configuration naming
// breakout, and "mybot backtest sweep --config bt.yaml --param n=10:50:10"
// sweeps it. Bot and Backtest build the two trees on their own, as
// cmd/bot and cmd/backtest do. Execute runs a tree on given arguments and
// streams and returns the exit code, for tests:
//
//	code := app.Execute(ctx, app.Backtest(reg), []string{"run", "--config", "bt.yaml", "--no-store"}, &out, &errOut)
//
// Exit codes: ExitOK (0) when done or interrupted by a signal, ExitError
// (1) when a run failed, ExitUsage (2) for an unknown command or flag, bad
// arguments, or an invalid configuration (errors wrapping ErrUsage).
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/backtest/chartlib"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// deps is what the commands take from outside: the strategies and, so
// tests can replace them, the process's environment, clock and exit.
type deps struct {
	reg     *strategy.Registry
	environ func() []string
	clock   exchange.Clock
	exit    func(int) // ends the process on bot run's second signal
	// chartClient fetches the reports' charting library from the npm
	// registry; nil (tests) never fetches.
	chartClient *http.Client
}

// processDeps are the deps of a real process.
func processDeps(reg *strategy.Registry) deps {
	if reg == nil {
		panic("app: nil strategy registry")
	}
	return deps{reg: reg, environ: os.Environ, clock: exchange.SystemClock{}, exit: os.Exit, chartClient: chartlib.NewClient()}
}

// Bot returns the bot command tree over the strategies of reg: run, check,
// jobs run, endpoints, sim-server, download, import, export and
// new-strategy.
func Bot(reg *strategy.Registry) *cobra.Command {
	return newBot("bot", processDeps(reg))
}

// Backtest returns the backtest command tree over the strategies of reg:
// run (also what no command does), sweep, walkforward and report.
func Backtest(reg *strategy.Registry) *cobra.Command {
	root := newBacktest("backtest", processDeps(reg))
	setRoot(root)
	return root
}

// New returns one command tree named name over the strategies of reg:
// every command of Bot, and Backtest's as the subcommand group backtest
// ("name backtest sweep ...").
func New(name string, reg *strategy.Registry) *cobra.Command {
	d := processDeps(reg)
	root := newBot(name, d)
	root.Short = name + " trades and backtests spotbot strategies"
	root.Long = name + ` runs spotbot strategies: live, on paper or on replayed data (run), one
scheduled job at a time (jobs run), and over historical klines (backtest).
It checks configurations, serves the simulated exchange, and moves klines in
and out of the store.

Exit codes: 0 done or interrupted, 1 failed, 2 bad usage or configuration.`
	root.AddCommand(newBacktest(name+" backtest", d))
	return root
}

// Main runs root on the process's arguments and streams under a context
// that SIGINT and SIGTERM cancel, then exits with Execute's code.
func Main(root *cobra.Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Execute(ctx, root, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Execute runs root on args (without the program name) under ctx, writes
// a failure to stderr, and returns the exit code: ExitOK, ExitError or
// ExitUsage.
func Execute(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	return exitCode(root.Name(), execute(ctx, root, args, stdout, stderr), stderr)
}

// execute runs root on args and returns what a run returned as it is, and
// cobra's complaints about the command line as usage errors.
func execute(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) error {
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	markRunErrors(root)
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return nil
	}
	if re, ok := err.(runError); ok {
		return re.err
	}
	if cmd == nil {
		cmd = root
	}
	return fmt.Errorf("%w: %v\nRun '%s --help' for usage.", ErrUsage, strings.TrimSpace(err.Error()), cmd.CommandPath())
}

// setRoot gives a root command what every root has: the version flag,
// suggestions for mistyped commands, and the default help and completion
// commands (cobra adds those when it runs).
func setRoot(root *cobra.Command) {
	root.Version = version(debug.ReadBuildInfo())
	root.SuggestionsMinimumDistance = 2
	root.SilenceErrors, root.SilenceUsage = true, true
}

// version is the module version of the binary and, when the build
// recorded them, its VCS revision and time: "v1.2.0",
// "v0.0.0-2025... (abc123def456, 2025-01-02T03:04:05Z, modified)", or
// "(devel)" when nothing is known.
func version(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "(devel)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var extra []string
	if rev != "" {
		extra = append(extra, rev[:min(len(rev), 12)])
	}
	if at != "" {
		extra = append(extra, at)
	}
	if modified && rev != "" {
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		v += " (" + strings.Join(extra, ", ") + ")"
	}
	return v
}

// noArgs accepts no positional arguments, taking one for a mistyped
// subcommand when the command has any: "unknown command" with cobra's
// suggestions, which cobra itself gives only on a root without Args.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if !c.HasSubCommands() {
		return fmt.Errorf("unexpected argument %q for %q", args[0], c.CommandPath())
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg)
}
