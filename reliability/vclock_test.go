package reliability

import (
	"sync"
	"testing"
	"time"
)

// vclock is a virtual clock shared by a fixed set of worker goroutines, the
// client and the server. Time stands still while any worker runs, so a
// request arrives at the server at exactly the instant its budget was
// drawn; when every live worker waits in After, the clock jumps to the
// earliest deadline and wakes the workers due. A burst of many simulated
// windows thus runs as fast as the HTTP round trips allow, and the
// server's log is free of scheduler jitter.
type vclock struct {
	mu       sync.Mutex
	now      time.Time
	live     int
	sleepers []sleeper
	jumps    int
}

type sleeper struct {
	at time.Time
	ch chan time.Time
}

func newVClock(start time.Time, workers int) *vclock {
	return &vclock{now: start, live: workers}
}

// Now returns the virtual time.
func (c *vclock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After parks the calling worker until the clock reaches now+d.
func (c *vclock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.sleepers = append(c.sleepers, sleeper{at: c.now.Add(d), ch: ch})
	c.advance()
	return ch
}

// Done retires a worker: the clock no longer waits for it.
func (c *vclock) Done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live--
	c.advance()
}

// advance jumps to the earliest deadline once every live worker sleeps.
func (c *vclock) advance() {
	for len(c.sleepers) > 0 && len(c.sleepers) >= c.live {
		next := c.sleepers[0].at
		for _, s := range c.sleepers[1:] {
			if s.at.Before(next) {
				next = s.at
			}
		}
		if next.After(c.now) {
			c.now = next
			c.jumps++
		}
		kept := c.sleepers[:0]
		for _, s := range c.sleepers {
			if s.at.After(c.now) {
				kept = append(kept, s)
				continue
			}
			s.ch <- c.now
		}
		c.sleepers = kept
	}
}

func TestVClockWakesOnlyWhenAllWorkersWait(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1700000000, 0)
	c := newVClock(t0, 2)
	a := c.After(3 * time.Second)
	select {
	case <-a:
		t.Fatal("woke while the other worker still runs")
	default:
	}
	if !c.Now().Equal(t0) {
		t.Fatalf("clock moved to %s with a worker running", c.Now())
	}
	b := c.After(time.Second)
	if got := <-b; !got.Equal(t0.Add(time.Second)) {
		t.Fatalf("second worker woke at %s, want t0+1s", got)
	}
	select {
	case <-a:
		t.Fatal("first worker woke before its deadline")
	default:
	}
	c.Done() // the second worker finishes: the first is the only one left
	if got := <-a; !got.Equal(t0.Add(3 * time.Second)) {
		t.Fatalf("first worker woke at %s, want t0+3s", got)
	}
	if c.jumps != 2 {
		t.Fatalf("%d jumps, want 2", c.jumps)
	}
}
