package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code int
		out  string
	}{
		{nil, ExitOK, ""},
		{fmt.Errorf("run: %w", context.Canceled), ExitOK, ""},
		{fmt.Errorf("%w: unknown flag --x", ErrUsage), ExitUsage, "usage: unknown flag --x\n"},
		{errors.New("disk full"), ExitError, "tool: disk full\n"},
	} {
		var w bytes.Buffer
		require.Equal(t, tt.code, exitCode("tool", tt.err, &w), "%v", tt.err)
		require.Equal(t, tt.out, w.String())
	}
}
