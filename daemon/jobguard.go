package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// ErrJobRunning says a run of the job is already in progress.
var ErrJobRunning = errors.New("a run of this job is already in progress")

// JobGuard prevents overlapping runs of one job: within a process, and
// across the processes that share a store (the bot and `bot jobs run`),
// through a lock file per job in a folder beside the store. The operating
// system drops a process's locks when it exits, so a crash leaves no stale
// lock (on systems without flock, a crash leaves the file, which the error
// names). A JobGuard is safe for concurrent use.
type JobGuard struct {
	dir  string
	mu   sync.Mutex
	held map[string]bool
}

// NewJobGuard returns the guard of the store at storePath; its lock files
// live in storePath + ".locks".
func NewJobGuard(storePath string) *JobGuard {
	return &JobGuard{dir: storePath + ".locks", held: map[string]bool{}}
}

// Acquire marks job as running by holder (a short text such as "bot run"
// or "bot jobs run", shown to whoever finds the job busy) and returns the
// function that ends the run. A job already running here or in another
// process gives an error wrapping ErrJobRunning that names its holder.
func (g *JobGuard) Acquire(job, holder string) (release func() error, err error) {
	if job == "" || strings.ContainsAny(job, `/\`) || job == "." || job == ".." {
		return nil, fmt.Errorf("job guard: %q is not a job name", job)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held[job] {
		return nil, fmt.Errorf("job %s: %w in this process", job, ErrJobRunning)
	}
	if err := os.MkdirAll(g.dir, 0o700); err != nil {
		return nil, fmt.Errorf("job guard: %w", err)
	}
	path := filepath.Join(g.dir, job+".lock")
	f, err := lockFile(path)
	if errors.Is(err, errLocked) {
		who, _ := os.ReadFile(path)
		if s := strings.TrimSpace(string(who)); s != "" {
			return nil, fmt.Errorf("job %s: %w (%s; lock %s)", job, ErrJobRunning, s, path)
		}
		return nil, fmt.Errorf("job %s: %w (lock %s)", job, ErrJobRunning, path)
	}
	if err != nil {
		return nil, fmt.Errorf("job guard: %w", err)
	}
	// Who holds the lock is for the error above; a failed write only
	// makes that message shorter.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(holder+", pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	g.held[job] = true
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			g.mu.Lock()
			delete(g.held, job)
			g.mu.Unlock()
			err = unlockFile(f, path)
		})
		return err
	}, nil
}

// AcquireAll acquires every job for holder, or none: the first busy job's
// error is returned after releasing those already taken. A long-running
// bot holds the jobs of its scheduled instances this way for as long as
// it runs, so `bot jobs run` of one of them is refused meanwhile.
func (g *JobGuard) AcquireAll(jobs []string, holder string) (release func() error, err error) {
	var rels []func() error
	releaseAll := func() error {
		var errs []error
		for i := len(rels) - 1; i >= 0; i-- {
			errs = append(errs, rels[i]())
		}
		return errors.Join(errs...)
	}
	for _, j := range jobs {
		rel, err := g.Acquire(j, holder)
		if err != nil {
			return nil, errors.Join(err, releaseAll())
		}
		rels = append(rels, rel)
	}
	return releaseAll, nil
}
