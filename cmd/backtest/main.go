// Command backtest runs spotbot strategies over historical klines.
//
// With no arguments it backtests the built-in smacross strategy on the
// embedded sample data (configs/backtest.yaml), prints a summary and writes
// report.html. Exit codes: 0 success, 1 a failed run, 2 bad usage
// (unknown command or flag, invalid configuration).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// errUsage marks errors the user fixes by changing the command line or the
// configuration.
var errUsage = errors.New("usage")

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "backtest:", err)
		return exitUsage
	default:
		fmt.Fprintln(stderr, "backtest:", err)
		return exitError
	}
}
