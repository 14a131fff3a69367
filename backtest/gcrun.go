package backtest

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// runMemoryFloor is the smallest memory limit RunMemory sets.
const runMemoryFloor = 64 << 20

// runMemoryHeadroom is what RunMemory's limit adds to twice the live heap.
const runMemoryHeadroom = 40 << 20

// RunMemory sets the process's garbage collector for one run over loaded
// bars, to be called once the data are loaded, and returns the limit it
// set (0 when it set none) and a function restoring the previous settings.
// mapped is the bytes of bars held outside the heap (a cache file mapped
// into memory, barfile.Writes.Map), 0 when they are all on the heap.
//
// A run's live heap is mostly the bars; the run adds its fills, orders and
// equity curve (about 40 bytes a bar for smacross over a million distinct
// bars) and allocates about 145 bytes a bar of short-lived values. At the
// default ratio the heap grows to twice the live heap before each
// collection, so a million-bar run peaked at about 140 MB of heap for
// 70-85 MB live. RunMemory keeps the ratio and adds a soft memory limit of
// twice the live heap at the call plus 40 MiB (at least 64 MiB, at most
// half the machine's memory): the heap stays at twice the bars while the
// run's own live values fit in that headroom, and a run whose live heap
// outgrows it is collected more often (the runtime caps that at half the
// CPU) rather than failing.
//
// Bars outside the heap leave a live heap of a few megabytes at the call,
// and the ratio then collects at 4, 8, 16, 24, 36 and 50 MB: six
// collections instead of one in a million-bar run, each marking the run's
// fills and orders while it goes on (from the cache the command took
// 0.36–0.43 s against 0.31–0.32 s without collection, on a machine at a
// load average of 5 to 8). So with mapped bars it turns the ratio off
// and collects only at a limit of twice the live heap, plus the mapped
// bars, plus 40 MiB: the room the run's own live values have before the
// limit binds is then what it is with the bars on the heap (a limit of
// twice the bars and the live heap, plus 40 MiB, less the bars), at every
// size; with half the mapped bars instead, a run of fifty million bars and
// two million fills would have outgrown it. The million-bar run collects
// once, near its end, and peaks at 147 MB resident, mapped bars included
// (131 MB with the bars on the heap, whose ratio collects earlier).
//
// With GOGC or GOMEMLIMIT in the environment it changes nothing: the
// user's settings win. Library code leaves the setting to programs; sweeps
// use SweepMemory.
func RunMemory(mapped int64) (limit int64, restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0, func() {}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit = max(runMemoryFloor, 2*int64(ms.HeapAlloc)+max(mapped, 0)+runMemoryHeadroom)
	if total := totalMemory(); total > 0 && limit > total/2 {
		return 0, func() {}
	}
	oldLimit := debug.SetMemoryLimit(limit)
	if mapped <= 0 {
		return limit, func() { debug.SetMemoryLimit(oldLimit) }
	}
	oldPercent := debug.SetGCPercent(-1)
	return limit, func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// reportHeadroom is what ReportMemory adds to the run's memory limit.
const reportHeadroom = 64 << 20

// ReportMemory raises the memory limit RunMemory set by 64 MiB, to be
// called once the run is done and before its reports are written;
// RunMemory's restore undoes it with the rest. Writing a million-bar
// run's reports allocates about 15 MB (equity.csv's blocks, the trades'
// texts), which brought a run from the cache to its limit (the ratio off,
// the heap grown to the limit): a collection of a heap the process was
// about to drop, its mark assists charged to the report writers (with a
// limit of half the mapped bars, ten runs each in turns on a loaded
// machine: 0.32–0.37 s, median 0.34, without; 0.31–0.34 s, median 0.33,
// with). With the bars on the heap the ratio collects first: the CSV
// run's peak is unchanged. It changes nothing with GOGC or GOMEMLIMIT in
// the environment, or without a limit set.
func ReportMemory() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64-reportHeadroom {
		debug.SetMemoryLimit(limit + reportHeadroom)
	}
}
