package strategy

import (
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"
)

// cronParser accepts standard five-field specs, an optional leading seconds
// field, descriptors such as @daily and @every 1h, and CRON_TZ=. Specs
// without a time zone are evaluated in UTC: the runtime's clock is UTC.
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule validates a cron spec the way the runtime will read it.
func ParseSchedule(spec string) error {
	_, err := parseSchedule(spec)
	return err
}

func parseSchedule(spec string) (cron.Schedule, error) { return cronParser.Parse(spec) }

type schedule struct {
	Schedule
	cron cron.Schedule
	next time.Time
}

// runDue runs sc if an occurrence is due at or before now. An occurrence
// within the grace period runs on time. Older ones are missed: with
// SkipMissed they are dropped; with RunMissedOnce they collapse into one
// catch-up run (for the latest of them), unless an on-time run happens in
// the same tick, which then serves as the catch-up.
func (r *Runtime) runDue(in *instance, sc *schedule, now time.Time) {
	if sc.next.IsZero() || sc.next.After(now) {
		return
	}
	var onTime, missed time.Time
	for !sc.next.After(now) {
		if now.Sub(sc.next) <= r.opts.ScheduleGrace {
			onTime = sc.next
		} else {
			missed = sc.next
		}
		sc.next = sc.cron.Next(sc.next)
	}
	if !missed.IsZero() {
		if r.opts.MissedRuns == RunMissedOnce && onTime.IsZero() {
			onTime = missed
		} else {
			in.log.Info("schedule occurrence missed", slog.String("schedule", sc.Name), slog.Time("due", missed))
		}
	}
	if onTime.IsZero() || in.stopped != nil {
		return
	}
	run := Run{Instance: in.id, Schedule: sc.Name, Scheduled: onTime, Start: r.opts.Clock.Now()}
	in.dirty = true // a run may change the instance's state
	in.runOrders = make([]string, 0, 4)
	in.call(func() error {
		run.Err = sc.Run(in, onTime)
		return run.Err
	})
	run.Orders, in.runOrders = in.runOrders, nil
	run.End = r.opts.Clock.Now()
	r.stats.Runs++
	if run.Err != nil {
		r.stats.RunFails++
	}
	if err := r.opts.Journal.RecordRun(r.ctx, run); err != nil {
		in.log.Error("recording schedule run failed", slog.Any("err", err))
	}
}
