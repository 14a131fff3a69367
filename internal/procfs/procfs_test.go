package procfs

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	status := []byte("Name:\tbt\nVmPeak:\t  123456 kB\nVmHWM:\t   98765 kB\nVmRSS:\t   4321 kB\nThreads:\t7\nBad:\tx kB\n")
	for _, c := range []struct {
		key  string
		kb   int64
		okay bool
	}{
		{"VmHWM", 98_765, true},
		{"VmRSS", 4_321, true},
		{"VmPeak", 123_456, true},
		{"Threads", 7, true}, // a count, without the unit
		{"Bad", 0, false},
		{"VmSwap", 0, false},
		{"Vm", 0, false}, // a prefix of a key is not the key
	} {
		kb, ok := Parse(status, c.key)
		require.Equal(t, c.kb, kb, c.key)
		require.Equal(t, c.okay, ok, c.key)
	}
}

func TestKB(t *testing.T) {
	_, ok := KB("/no/such/file", "VmHWM")
	require.False(t, ok)
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	kb, ok := KB("/proc/self/status", "VmHWM")
	require.True(t, ok)
	require.Greater(t, kb, int64(1000), "a Go test binary's peak resident set is above a megabyte")
	total, ok := KB("/proc/meminfo", "MemTotal")
	require.True(t, ok)
	require.Greater(t, total, kb)
}
