package backtest

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spotbot/spotbot/internal/procfs"
)

// A sweep's runs allocate many short-lived values over a live heap that is
// mostly the loaded bars. Collecting by Go's default ratio (GOGC 100) runs
// the collector every few megabytes on a small data set, and a higher
// ratio makes the heap swing with each finished run, so the runtime keeps
// handing pages back to the system and faulting them in again. On the
// 2-core development machine that held two workers to 1.6-1.7 times the
// one-worker rate. Collecting only when the heap reaches a memory limit
// keeps the pages and lets two workers reach about 1.9 times.

// SweepGCPercent is the collection ratio sweeps fall back to when the
// memory limit SweepMemory would set does not fit the machine.
const SweepGCPercent = 400

// sweepMemoryFloor is the smallest memory limit SweepMemory sets.
const sweepMemoryFloor = 64 << 20

// SweepMemory sets the process's garbage collector for a sweep or a
// walk-forward, to be called once the data are loaded, and returns the
// limit it set (0 when it set none) and a function restoring the previous
// settings. It collects only when the heap reaches a memory limit of three
// times the live heap plus 256 MiB, at least 512 MiB, and at most half
// the machine's memory; when that does not fit, it sets SweepGCPercent
// instead. With GOGC or GOMEMLIMIT in the environment it changes nothing:
// the user's settings win. Library code leaves the setting to programs.
func SweepMemory() (limit int64, restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0, func() {}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit = max(sweepMemoryFloor, 3*int64(ms.HeapAlloc)+64<<20)
	if total := totalMemory(); total > 0 && limit > total/2 {
		old := debug.SetGCPercent(SweepGCPercent)
		return 0, func() { debug.SetGCPercent(old) }
	}
	oldLimit := debug.SetMemoryLimit(limit)
	oldPercent := debug.SetGCPercent(-1)
	return limit, func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// totalMemory is the machine's memory in bytes from /proc/meminfo, or 0
// where that cannot be read.
func totalMemory() int64 {
	kb, _ := procfs.KB("/proc/meminfo", "MemTotal")
	return kb << 10
}
