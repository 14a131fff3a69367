package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hidden --cpuprofile writes a profile of a single run (gzip, as
// pprof writes it), and a path that cannot be created is bad usage naming
// the flag. Not parallel: the CPU profile is the process's one.
func TestCPUProfileFlag(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	_, errs, code := runBacktest(t, "run", "--out", dir, "--no-html", "--no-store", "--cpuprofile", prof)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(prof)
	if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Fatalf("profile %q: %v, %d bytes", prof, err, len(b))
	}
	_, errs, code = runBacktest(t, "run", "--out", dir, "--no-html", "--no-store", "--cpuprofile", filepath.Join(dir, "no", "cpu.prof"))
	if code != ExitUsage || !strings.Contains(errs, "--cpuprofile: open "+filepath.Join(dir, "no", "cpu.prof")) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, errs, code = runBacktest(t, "sweep", "--cpuprofile", prof)
	if code != ExitUsage || !strings.Contains(errs, "unknown flag: --cpuprofile") {
		t.Fatalf("sweep: exit %d: %s", code, errs)
	}
}
