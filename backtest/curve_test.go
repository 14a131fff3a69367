package backtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCurveTimes(t *testing.T) {
	t.Parallel()
	// Evenly spaced, a gap, one lone point, a different spacing, and a
	// repeated time.
	ats := []int64{0, 60, 120, 180, 400, 460, 520, 1000, 1100, 1200, 1300, 1300}
	var c Curve
	for i, at := range ats {
		c.Append(at, float64(i)/2)
	}
	if c.Len() != len(ats) {
		t.Fatalf("len %d, want %d", c.Len(), len(ats))
	}
	var got []string
	for i, p := range c.All() {
		if p.At != ats[i] || c.At(i) != ats[i] || c.Point(i) != p || p.Value != float64(i)/2 {
			t.Errorf("point %d: %+v, At %d; want at %d value %v", i, p, c.At(i), ats[i], float64(i)/2)
		}
		got = append(got, fmt.Sprint(p.At))
	}
	if g, w := strings.Join(got, " "), "0 60 120 180 400 460 520 1000 1100 1200 1300 1300"; g != w {
		t.Errorf("times %s, want %s", g, w)
	}
	var sp []string
	for gap, n := range c.spacings() {
		sp = append(sp, fmt.Sprintf("%d×%d", gap, n))
	}
	// Every spacing once, in order, with its count.
	if g, w := strings.Join(sp, " "), "60×3 220×1 60×2 480×1 100×3 0×1"; g != w {
		t.Errorf("spacings %s, want %s", g, w)
	}
	total := 0
	for _, n := range c.spacings() {
		total += n
	}
	if total != len(ats)-1 {
		t.Errorf("%d spacings, want %d", total, len(ats)-1)
	}
	if !slices.Equal(c.Values, []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5}) {
		t.Errorf("values %v", c.Values)
	}
}

// TestCurveAppendTimes checks that points added in runs (grow, then
// appendTimes, or appendEven for a run without a gap) give the curve
// Append gives point by point: the same values and the same runs of
// times, whatever the cuts between runs.
func TestCurveAppendTimes(t *testing.T) {
	t.Parallel()
	opens := []int64{0, 60, 120, 180, 400, 460, 520, 1000, 1100, 1200, 1300, 1300, 1360, 1420, 1420}
	const shift = 60
	var want Curve
	for i, o := range opens {
		want.Append(o+shift, float64(i))
	}
	wantRuns := fmt.Sprint(want.runs)
	if wantRuns != "[{0 4 60 60} {4 3 460 60} {7 4 1060 100} {11 3 1360 60} {14 1 1480 0}]" {
		t.Fatalf("Append's runs %s", wantRuns)
	}
	// Every way of cutting the points into two or three runs.
	for a := 0; a <= len(opens); a++ {
		for b := a; b <= len(opens); b++ {
			var c Curve
			for _, r := range [][2]int{{0, a}, {a, b}, {b, len(opens)}} {
				vals := c.grow(r[1] - r[0])
				for j := range vals {
					vals[j] = float64(r[0] + j)
				}
				part := opens[r[0]:r[1]]
				even := len(part) > 0
				for j := 1; j < len(part); j++ {
					even = even && part[j]-part[j-1] == 60
				}
				if even {
					c.appendEven(part[0]+shift, 60, len(part)) // evenly spaced by 60
				} else {
					c.appendTimes(part, shift)
				}
			}
			if !slices.Equal(c.Values, want.Values) || fmt.Sprint(c.runs) != wantRuns {
				t.Fatalf("cut at %d and %d: values %v runs %v; want %v %s", a, b, c.Values, c.runs, want.Values, wantRuns)
			}
		}
	}
}
