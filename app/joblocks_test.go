package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies"
)

func TestHoldJobLocks(t *testing.T) {
	t.Parallel()
	text, err := configs.FS.ReadFile("jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "jobs.db")
	reg := strategies.NewRegistry()
	cfg, err := config.Load(text, nil, map[string]any{"store.path": db}, reg)
	if err != nil {
		t.Fatal(err)
	}
	release, err := holdJobLocks(cfg, reg, "bot run")
	if err != nil {
		t.Fatal(err)
	}
	// Every scheduled instance is held: a manual run of each is refused.
	for _, job := range []string{"dust", "rebal", "btc-dca"} {
		var out, errOut bytes.Buffer
		err := jobsArgs(t.Context(), []string{"run", job, "--config", "../configs/jobs.yaml"}, &out, &errOut,
			[]string{"SPOTBOT_STORE__PATH=" + db}, exchange.SystemClock{})
		want := fmt.Sprintf("jobs run: job %s: a run of this job is already in progress (bot run, pid %d; lock %s.locks/%s.lock)", job, os.Getpid(), db, job)
		if !errors.Is(err, daemon.ErrJobRunning) || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", job, err, want)
		}
	}
	// A second bot on the same store cannot start its jobs either.
	if _, err := holdJobLocks(cfg, reg, "bot run"); !errors.Is(err, daemon.ErrJobRunning) {
		t.Errorf("second bot: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	again, err := holdJobLocks(cfg, reg, "bot run")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
}
