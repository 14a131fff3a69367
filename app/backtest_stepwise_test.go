package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// backtest run --stepwise (the strategies' fast path off) writes the same
// reports as the default run, byte for byte; it is a flag of single runs.
func TestStepwiseFlag(t *testing.T) {
	fast, slow := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		dir  string
		args []string
	}{{fast, nil}, {slow, []string{"--stepwise"}}} {
		_, errs, code := runBacktest(t, append([]string{"run", "--out", c.dir, "--no-html", "--no-store"}, c.args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
	}
	for _, f := range []string{"report.json", "trades.csv", "equity.csv"} {
		a, err := os.ReadFile(filepath.Join(fast, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(slow, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) || len(a) < 1000 {
			t.Fatalf("%s: %d bytes with the fast path, %d stepwise, or differ", f, len(a), len(b))
		}
	}
	_, errs, code := runBacktest(t, "sweep", "--stepwise")
	if code != ExitUsage || !strings.Contains(errs, "unknown flag: --stepwise") {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
}
