// Package cli is what spotbot's commands share: running under a context
// that SIGINT and SIGTERM cancel, and one set of exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes of every command.
const (
	ExitOK    = 0 // done, or interrupted by a signal
	ExitError = 1 // the command failed
	ExitUsage = 2 // bad usage: unknown command or flag, invalid configuration
)

// ErrUsage marks errors the user fixes by changing the command line or the
// configuration: wrap it (fmt.Errorf("%w: ...", cli.ErrUsage)).
var ErrUsage = errors.New("usage")

// Run is a command's body: its arguments (without the program name) and
// output streams, under ctx.
type Run func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Main runs run with the process's arguments and streams under a context
// that SIGINT and SIGTERM cancel, then exits with ExitCode's code.
func Main(name string, run Run) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(ExitCode(name, err, os.Stderr))
}

// ExitCode returns the exit code for err and, when it is a failure, writes
// it to w ("name: err", a usage error as it is). Cancellation (a signal) is
// a clean exit.
func ExitCode(name string, err error, w io.Writer) int {
	if err == nil || errors.Is(err, context.Canceled) {
		return ExitOK
	}
	if errors.Is(err, ErrUsage) {
		// A usage error says what to change (and "usage: " already
		// starts it), or lists a configuration's problems: as it is.
		fmt.Fprintln(w, err)
		return ExitUsage
	}
	fmt.Fprintf(w, "%s: %v\n", name, err)
	return ExitError
}
