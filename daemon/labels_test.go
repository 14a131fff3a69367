package daemon

import (
	"slices"
	"testing"
)

// Every label is listed once.
func TestLabelsUnique(t *testing.T) {
	t.Parallel()
	for name, l := range map[string][]string{"RefusalReasons": RefusalReasons(), "APIErrorKinds": APIErrorKinds()} {
		s := slices.Clone(l)
		slices.Sort(s)
		if len(slices.Compact(s)) != len(l) {
			t.Errorf("%s lists a label twice: %v", name, l)
		}
	}
	if n := len(RefusalReasons()); n != 26 {
		t.Errorf("%d refusal reasons", n)
	}
}
