//go:build !unix

package backtest

import "time"

// cpuTimes is not known here (see cputime_unix_test.go).
func cpuTimes() (user, sys time.Duration, ok bool) { return 0, 0, false }
