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

// runLimitLive is the largest live heap of bars for which RunMemory sets
// a memory limit (see RunMemory).
const runLimitLive = 256 << 20

// runRatioHeadroom is the most a run over bars on the heap lets it grow
// past its live heap between collections (see RunMemory and runGCPercent).
const runRatioHeadroom = 1 << 30

// runMinGCPercent is the lowest collection ratio runGCPercent sets.
const runMinGCPercent = 10

// runGCPercent is the collection ratio for a run over bars on the heap,
// whose live heap is live bytes at its start: Go's default of 100 while
// that lets the heap grow by at most runRatioHeadroom before a
// collection, and the ratio that allows runRatioHeadroom beyond that (at
// least runMinGCPercent).
func runGCPercent(live int64) int {
	if live <= runRatioHeadroom {
		return 100
	}
	return max(runMinGCPercent, int(100*runRatioHeadroom/live))
}

// RunMemory sets the process's garbage collector for one run over loaded
// bars, to be called once the data are loaded, and returns the limit it
// set (0 when it set none) and a function restoring the previous settings.
// mapped is the bytes of bars held outside the heap (a cache file mapped
// into memory, barfile.Writes.Map), 0 when they are all on the heap.
//
// A run's live heap is mostly the bars; the run adds its fills, orders and
// equity curve (about 25-40 bytes a bar for smacross over distinct bars)
// and allocates about 85 bytes a bar of short-lived values. At the
// default ratio the heap grows to twice the live heap before each
// collection, so a million-bar run peaked at about 140 MB of heap for
// 70-85 MB live. For bars on the heap RunMemory sets:
//
//   - a soft memory limit of twice the live heap at the call plus 40 MiB
//     (at least 64 MiB) while that live heap is at most 256 MiB (about five
//     million bars): the heap stays at twice the bars while the run's own
//     values fit in the 40 MiB, and a run whose live heap outgrows it is
//     collected more often (the runtime caps that at half the CPU) rather
//     than failing. Past 256 MiB the run's own values outgrow 40 MiB by
//     far (ten million bars add 250 MB, fifty million 1.2 GB), and a limit
//     fixed at the start binds ever harder as the run goes on: at ten
//     million bars it cost 13% of the rate. It sets none there, nor where
//     it would pass half the machine's memory.
//   - the collection ratio (runGCPercent): Go's default of 100 up to a
//     live heap of 1 GiB (about twenty million bars), then whatever lets
//     the heap grow by 1 GiB between collections, 43 for the 2.45 GB of
//     fifty million bars. Bars are columns of integers without pointers,
//     so a collection marks only the run's own values and costs little
//     however many bars there are, while every page of room the heap
//     grows into is a fresh page the kernel must fault in, at a cost per
//     page that grows with the memory touched on some virtual machines.
//     BenchmarkSMACrossDistinct over fifty million bars, on the 2-core
//     development machine: at the default ratio 3.2 M bars/s, 103 ns a bar
//     in the kernel and a peak of 141 bytes a bar; at 43, 3.5-4.3 M bars/s,
//     22-83 ns in the kernel (what a fresh page costs there varies from one
//     process to the next) and 104-125 bytes a bar.
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
// two million fills would have outgrown it. The command's million-bar run
// from the cache now stays below that limit: it is not collected at all
// and peaks at 117 MB resident, mapped bars included (GODEBUG=gctrace=1
// and /usr/bin/time, session 31).
//
// With mapped bars the heap is not collected first: loading them left a
// few megabytes of garbage at most, which then count as live (raising the
// limit by twice that), where a collection would cost the command a
// millisecond. Bars read onto the heap are collected first, as their
// reading's garbage is about their size (when some of a run's symbols are
// mapped and others were just read, that garbage counts as live too, and
// the limit is that much looser).
//
// With GOGC or GOMEMLIMIT in the environment it changes nothing: the
// user's settings win. Library code leaves the setting to programs; sweeps
// use SweepMemory.
func RunMemory(mapped int64) (limit int64, restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0, func() {}
	}
	if mapped <= 0 {
		// Reading the bars left garbage of their size: collected, the
		// live heap is what is left.
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	percent, limit, set := runGC(int64(ms.HeapAlloc), mapped, totalMemory())
	if !set {
		return 0, func() {}
	}
	oldPercent := debug.SetGCPercent(percent)
	oldLimit := int64(-1) // -1 reads the limit without changing it
	if limit > 0 {
		oldLimit = debug.SetMemoryLimit(limit)
	}
	return limit, func() {
		debug.SetGCPercent(oldPercent)
		if oldLimit >= 0 {
			debug.SetMemoryLimit(oldLimit)
		}
	}
}

// runGC is RunMemory's choice for a live heap of live bytes, mapped bytes
// of bars outside it and a machine of total bytes (0 when unknown): the
// collection ratio (-1: off) and the memory limit (0: none) to set, and
// whether to set anything.
func runGC(live, mapped, total int64) (percent int, limit int64, set bool) {
	limit = max(runMemoryFloor, 2*live+max(mapped, 0)+runMemoryHeadroom)
	fits := total <= 0 || limit <= total/2
	if mapped > 0 {
		if !fits {
			return 0, 0, false
		}
		return -1, limit, true
	}
	if !fits || live > runLimitLive {
		limit = 0
	}
	return runGCPercent(live), limit, true
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
