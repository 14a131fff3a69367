package strategy

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClientIDsKeepTheirText checks the ids cut from the runtime's shared
// text: each is the instance, the clock in base-36 milliseconds and the
// sequence, and stays so while thousands more are written after it
// (across many replaced texts, with instance ids of several lengths).
func TestClientIDsKeepTheirText(t *testing.T) {
	t.Parallel()
	clock := &testClock{t: time.UnixMilli(1_700_000_000_000)}
	r := &Runtime{opts: Options{Clock: clock}}
	insts := []*instance{{id: "s0"}, {id: "a-much-longer-instance"}, {id: strings.Repeat("x", 40)}}
	var ids, want []string
	for i := range 5000 {
		in := insts[i%len(insts)]
		clock.t = clock.t.Add(time.Duration(i%7) * time.Millisecond)
		ids = append(ids, r.nextClientID(in))
		want = append(want, in.id+"-"+strconv.FormatInt(clock.t.UnixMilli(), 36)+"-"+strconv.FormatInt(int64(i+1), 36))
	}
	for i := range ids {
		if ids[i] != want[i] {
			t.Fatalf("id %d is %q, want %q", i, ids[i], want[i])
		}
	}
	if ids[0] != "s0-loyw3v28-1" {
		t.Fatalf("first id %q", ids[0])
	}
}

func TestClientIDsShareAllocations(t *testing.T) {
	r := &Runtime{opts: Options{Clock: &testClock{t: time.UnixMilli(1_700_000_000_000)}}}
	in := &instance{id: "s0"}
	if n := testing.AllocsPerRun(1000, func() { _ = r.nextClientID(in) }); n > 0.1 {
		t.Fatalf("%v allocations an id, want one a text of %d bytes (%.3f)", n, idTextLen, 16.0/idTextLen)
	}
}
