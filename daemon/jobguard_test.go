package daemon

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestJobGuard(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "bot.db")
	g := NewJobGuard(store)
	release, err := g.Acquire("dust", "bot run")
	if err != nil {
		t.Fatal(err)
	}
	// The same job again, here: refused.
	_, err = g.Acquire("dust", "bot jobs run")
	if !errors.Is(err, ErrJobRunning) || err.Error() != "job dust: a run of this job is already in progress in this process" {
		t.Errorf("second acquire: %v", err)
	}
	// Another guard over the same store (another process, as far as the
	// lock file can tell): refused, naming the holder.
	other := NewJobGuard(store)
	lock := store + ".locks/dust.lock"
	want := fmt.Sprintf("job dust: a run of this job is already in progress (bot run, pid %d; lock %s)", os.Getpid(), lock)
	if _, err := other.Acquire("dust", "bot jobs run"); !errors.Is(err, ErrJobRunning) || err.Error() != want {
		t.Errorf("other guard: %v\nwant %s", err, want)
	}
	// Another job is independent.
	relRebal, err := other.Acquire("rebal", "bot jobs run")
	if err != nil {
		t.Fatalf("other job: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil { // idempotent
		t.Fatal(err)
	}
	rel2, err := other.Acquire("dust", "bot jobs run")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	if err := rel2(); err != nil {
		t.Fatal(err)
	}
	if err := relRebal(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Dir(lock)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("lock folder: %v %v", st.Mode(), err)
	}
	for _, bad := range []string{"", "..", "a/b"} {
		if _, err := g.Acquire(bad, "x"); err == nil || err.Error() != fmt.Sprintf("job guard: %q is not a job name", bad) {
			t.Errorf("Acquire(%q): %v", bad, err)
		}
	}
}

// Of many concurrent attempts at one job, exactly one wins.
func TestJobGuardConcurrent(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "bot.db")
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, busy := 0, 0
	var releases []func() error
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := NewJobGuard(store) // separate guards: only the file lock decides
			rel, err := g.Acquire("dca", "worker "+strconv.Itoa(i))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
				releases = append(releases, rel)
			case errors.Is(err, ErrJobRunning):
				busy++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 || busy != 15 {
		t.Errorf("wins %d busy %d", wins, busy)
	}
	for _, r := range releases {
		if err := r(); err != nil {
			t.Error(err)
		}
	}
}

// A lock held by another process refuses the job; the lock is gone when
// that process exits, without any clean-up.
func TestJobGuardAcrossProcesses(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "bot.db")
	// The child holds the lock until its stdin closes.
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestJobGuardChild$")
	cmd.Env = append(os.Environ(), "SPOTBOT_JOBGUARD_STORE="+store)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := stdout.Read(buf); err != nil || string(buf) != "locked" {
		t.Fatalf("child: %q %v", buf, err)
	}
	g := NewJobGuard(store)
	_, err = g.Acquire("dust", "bot jobs run")
	want := fmt.Sprintf("job dust: a run of this job is already in progress (child, pid %d; lock %s.locks/dust.lock)", cmd.Process.Pid, store)
	if !errors.Is(err, ErrJobRunning) || err.Error() != want {
		t.Errorf("while the child holds it: %v\nwant %s", err, want)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	rel, err := g.Acquire("dust", "bot jobs run")
	if err != nil {
		t.Fatalf("after the child exited: %v", err)
	}
	if err := rel(); err != nil {
		t.Fatal(err)
	}
}

// TestJobGuardChild is the other process of TestJobGuardAcrossProcesses.
func TestJobGuardChild(t *testing.T) {
	store := os.Getenv("SPOTBOT_JOBGUARD_STORE")
	if store == "" {
		t.Skip("run by TestJobGuardAcrossProcesses")
	}
	if _, err := NewJobGuard(store).Acquire("dust", "child"); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked")
	// Hold the lock until the parent closes stdin; exit without releasing.
	_, _ = os.Stdin.Read(make([]byte, 1))
}

func TestJobGuardAcquireAll(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "bot.db")
	busy, err := NewJobGuard(store).Acquire("dca", "bot jobs run")
	if err != nil {
		t.Fatal(err)
	}
	g := NewJobGuard(store)
	_, err = g.AcquireAll([]string{"dust", "dca", "rebal"}, "bot run")
	if !errors.Is(err, ErrJobRunning) || !strings.HasPrefix(err.Error(), "job dca: a run of this job is already in progress (bot jobs run, pid ") {
		t.Fatalf("err %v", err)
	}
	// Nothing stays taken after a failure: dust is free again.
	rel, err := NewJobGuard(store).Acquire("dust", "x")
	if err != nil {
		t.Fatalf("dust after the failed AcquireAll: %v", err)
	}
	if err := rel(); err != nil {
		t.Fatal(err)
	}
	if err := busy(); err != nil {
		t.Fatal(err)
	}
	all, err := g.AcquireAll([]string{"dust", "dca", "rebal"}, "bot run")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewJobGuard(store).Acquire("rebal", "bot jobs run"); !errors.Is(err, ErrJobRunning) {
		t.Errorf("rebal while held: %v", err)
	}
	if err := all(); err != nil {
		t.Fatal(err)
	}
	rel, err = NewJobGuard(store).Acquire("rebal", "bot jobs run")
	if err != nil {
		t.Fatalf("rebal after release: %v", err)
	}
	if err := rel(); err != nil {
		t.Fatal(err)
	}
}
