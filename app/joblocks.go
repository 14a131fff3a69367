package app

import (
	"fmt"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/strategy"
)

// holdJobLocks takes the job lock of every scheduled instance of cfg for
// holder, so `bot jobs run` of one of them is refused while the bot runs
// (the bot's own runs never overlap: one goroutine drives its runtime).
// A job already running elsewhere stops the bot before it starts.
func holdJobLocks(cfg *config.Config, reg *strategy.Registry, holder string) (release func() error, err error) {
	var jobs []string
	for i, sc := range cfg.Strategies {
		s, err := reg.New(sc)
		if err != nil {
			return nil, fmt.Errorf("strategies[%d]: %w", i, err)
		}
		if _, ok := s.(strategy.Scheduler); ok {
			jobs = append(jobs, sc.ID)
		}
	}
	return daemon.NewJobGuard(cfg.Store.Path).AcquireAll(jobs, holder)
}
