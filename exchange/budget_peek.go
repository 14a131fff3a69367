package exchange

import (
	"context"
	"time"
)

// Peek returns how long a request to ep would have to wait for its budget
// now, without drawing from it: 0 means it would be admitted at once. The
// risk gate uses it to decide before the order reaches the port, which then
// draws when it sends.
func (b *Budget) Peek(ep EndpointID) time.Duration {
	e := endpoint(ep)
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if now.Before(b.blocked) {
		return b.blocked.Sub(now)
	}
	ns := now.UnixNano()
	var longest int64
	for _, d := range e.Draws {
		w := b.windows[d.Pool]
		if w == nil || d.Amount <= 0 {
			continue
		}
		span := int64(w.limit.Window + b.margin)
		w.expire(ns, span)
		if t := w.wait(ns, span, d.Amount); t > longest {
			longest = t
		}
	}
	return time.Duration(longest)
}

// Sleep waits d on the budget's clock, or until ctx ends, and counts the
// time as waiting on the budget.
func (b *Budget) Sleep(ctx context.Context, d time.Duration) error {
	start := b.clock.Now()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-b.clock.After(d):
	}
	b.mu.Lock()
	b.waited += b.clock.Now().Sub(start)
	b.mu.Unlock()
	return nil
}
