package exchange

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Limit is one rate budget: at most Max units drawn in any window of length
// Window.
type Limit struct {
	Pool   Pool
	Max    int
	Window time.Duration
}

// DefaultLimits returns the spec's budgets (section 8).
func DefaultLimits() []Limit {
	return []Limit{
		{PoolIP, 300, 10 * time.Second},
		{PoolUID, 500, 10 * time.Second},
		{PoolOrder, 12, time.Second},
		{PoolBatch, 2, time.Second},
		{PoolAccount, 2, time.Second},
	}
}

// BudgetMode says what a call does when its budget is exhausted.
type BudgetMode uint8

const (
	// BudgetWait blocks until the budget allows the call or the context ends.
	BudgetWait BudgetMode = iota
	// BudgetFailFast returns a local *RateLimitError at once.
	BudgetFailFast
)

// Budget enforces rate limits on the client side. It keeps a log of draws
// per pool and admits a request only if, counting it, no window of the
// pool's length holds more than the pool's maximum. This holds the limit in
// every window, not on average: a token bucket refilling at Max/Window could
// spend twice the budget inside one window.
//
// A Budget also carries the server's verdict: after a 429 or 418 every caller
// waits until Retry-After has passed.
type Budget struct {
	clock  Clock
	mode   BudgetMode
	margin time.Duration

	mu      sync.Mutex
	windows [numPools]*window
	blocked time.Time // no request before this instant (server Retry-After)
	banned  time.Time // end of the server's 418 ban (also in blocked)
	waited  time.Duration
}

// window is a sliding-window log of draws for one pool, kept in a ring.
type window struct {
	limit Limit
	at    []int64 // unix nanoseconds of each draw, oldest first from head
	n     []int32
	head  int
	count int
	used  int
}

// NewBudget returns a budget over the given limits. margin widens every
// window to absorb differences in network latency between requests, so that
// the server, which counts arrivals, never sees more than the limit.
func NewBudget(clock Clock, mode BudgetMode, margin time.Duration, limits []Limit) (*Budget, error) {
	if clock == nil {
		return nil, fmt.Errorf("exchange: budget: nil clock")
	}
	if margin < 0 {
		return nil, fmt.Errorf("exchange: budget: negative margin %s", margin)
	}
	b := &Budget{clock: clock, mode: mode, margin: margin}
	for _, l := range limits {
		if l.Pool <= 0 || int(l.Pool) >= numPools {
			return nil, fmt.Errorf("exchange: budget: unknown pool %d", l.Pool)
		}
		if l.Max <= 0 || l.Window <= 0 {
			return nil, fmt.Errorf("exchange: budget: pool %s: max and window must be positive", l.Pool)
		}
		b.windows[l.Pool] = &window{limit: l, at: make([]int64, l.Max), n: make([]int32, l.Max)}
	}
	return b, nil
}

// expire drops draws that left the window ending at now.
func (w *window) expire(now int64, span int64) {
	for w.count > 0 && w.at[w.head] <= now-span {
		w.used -= int(w.n[w.head])
		w.head = (w.head + 1) % len(w.at)
		w.count--
	}
}

// wait returns how long until amount more fits, 0 if it fits now. Amounts
// are at least 1 and at most Max, so the ring (Max slots) never overflows.
func (w *window) wait(now int64, span int64, amount int) int64 {
	excess := w.used + amount - w.limit.Max
	if excess <= 0 {
		return 0
	}
	for i := 0; i < w.count; i++ {
		j := (w.head + i) % len(w.at)
		excess -= int(w.n[j])
		if excess <= 0 {
			return w.at[j] + span - now
		}
	}
	return span
}

func (w *window) record(now int64, amount int) {
	j := (w.head + w.count) % len(w.at)
	w.at[j] = now
	w.n[j] = int32(amount)
	w.count++
	w.used += amount
}

