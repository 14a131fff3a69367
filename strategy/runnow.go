package strategy

import (
	"context"
	"fmt"
	"strings"
)

// RunNow runs one schedule of an instance once, now (the clock's time),
// as if an occurrence fell due: the run is recorded in the journal and
// counted, the instance's state is saved after it, and an error from the
// handler stops the instance, exactly as for a scheduled run. The
// schedule's next occurrence does not move. An empty schedule name picks
// the instance's only schedule. The returned error says why nothing ran
// (an unknown instance or schedule, a stopped instance) or that the run
// could not be recorded; the handler's own outcome is Run.Err.
func (r *Runtime) RunNow(ctx context.Context, instance, schedule string) (Run, error) {
	r.ctx = ctx
	in := r.instance(instance)
	if in == nil {
		ids := make([]string, 0, len(r.insts))
		for _, x := range r.insts {
			ids = append(ids, x.id)
		}
		return Run{}, fmt.Errorf("strategy: no instance %q (instances: %s)", instance, strings.Join(ids, ", "))
	}
	sc, err := in.pickSchedule(schedule)
	if err != nil {
		return Run{}, err
	}
	if in.stopped != nil {
		return Run{}, fmt.Errorf("strategy %s: stopped: %w", in.id, in.stopped)
	}
	now := r.opts.Clock.Now()
	run := Run{Instance: in.id, Schedule: sc.Name, Scheduled: now, Start: now}
	in.dirty = true
	in.call(func() error {
		run.Err = sc.Run(in, now)
		return run.Err
	})
	run.End = r.opts.Clock.Now()
	r.stats.Runs++
	if run.Err != nil {
		r.stats.RunFails++
	}
	if err := r.opts.Journal.RecordRun(ctx, run); err != nil {
		return run, fmt.Errorf("strategy %s: recording the run of %s: %w", in.id, sc.Name, err)
	}
	return run, nil
}

// ScheduleNames returns the names of an instance's schedules, in the order
// its Schedules() lists them; nil for an unknown instance.
func (r *Runtime) ScheduleNames(instance string) []string {
	in := r.instance(instance)
	if in == nil {
		return nil
	}
	out := make([]string, 0, len(in.schedules))
	for _, sc := range in.schedules {
		out = append(out, sc.Name)
	}
	return out
}

func (in *instance) pickSchedule(name string) (*schedule, error) {
	names := make([]string, 0, len(in.schedules))
	for _, sc := range in.schedules {
		if sc.Name == name || name == "" && len(in.schedules) == 1 {
			return sc, nil
		}
		names = append(names, sc.Name)
	}
	switch {
	case len(names) == 0:
		return nil, fmt.Errorf("strategy %s: %s has no schedule", in.id, in.cfg.Name)
	case name == "":
		return nil, fmt.Errorf("strategy %s: schedules %s: name one", in.id, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("strategy %s: no schedule %q (schedules: %s)", in.id, name, strings.Join(names, ", "))
}
