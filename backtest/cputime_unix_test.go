//go:build unix

package backtest

import (
	"syscall"
	"time"
)

// cpuTimes is the CPU time the process has spent in user mode and in the
// kernel (its page faults, above all), every thread counted; ok is false
// where the system does not say.
func cpuTimes() (user, sys time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), true
}
