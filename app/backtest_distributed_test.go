package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spotbot/spotbot/distributed"
	"github.com/spotbot/spotbot/distributed/natstest"
	"github.com/spotbot/spotbot/strategies"
)

// runWorkers starts n "backtest worker" commands against url; they stop
// when the test ends.
func runWorkers(t *testing.T, url string, n int) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { stop(); wg.Wait() })
	for i := range n {
		wg.Go(func() {
			var out, errOut bytes.Buffer
			code := Execute(ctx, Backtest(strategies.NewRegistry()), []string{"worker", "--queue", url, "--concurrency", "1",
				"--ack-wait", "2s", "--name", "w" + string(rune('0'+i))}, &out, &errOut)
			if code != ExitOK {
				t.Errorf("worker %d: exit %d: %s", i, code, errOut.String())
			}
		})
	}
}

// TestDistributedSweepMatchesLocal: a sweep with --queue, its coordinator
// stopped once a unit is done and continued with "sweep attach", writes
// the same --output file, byte for byte, and the same table as the sweep
// on this machine.
func TestDistributedSweepMatchesLocal(t *testing.T) {
	dir := t.TempDir()
	url := natstest.Server(t)
	sweep := []string{"sweep", "--param", "fast=3:12:1", "--param", "slow=30,50,80,100", "--no-store", "--top", "0", "--out", t.TempDir()}
	local := filepath.Join(dir, "local.json")
	localOut, errOut, code := runBacktest(t, append(sweep, "--output", local)...)
	if code != ExitOK {
		t.Fatalf("local sweep: exit %d: %s", code, errOut)
	}

	dist := filepath.Join(dir, "dist.json")
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan int)
	var firstErr bytes.Buffer
	go func() {
		var out bytes.Buffer
		done <- Execute(ctx, Backtest(strategies.NewRegistry()), append(sweep, "--output", dist, "--queue", url, "--job", "apptest",
			"--unit-size", "2"), &out, &firstErr)
	}()
	runWorkers(t, url, 2)
	q, err := distributed.Connect(t.Context(), distributed.ConnOptions{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n, err := q.Finished(t.Context(), "apptest")
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no unit finished")
		}
	}
	stop()
	if code := <-done; code != ExitOK {
		t.Fatalf("interrupted coordinator: exit %d: %s", code, firstErr.String())
	}
	if _, err := os.Stat(dist); err == nil {
		t.Skip("the sweep finished before its coordinator was stopped; nothing left to attach to")
	}
	distOut, errOut, code := runBacktest(t, "sweep", "attach", "apptest", "--queue", url)
	if code != ExitOK {
		t.Fatalf("attach: exit %d: %s", code, errOut)
	}
	a, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dist)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("%s differs from the local sweep's file:\n%s\nwant\n%s", dist, b, a)
	}
	if lt, dt := table(localOut), table(distOut); lt != dt || !strings.Contains(lt, "fast=3 slow=30") {
		t.Fatalf("tables differ:\n%s\nwant\n%s", dt, lt)
	}
	if !strings.Contains(firstErr.String(), "sweep job apptest queued on "+url) ||
		!strings.Contains(errOut, "sweep job apptest resumed on "+url) {
		t.Fatalf("coordinator messages:\n%s\n%s", firstErr.String(), errOut)
	}
}

// table is a sweep's output up to the line counting the runs (which
// says how long they took).
func table(out string) string {
	i := strings.Index(out, "\n40 runs in")
	if i < 0 {
		return out
	}
	return out[:i]
}

// TestDistributedWalkForwardMatchesLocal: walk-forward with --queue
// prints what it prints on this machine.
func TestDistributedWalkForwardMatchesLocal(t *testing.T) {
	url := natstest.Server(t)
	wf := []string{"walkforward", "--param", "fast=5,10", "--param", "slow=30,50", "--train", "60d", "--test", "30d", "--no-store", "--out", t.TempDir()}
	localOut, errOut, code := runBacktest(t, wf...)
	if code != ExitOK {
		t.Fatalf("local walkforward: exit %d: %s", code, errOut)
	}
	runWorkers(t, url, 2)
	distOut, errOut, code := runBacktest(t, append(wf, "--queue", url, "--job", "wftest", "--unit-size", "2")...)
	if code != ExitOK {
		t.Fatalf("distributed walkforward: exit %d: %s", code, errOut)
	}
	if distOut != localOut || !strings.Contains(localOut, "out of sample, chained") {
		t.Fatalf("distributed:\n%s\nlocal:\n%s", distOut, localOut)
	}
	// Attached again, the job's command (durations included) runs from
	// the stored results alone.
	againOut, errOut, code := runBacktest(t, "walkforward", "attach", "wftest", "--queue", url)
	if code != ExitOK || againOut != localOut || !strings.Contains(errOut, "walkforward job wftest resumed") {
		t.Fatalf("attach: exit %d, %s\n%s", code, errOut, againOut)
	}
	if _, errOut, code := runBacktest(t, "sweep", "attach", "wftest", "--queue", url); code != ExitUsage ||
		!strings.Contains(errOut, "job wftest is a walkforward; use walkforward attach") {
		t.Fatalf("sweep attach of a walk-forward: exit %d, %s", code, errOut)
	}
	if _, errOut, code := runBacktest(t, "sweep", "attach", "nosuchjob", "--queue", url); code != ExitError ||
		!strings.Contains(errOut, "job nosuchjob: no such job in spotbot-jobs") {
		t.Fatalf("attach of an unknown job: exit %d, %s", code, errOut)
	}
}

// TestQueueUsageErrors: bad queue flags are usage errors naming the flag.
func TestQueueUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--param", "fast=5,10", "--queue", "http://x:1", "--no-store"}, `scheme "http", want nats or tls`},
		{[]string{"sweep", "--param", "fast=5,10", "--queue", "nats://127.0.0.1:1", "--shard", "0/2", "--no-store"}, "--shard and --queue do not mix"},
		{[]string{"sweep", "--param", "fast=5,10", "--queue", "nats://127.0.0.1:1", "--job", "a.b", "--no-store"}, `--job: job id "a.b"`},
		{[]string{"sweep", "--param", "fast=5,10", "--queue", "nats://127.0.0.1:1", "--unit-size", "0", "--no-store"}, "--unit-size 0"},
		{[]string{"worker"}, "--queue is required"},
		{[]string{"sweep", "attach", "x"}, "--queue is required"},
	} {
		_, errOut, code := runBacktest(t, tc.args...)
		if code == ExitOK || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}
