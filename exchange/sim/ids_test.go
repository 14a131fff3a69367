package sim

import (
	"math"
	"strconv"
	"testing"
)

// idText gives strconv's text for every number, in order, out of order,
// across blocks and at the ends of int64, one allocation a block.
func TestIDText(t *testing.T) {
	var ids idText
	for _, n := range []int64{1, 2, 3, 31, 32, 33, 64, 5, 1000, 999, 1031, 1032, math.MaxInt64 - 40, math.MaxInt64 - 1, math.MaxInt64, 0, -7} {
		if got := ids.of(n); got != strconv.FormatInt(n, 10) {
			t.Errorf("%d: %q", n, got)
		}
	}
	var seq idText
	got := make([]string, 0, 5*8*idBlockLen) // the warm-up run and 4
	n := int64(100)
	// AllocsPerRun reports whole allocations a run: a run of 8 blocks.
	if a := testing.AllocsPerRun(4, func() {
		for range 8 * idBlockLen {
			got = append(got, seq.of(n))
			n++
		}
	}); a != 8 {
		t.Errorf("%v allocations for 8 blocks of ids, want 8", a)
	}
	for i, s := range got {
		if s != strconv.FormatInt(int64(100+i), 10) {
			t.Fatalf("id %d: %q", 100+i, s)
		}
	}
}
