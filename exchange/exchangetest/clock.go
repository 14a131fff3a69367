package exchangetest

import (
	"sync"
	"time"
)

// StepClock is an exchange.Clock for tests that stands still until waited
// on: After moves it forward by d at once, calls OnStep when set, and fires.
// A loop that waits on it runs as fast as it can, in its own time.
type StepClock struct {
	mu sync.Mutex
	t  time.Time
	// OnStep, when set, sees the new time after each After (outside the
	// clock's lock: it may read the clock).
	OnStep func(now time.Time)
}

// NewStepClock returns a StepClock at t.
func NewStepClock(t time.Time) *StepClock { return &StepClock{t: t} }

// Now returns the clock's time.
func (c *StepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *StepClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// After moves the clock forward by d and returns a channel that already
// holds the new time.
func (c *StepClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.t = c.t.Add(d)
	now := c.t
	c.mu.Unlock()
	if c.OnStep != nil {
		c.OnStep(now)
	}
	ch := make(chan time.Time, 1)
	ch <- now
	return ch
}
