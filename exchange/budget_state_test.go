package exchange

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// A budget restored from a saved state waits exactly as the one that
// saved it would: the draws still in the window count, older ones do not,
// and the server's ban carries over.
func TestBudgetStateRestore(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1700000000, 0)
	clk := newFakeClock(t0)
	a, err := NewBudget(clk, BudgetFailFast, 0, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	draw := func(b *Budget, pool Pool, n int) error {
		return b.Acquire(t.Context(), EpQueryOrder, []Draw{{pool, n}})
	}
	// 200 UID weight at t0, 250 at t0+4 s, 6 orders at t0+4.5 s.
	if err := draw(a, PoolUID, 200); err != nil {
		t.Fatal(err)
	}
	clk.Advance(4 * time.Second)
	if err := draw(a, PoolUID, 250); err != nil {
		t.Fatal(err)
	}
	clk.Advance(500 * time.Millisecond)
	for range 6 {
		if err := draw(a, PoolOrder, 1); err != nil {
			t.Fatal(err)
		}
	}
	a.Ban(90 * time.Second)
	// Through JSON, as the daemon stores it.
	raw, err := json.Marshal(a.State())
	if err != nil {
		t.Fatal(err)
	}
	var st BudgetState
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second) // t0+5.5 s: the order draws left their window
	b, err := NewBudget(clk, BudgetFailFast, 0, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(st); err != nil {
		t.Fatal(err)
	}
	if got, want := b.BannedUntil(), t0.Add(4500*time.Millisecond+90*time.Second); !got.Equal(want) {
		t.Fatalf("banned until %s, want %s", got, want)
	}
	used := map[Pool]int{}
	for _, u := range b.Usage() {
		used[u.Pool] = u.Used
	}
	if used[PoolUID] != 450 || used[PoolOrder] != 0 {
		t.Fatalf("restored use %v, want UID 450 and order 0", used)
	}
	// Without the ban: 50 more fit now; 51 wait until the 200 of t0
	// leave the window (t0+10 s).
	c, err := NewBudget(clk, BudgetFailFast, 0, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Restore(BudgetState{Pools: st.Pools}); err != nil {
		t.Fatal(err)
	}
	if w := c.Peek(EpMyTrades); w != 0 {
		t.Fatalf("a 10-weight request waits %s with 50 free", w)
	}
	var rl *RateLimitError
	if err := draw(c, PoolUID, 51); !errors.As(err, &rl) || rl.RetryAfter != 4500*time.Millisecond {
		t.Fatalf("51 more: %v, want a wait of 4.5s", err)
	}
	if err := c.Restore(BudgetState{Pools: []PoolState{{Pool: "nope"}}}); err == nil || err.Error() != `exchange: budget state: unknown pool "nope"` {
		t.Fatalf("unknown pool: %v", err)
	}
}

// SaturateAll leaves no room in any pool for one window.
func TestBudgetSaturateAll(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1700000000, 0)
	clk := newFakeClock(t0)
	b, err := NewBudget(clk, BudgetFailFast, 100*time.Millisecond, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	b.SaturateAll()
	for _, tc := range []struct {
		ep   EndpointID
		wait time.Duration
	}{{EpTime, 10100 * time.Millisecond}, {EpQueryOrder, 10100 * time.Millisecond}, {EpNewOrder, 10100 * time.Millisecond}, {EpAccount, 10100 * time.Millisecond}} {
		if w := b.Peek(tc.ep); w != tc.wait {
			t.Errorf("%s waits %s, want %s", tc.ep, w, tc.wait)
		}
	}
	clk.Advance(1100 * time.Millisecond)
	if w := b.Peek(EpNewOrder); w != 9*time.Second {
		t.Errorf("new order waits %s after 1.1 s, want 9s (the UID pool)", w)
	}
}
