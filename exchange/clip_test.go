package exchange

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", MaxEcho)
	tests := []struct{ in, want string }{
		{"", ""},
		{long, long},
		{long + "b", long + "..."},
		// A two-byte character straddling the cut is dropped whole.
		{long[:MaxEcho-1] + "éx", long[:MaxEcho-1] + "..."},
	}
	for _, tt := range tests {
		if got := Clip(tt.in); got != tt.want {
			t.Errorf("Clip(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	args := ClipArgs([]any{long + "x", Side(long + "y"), errors.New(long + "z"), 7})
	if got := fmt.Sprintf("%q %s %v %d", args...); got != `"`+long+`..." `+long+"... "+long+"... 7" {
		t.Errorf("ClipArgs: %s", got)
	}
}
