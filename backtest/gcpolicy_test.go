package backtest

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// SweepMemory turns ratio collection off for a memory limit, restores the
// settings after, and leaves a user's GOGC alone. Not parallel: it changes
// the process's collector.
func TestSweepMemory(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(percent)
	memLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(memLimit)

	limit, restore := SweepMemory()
	if total := totalMemory(); total > 0 && total/2 < sweepMemoryFloor {
		t.Skipf("a machine with %d bytes takes the ratio fallback", total)
	}
	require.GreaterOrEqual(t, limit, int64(sweepMemoryFloor))
	require.Equal(t, limit, debug.SetMemoryLimit(-1)) // -1 reads without changing
	require.Equal(t, -1, debug.SetGCPercent(-1))
	restore()
	require.Equal(t, 100, debug.SetGCPercent(100))
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))

	t.Setenv("GOGC", "150")
	limit, restore = SweepMemory()
	require.Zero(t, limit)
	require.Equal(t, 100, debug.SetGCPercent(100))
	restore()
}

func TestTotalMemory(t *testing.T) {
	n := totalMemory()
	if n == 0 {
		t.Skip("no /proc/meminfo here")
	}
	require.Greater(t, n, int64(64<<20))
}

// RunMemory adds a memory limit and keeps the ratio (turns it off when
// bars are mapped outside the heap), restores the settings after, and
// leaves a user's GOMEMLIMIT alone. Not parallel: it changes the
// process's collector.
func TestRunMemory(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(percent)
	memLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(memLimit)

	live := make([]byte, 96<<20) // a live heap past the floor's half
	limit, restore := RunMemory(0)
	if total := totalMemory(); total > 0 && total/2 < limit {
		t.Skipf("a machine with %d bytes sets no limit", total)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	require.GreaterOrEqual(t, limit, int64(2*96<<20+runMemoryHeadroom))
	require.LessOrEqual(t, limit, 2*int64(ms.HeapAlloc)+runMemoryHeadroom)
	require.Equal(t, limit, debug.SetMemoryLimit(-1)) // -1 reads without changing
	require.Equal(t, 100, debug.SetGCPercent(100))
	restore()
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
	runtime.KeepAlive(live)

	// Bars mapped outside the heap: the ratio off, all of them in the
	// limit.
	const mapped = 48 << 20
	limit, restore = RunMemory(mapped)
	runtime.ReadMemStats(&ms)
	require.GreaterOrEqual(t, limit, int64(2*96<<20+mapped+runMemoryHeadroom))
	require.LessOrEqual(t, limit, 2*int64(ms.HeapAlloc)+mapped+runMemoryHeadroom)
	require.Equal(t, limit, debug.SetMemoryLimit(-1))
	require.Equal(t, -1, debug.SetGCPercent(-1))
	ReportMemory() // the reports' headroom, undone by restore
	require.Equal(t, limit+reportHeadroom, debug.SetMemoryLimit(-1))
	restore()
	require.Equal(t, 100, debug.SetGCPercent(100))
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
	runtime.KeepAlive(live)

	ReportMemory() // no limit set: none added
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))

	// A live heap past 256 MiB: the ratio alone (100 below 1 GiB), no
	// limit, and restore leaves the limit as it was.
	big := make([]byte, 300<<20)
	limit, restore = RunMemory(0)
	require.Zero(t, limit)
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
	require.Equal(t, 100, debug.SetGCPercent(50)) // changed here, restored below
	restore()
	require.Equal(t, 100, debug.SetGCPercent(100))
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
	runtime.KeepAlive(big)

	t.Setenv("GOMEMLIMIT", "1GiB")
	limit, restore = RunMemory(mapped)
	require.Zero(t, limit)
	ReportMemory()
	require.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(-1))
	restore()
}

func TestRunGCPercent(t *testing.T) {
	for _, c := range []struct {
		live int64
		want int
	}{
		{0, 100},
		{48 << 20, 100},
		{1 << 30, 100},      // the headroom the default ratio gives: still the default
		{1<<30 + 1, 99},     // just past it
		{2 << 30, 50},       // twice the headroom
		{2_450_000_000, 43}, // fifty million bars of 48 bytes and the run's start
		{10 << 30, 10},      // ten times: the floor
		{40 << 30, 10},      // past it: still the floor
	} {
		require.Equal(t, c.want, runGCPercent(c.live), "live %d", c.live)
	}
}

func TestRunGC(t *testing.T) {
	const mib, gib = 1 << 20, 1 << 30
	for _, c := range []struct {
		name                string
		live, mapped, total int64
		percent             int
		limit               int64
		set                 bool
	}{
		{"a small heap: the floor", 8 * mib, 0, 24 * gib, 100, 64 * mib, true},
		{"a million bars on the heap", 50 * mib, 0, 24 * gib, 100, 140 * mib, true},
		{"the largest heap with a limit", 256 * mib, 0, 24 * gib, 100, 552 * mib, true},
		{"past it: the ratio alone", 256*mib + 1, 0, 24 * gib, 100, 0, true},
		{"ten million bars", 480 * mib, 0, 24 * gib, 100, 0, true},
		{"fifty million bars", 2_450_000_000, 0, 24 * gib, 43, 0, true},
		{"a limit past half the machine", 100 * mib, 0, 400 * mib, 100, 0, true},
		{"the machine unknown", 100 * mib, 0, 0, 100, 240 * mib, true},
		{"mapped bars: the ratio off", 6 * mib, 48 * mib, 24 * gib, -1, 100 * mib, true},
		{"mapped bars past half the machine: nothing", 6 * mib, 48 * mib, 150 * mib, 0, 0, false},
		{"fifty million mapped bars", 64 * mib, 2_400_000_000, 24 * gib, -1, 2_400_000_000 + 168*mib, true},
	} {
		percent, limit, set := runGC(c.live, c.mapped, c.total)
		require.Equal(t, c.percent, percent, c.name)
		require.Equal(t, c.limit, limit, c.name)
		require.Equal(t, c.set, set, c.name)
	}
}
