package app

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spotbot/spotbot/distributed"
	"github.com/spotbot/spotbot/distributed/natstest"
)

// stepClock advances by step at every reading.
type stepClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

func (c *stepClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// TestQueueProgressLines: plain lines, at most one per five seconds of
// the clock, none in the first five.
func TestQueueProgressLines(t *testing.T) {
	var out bytes.Buffer
	c := &stepClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), step: 2 * time.Second}
	p := newQueueProgress(&out, "sweep job abc", c) // t=2s
	for i := 1; i <= 6; i++ {                       // readings at 4, 6, 8, 10, 12, 14 s
		p.update(distributed.Progress{UnitsDone: i, Units: 6, RunsDone: 8 * i, Runs: 48})
	}
	want := "sweep job abc: 3/6 units, 24/48 runs, 6s elapsed\nsweep job abc: 6/6 units, 48/48 runs, 12s elapsed\n"
	if out.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", out.String(), want)
	}
}

// TestDistributedWalkForwardLogsProgress: with stderr not a terminal, the
// coordinator logs plain progress lines counting every unit, the
// windows' runs included.
func TestDistributedWalkForwardLogsProgress(t *testing.T) {
	url := natstest.Server(t)
	runWorkers(t, url, 2)
	var out, errOut bytes.Buffer
	c := &stepClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), step: time.Second}
	code := Execute(t.Context(), newBacktest("backtest", testDeps(nil, c, nil)), []string{"walkforward", "--param", "fast=5,10",
		"--param", "slow=30,50", "--train", "60d", "--test", "30d", "--no-store", "--out", t.TempDir(), "--queue", url, "--job", "wfprog", "--unit-size", "2"}, &out, &errOut)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	line := regexp.MustCompile(`^walkforward job wfprog: (\d+)/(\d+) units, (\d+)/(\d+) runs, \d+s elapsed$`)
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n") {
		if !strings.HasPrefix(l, "walkforward job wfprog: ") {
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("progress line %q", l)
		}
		n++
	}
	if n == 0 || strings.Contains(errOut.String(), "\r") {
		t.Fatalf("%d progress lines in\n%q", n, errOut.String())
	}
}
