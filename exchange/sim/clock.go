package sim

import "time"

// The clock and the held bar's open time have an integer shadow, their
// Unix nanoseconds, so that the per-bar feed compares and advances
// integers instead of calling time.Time's After and Add (issue #16). A
// shadow stands for its time only when fastNanos accepts the time; other
// times (a zero start, years far outside 1685-2255, a monotonic clock
// reading, a location other than UTC) are compared as time.Time, exactly
// as before.

const (
	// fastSecMax bounds the Unix seconds of a time with a shadow, well
	// inside what int64 nanoseconds hold (±292 years around 1970), so
	// that adding an interval's length (at most fastDurMax) cannot
	// overflow.
	fastSecMax = 9_000_000_000
	// fastDurMax is the longest step the shadow takes; intervals are at
	// most a week.
	fastDurMax = 365 * 24 * time.Hour
)

// fastNanos returns t's Unix nanoseconds and true when t can have a
// shadow: t is UTC without a monotonic reading (time.Time's After then
// compares its wall clock, as integers do, and time.Unix(0, ns).UTC()
// rebuilds t field for field) and within ±fastSecMax seconds of 1970.
func fastNanos(t time.Time) (int64, bool) {
	s := t.Unix()
	if s < -fastSecMax || s > fastSecMax || t.UTC() != t {
		return 0, false
	}
	return s*1e9 + int64(t.Nanosecond()), true
}

// setNow is the one place the clock takes a time.Time; it keeps the
// shadow (nowNs, nowFast) true to it. The per-bar feed also moves the
// clock along its shadow (feedBar), to times fastNanos accepts.
func (x *Exchange) setNow(t time.Time) {
	x.now = t
	x.nowNs, x.nowFast = fastNanos(t)
}