// Acquire takes draws from their pools, waiting (or failing, by mode) until
// they fit. Pools the budget has no limit for are free.
func (b *Budget) Acquire(ctx context.Context, ep EndpointID, draws []Draw) error {
	for {
		wait, pool, err := b.try(ep, draws)
		if err != nil || wait == 0 {
			return err
		}
		if b.mode == BudgetFailFast {
			return &RateLimitError{Endpoint: ep.String(), RetryAfter: wait, Local: true, Pool: pool}
		}
		start := b.clock.Now()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-b.clock.After(wait):
		}
		b.mu.Lock()
		b.waited += b.clock.Now().Sub(start)
		b.mu.Unlock()
	}
}

func (b *Budget) try(ep EndpointID, draws []Draw) (time.Duration, Pool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if now.Before(b.blocked) {
		return b.blocked.Sub(now), 0, nil
	}
	ns := now.UnixNano()
	var longest int64
	var pool Pool
	for _, d := range draws {
		w := b.windows[d.Pool]
		if w == nil || d.Amount <= 0 {
			continue
		}
		if d.Amount > w.limit.Max {
			return 0, 0, fmt.Errorf("exchange: %s: draw of %d exceeds the %s budget of %d", ep, d.Amount, d.Pool, w.limit.Max)
		}
		span := int64(w.limit.Window + b.margin)
		w.expire(ns, span)
		if t := w.wait(ns, span, d.Amount); t > longest {
			longest, pool = t, d.Pool
		}
	}
	if longest > 0 {
		return time.Duration(longest), pool, nil
	}
	for _, d := range draws {
		if w := b.windows[d.Pool]; w != nil && d.Amount > 0 {
			w.record(ns, d.Amount)
		}
	}
	return 0, 0, nil
}

// Block stops every caller until d has passed (a server's Retry-After).
func (b *Budget) Block(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if until := b.clock.Now().Add(d); until.After(b.blocked) {
		b.blocked = until
	}
}

// Ban stops every caller until d has passed, as Block does, and records
// the pause as a ban (HTTP 418), which BannedUntil reports: a caller can
// refuse new work for its length rather than wait.
func (b *Budget) Ban(d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	until := b.clock.Now().Add(d)
	if until.After(b.blocked) {
		b.blocked = until
	}
	if until.After(b.banned) {
		b.banned = until
	}
}

// BannedUntil returns the end of the server's current ban, or the zero
// time when the address is not banned.
func (b *Budget) BannedUntil() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.clock.Now().Before(b.banned) {
		return b.banned
	}
	return time.Time{}
}

// Saturate marks the pools of draws as spent for one window from now, as
// after a server 429: the server's count is the truth (this process before
// a restart, or another one behind the same address, drew from the same
// budget), so waiting out Retry-After and then pacing by the local count
// would overrun again, and repeated overruns earn a ban.
func (b *Budget) Saturate(draws []Draw) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ns := b.clock.Now().UnixNano()
	for _, d := range draws {
		w := b.windows[d.Pool]
		if w == nil || d.Amount <= 0 {
			continue
		}
		w.expire(ns, int64(w.limit.Window+b.margin))
		// Every draw is at least 1, so while used < Max the ring has a
		// free slot for this one.
		if room := w.limit.Max - w.used; room > 0 {
			w.record(ns, room)
		}
	}
}

// BlockedUntil returns the end of the current server-imposed pause, or the
// zero time.
func (b *Budget) BlockedUntil() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.clock.Now().Before(b.blocked) {
		return b.blocked
	}
	return time.Time{}
}

// Usage is the state of one pool.
type Usage struct {
	Pool   Pool
	Used   int
	Max    int
	Window time.Duration
}

// Usage reports how much of each limited pool is in use now.
func (b *Budget) Usage() []Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	ns := b.clock.Now().UnixNano()
	var out []Usage
	for _, w := range b.windows {
		if w == nil {
			continue
		}
		w.expire(ns, int64(w.limit.Window+b.margin))
		out = append(out, Usage{Pool: w.limit.Pool, Used: w.used, Max: w.limit.Max, Window: w.limit.Window})
	}
	return out
}

// Waited returns the total time callers spent waiting on this budget.
func (b *Budget) Waited() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waited
}
