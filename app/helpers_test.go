package app

import (
	"context"
	"io"
	"os"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies"
)

// testDeps are a process's deps over the built-in strategies with the
// given environment, clock and exit.
func testDeps(environ []string, clock exchange.Clock, exit func(int)) deps {
	return deps{reg: strategies.NewRegistry(), environ: func() []string { return environ }, clock: clock, exit: exit}
}

// botArgs runs `bot args...` with the process's environment.
func botArgs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	d := testDeps(os.Environ(), exchange.SystemClock{}, os.Exit)
	return execute(ctx, newBot("bot", d), args, stdout, stderr)
}

// runBotArgs runs `bot run args...`, logging to logOut.
func runBotArgs(ctx context.Context, args []string, logOut io.Writer, environ []string, clock exchange.Clock, forceExit func(int)) error {
	d := testDeps(environ, clock, forceExit)
	return execute(ctx, newBot("bot", d), append([]string{"run"}, args...), io.Discard, logOut)
}

// jobsArgs runs `bot jobs args...`.
func jobsArgs(ctx context.Context, args []string, stdout, stderr io.Writer, environ []string, clock exchange.Clock) error {
	d := testDeps(environ, clock, os.Exit)
	return execute(ctx, newBot("bot", d), append([]string{"jobs"}, args...), stdout, stderr)
}

// checkArgs runs `bot check args...`.
func checkArgs(ctx context.Context, args []string, stdout io.Writer, environ []string) error {
	d := testDeps(environ, exchange.SystemClock{}, os.Exit)
	return execute(ctx, newBot("bot", d), append([]string{"check"}, args...), stdout, io.Discard)
}

// simServerArgs runs `bot sim-server args...`.
func simServerArgs(ctx context.Context, args []string, stdout io.Writer, environ []string) error {
	d := testDeps(environ, exchange.SystemClock{}, os.Exit)
	return execute(ctx, newBot("bot", d), append([]string{"sim-server"}, args...), stdout, io.Discard)
}

// downloadArgs, importArgs and exportArgs run those commands.
func downloadArgs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return botArgs(ctx, append([]string{"download"}, args...), stdout, stderr)
}

func importArgs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return botArgs(ctx, append([]string{"import"}, args...), stdout, stderr)
}

func exportArgs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return botArgs(ctx, append([]string{"export"}, args...), stdout, stderr)
}
