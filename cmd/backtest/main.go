// Command backtest runs spotbot strategies over historical klines.
//
// With no arguments it backtests the built-in smacross strategy on the
// embedded sample data (configs/backtest.yaml), prints a summary and writes
// report.html. Exit codes: 0 success, 1 a failed run, 2 bad usage
// (unknown command or flag, invalid configuration).
package main

import (
	"io"

	"github.com/spotbot/spotbot/internal/cli"
)

func main() { cli.Main("backtest", run) }

// The exit codes and the usage error are the ones every command shares.
const (
	exitOK    = cli.ExitOK
	exitError = cli.ExitError
	exitUsage = cli.ExitUsage
)

var errUsage = cli.ErrUsage

func exitCode(err error, stderr io.Writer) int { return cli.ExitCode("backtest", err, stderr) }
