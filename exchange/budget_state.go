package exchange

import (
	"fmt"
	"sort"
	"time"
)

// draw is one draw of a pool at a time (Unix nanoseconds).
type draw struct {
	at int64
	n  int32
}

// BudgetState is what a Budget knows that the server also counts: the
// draws still inside each pool's window and the server's pause. A process
// saves it as it stops and the next one restores it (Budget.Restore), so a
// restart does not start from an empty count while the server's windows
// still hold the previous process's requests.
type BudgetState struct {
	// Pools are the draws of each limited pool, oldest first.
	Pools []PoolState `json:"pools"`
	// Blocked is the end of the server's Retry-After pause (429 or 418),
	// zero when none; Banned the end of a 418 ban, zero when none.
	Blocked time.Time `json:"blocked,omitzero"`
	Banned  time.Time `json:"banned,omitzero"`
}

// PoolState is one pool's draws: At[i] (Unix nanoseconds) drew N[i].
type PoolState struct {
	Pool string  `json:"pool"`
	At   []int64 `json:"at"`
	N    []int32 `json:"n"`
}

// State returns the draws still inside each pool's window and the server's
// pause, for Restore in a later process.
func (b *Budget) State() BudgetState {
	b.mu.Lock()
	defer b.mu.Unlock()
	ns := b.clock.Now().UnixNano()
	s := BudgetState{Blocked: b.blocked, Banned: b.banned}
	for _, w := range b.windows {
		if w == nil {
			continue
		}
		w.expire(ns, int64(w.limit.Window+b.margin))
		p := PoolState{Pool: w.limit.Pool.String(), At: make([]int64, 0, w.count), N: make([]int32, 0, w.count)}
		for i := 0; i < w.count; i++ {
			j := (w.head + i) % len(w.at)
			p.At, p.N = append(p.At, w.at[j]), append(p.N, w.n[j])
		}
		s.Pools = append(s.Pools, p)
	}
	return s
}

// Restore adds the draws of s that are still inside their pool's window
// (and the server's pause, if it has not ended) to the budget, as if this
// process had made them. Pools the budget does not limit are ignored; a
// pool's draws beyond its limit (another budget's larger limit) are capped
// to the limit, the newest kept.
func (b *Budget) Restore(s BudgetState) error {
	byName := map[string]Pool{}
	for _, p := range Pools() {
		byName[p.String()] = p
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	ns := now.UnixNano()
	for _, ps := range s.Pools {
		p, ok := byName[ps.Pool]
		if !ok {
			return fmt.Errorf("exchange: budget state: unknown pool %q", ps.Pool)
		}
		if len(ps.At) != len(ps.N) {
			return fmt.Errorf("exchange: budget state: pool %s: %d times, %d amounts", ps.Pool, len(ps.At), len(ps.N))
		}
		w := b.windows[p]
		if w == nil {
			continue
		}
		span := int64(w.limit.Window + b.margin)
		w.expire(ns, span)
		// Keep the newest draws that fit the limit beside what this
		// process drew already (nothing, at start).
		var kept []draw
		room := w.limit.Max - w.used
		for i := len(ps.At) - 1; i >= 0 && room > 0; i-- {
			if ps.At[i] <= ns-span || ps.At[i] > ns {
				continue
			}
			if ps.N[i] <= 0 {
				return fmt.Errorf("exchange: budget state: pool %s: draw of %d", ps.Pool, ps.N[i])
			}
			n := min(int(ps.N[i]), room)
			room -= n
			kept = append(kept, draw{ps.At[i], int32(n)})
		}
		if len(kept) == 0 {
			continue
		}
		for i := 0; i < w.count; i++ {
			j := (w.head + i) % len(w.at)
			kept = append(kept, draw{w.at[j], w.n[j]})
		}
		// The ring is kept in time order.
		sort.SliceStable(kept, func(i, j int) bool { return kept[i].at < kept[j].at })
		w.head, w.count, w.used = 0, 0, 0
		for _, d := range kept {
			w.record(d.at, int(d.n))
		}
	}
	if now.Before(s.Blocked) && s.Blocked.After(b.blocked) {
		b.blocked = s.Blocked
	}
	if now.Before(s.Banned) && s.Banned.After(b.banned) {
		b.banned = s.Banned
	}
	return nil
}

// SaturateAll marks every pool as spent for one window from now: what a
// process must assume at start when an earlier one may have been sending
// until a moment ago and left no count (it was killed), since the server's
// windows may still be full of its requests.
func (b *Budget) SaturateAll() {
	var draws []Draw
	for _, p := range Pools() {
		draws = append(draws, Draw{p, 1})
	}
	b.Saturate(draws)
}
