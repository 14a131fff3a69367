package backtest

import (
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
// CPU) rather than failing. With GOGC or GOMEMLIMIT in the environment it
// changes nothing: the user's settings win. Library code leaves the
// setting to programs; sweeps use SweepMemory.
func RunMemory() (limit int64, restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0, func() {}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit = max(runMemoryFloor, 2*int64(ms.HeapAlloc)+runMemoryHeadroom)
	if total := totalMemory(); total > 0 && limit > total/2 {
		return 0, func() {}
	}
	old := debug.SetMemoryLimit(limit)
	return limit, func() { debug.SetMemoryLimit(old) }
}
