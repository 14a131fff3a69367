package exchangetest

import (
	"testing"
	"time"
)

func TestStepClock(t *testing.T) {
	c := NewStepClock(T0)
	var seen []time.Time
	c.OnStep = func(now time.Time) { seen = append(seen, now) }
	if got := <-c.After(time.Minute); !got.Equal(T0.Add(time.Minute)) {
		t.Fatalf("After fired %v", got)
	}
	if !c.Now().Equal(T0.Add(time.Minute)) || len(seen) != 1 || !seen[0].Equal(T0.Add(time.Minute)) {
		t.Fatalf("now %v, steps %v", c.Now(), seen)
	}
	c.Set(T0)
	if !c.Now().Equal(T0) {
		t.Fatalf("after Set: %v", c.Now())
	}
}
