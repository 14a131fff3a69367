package distributed_test

import (
	"strings"
	"testing"

	"github.com/spotbot/spotbot/distributed"
)

// CheckID takes 1 to 64 ASCII letters, digits, - and _, and refuses
// anything else with the rule.
func TestCheckID(t *testing.T) {
	for _, id := range []string{"a", "Z", "0", "-", "_", "sweep-2026_11_25", "AZaz09-_", strings.Repeat("x", 64), distributed.NewID()} {
		if err := distributed.CheckID(id); err != nil {
			t.Errorf("CheckID(%q): %v", id, err)
		}
	}
	for _, id := range []string{"", strings.Repeat("x", 65), "a b", "a.b", "a/b", "a*", "a>", "é", "a\n", "`", "@", "[", "{", ":"} {
		err := distributed.CheckID(id)
		want := `job id "` + strings.ReplaceAll(id, "\n", `\n`) + `": want 1 to 64 letters, digits, - or _`
		if err == nil || err.Error() != want {
			t.Errorf("CheckID(%q) = %v, want %s", id, err, want)
		}
	}
}
