package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes of every command.
const (
	ExitOK    = 0 // done, or interrupted by a signal
	ExitError = 1 // the command failed
	ExitUsage = 2 // bad usage: unknown command or flag, invalid configuration
)

// ErrUsage marks errors the user fixes by changing the command line or the
// configuration: a command of one's own wraps it
// (fmt.Errorf("%w: ...", app.ErrUsage)) to exit with ExitUsage.
var ErrUsage = errors.New("usage")

// exitCode returns the exit code for err and, when it is a failure, writes
// it to w ("name: err", a usage error as it is). Cancellation (a signal) is
// a clean exit.
func exitCode(name string, err error, w io.Writer) int {
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

// runError wraps failures of a command's run itself, as opposed to cobra's
// own complaints about the command line (unknown command or flag, wrong
// arguments), which are all usage errors.
type runError struct{ err error }

func (e runError) Error() string { return e.err.Error() }
func (e runError) Unwrap() error { return e.err }

// runErrorsMarked annotates a command whose RunE already wraps its errors.
const runErrorsMarked = "spotbot.app/run-errors"

// markRunErrors wraps the RunE of every command of the tree, once, so
// execute can tell what a run returned from what cobra returned.
func markRunErrors(c *cobra.Command) {
	if c.RunE != nil && c.Annotations[runErrorsMarked] == "" {
		runE := c.RunE
		c.RunE = func(c *cobra.Command, args []string) error {
			if err := runE(c, args); err != nil {
				return runError{err}
			}
			return nil
		}
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[runErrorsMarked] = "yes"
	}
	for _, sub := range c.Commands() {
		markRunErrors(sub)
	}
}
