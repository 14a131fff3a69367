package daemon

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// simTimeHandler stamps each log record with a simulated clock's time in
// place of the wall clock's: a paper-replay's log then says when, in the
// replayed market, each thing happened.
type simTimeHandler struct {
	h   slog.Handler
	now func() time.Time
}

func (s simTimeHandler) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s simTimeHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Time = s.now()
	return s.h.Handle(ctx, r)
}

func (s simTimeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return simTimeHandler{h: s.h.WithAttrs(attrs), now: s.now}
}

func (s simTimeHandler) WithGroup(name string) slog.Handler {
	return simTimeHandler{h: s.h.WithGroup(name), now: s.now}
}

// sharedClock is paper-replay's simulated clock, safe for concurrent use:
// the loop sets it, and logs written from any goroutine read it.
type sharedClock struct {
	mu sync.Mutex
	t  time.Time
}

func newSharedClock(t time.Time) *sharedClock { return &sharedClock{t: t} }

// Now implements strategy.Clock.
func (c *sharedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock.
func (c *sharedClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}
