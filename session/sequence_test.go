package session_test

import (
	"testing"

	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// Each simulated session on a store gets the next range; a session that
// gave back the rest of its range leaves the next one starting there; a
// saved value that is not a number is refused.
func TestReserveSequence(t *testing.T) {
	ctx := t.Context()
	st := strategy.NewMemoryJournal()
	for i, want := range []session.Sequence{{Start: 0, Tag: "s0-"}, {Start: 100_000, Tag: "s255s-"}} {
		got, err := session.ReserveSequence(ctx, st)
		if err != nil || got != want {
			t.Fatalf("reservation %d: %+v, %v; want %+v", i, got, err, want)
		}
	}
	if err := session.SaveSequence(ctx, st, 100_042); err != nil {
		t.Fatal(err)
	}
	if got, err := session.ReserveSequence(ctx, st); err != nil || got != (session.Sequence{Start: 100_042, Tag: "s256y-"}) {
		t.Errorf("after giving back: %+v, %v", got, err)
	}
	if err := st.SaveState(ctx, "#replay-sequence", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := session.ReserveSequence(ctx, st); err == nil || err.Error() != `store: the saved replay sequence "x" is not a number` {
		t.Errorf("err %v", err)
	}
}
