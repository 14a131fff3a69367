package strategy_test

import (
	"context"
	"testing"

	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/journaltest"
)

// TestMemoryJournalConformance runs the journal suite against the memory
// journal of backtests. It keeps no order states, so the suite's order
// checks are left out (Harness.Order is nil).
func TestMemoryJournalConformance(t *testing.T) {
	t.Parallel()
	journaltest.Run(t, func(t *testing.T) journaltest.Harness {
		j := strategy.NewMemoryJournal()
		return journaltest.Harness{
			Journal: j,
			Refusal: func(_ context.Context, cid string) (string, bool, error) {
				cause := j.Refused(cid)
				return cause, cause != "", nil
			},
			Fills: func(context.Context) ([]strategy.JournalFill, error) { return j.Fills(0), nil },
			Runs: func(_ context.Context, schedule string) ([]journaltest.ScheduleRun, error) {
				var out []journaltest.ScheduleRun
				for _, r := range j.Runs() {
					if r.Schedule != schedule {
						continue
					}
					run := journaltest.ScheduleRun{Instance: r.Instance, Schedule: r.Schedule, Scheduled: r.Scheduled,
						Start: r.Start, End: r.End, Orders: r.Orders}
					if r.Err != nil {
						run.Err = r.Err.Error()
					}
					out = append(out, run)
				}
				return out, nil
			},
		}
	})
}
