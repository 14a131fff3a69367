package strategy

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// twoJobs has two schedules; "fail" returns an error.
type twoJobs struct {
	recorder
	runs []string
}

func (s *twoJobs) Schedules() []Schedule {
	return []Schedule{
		{Name: "ok", Spec: "0 3 * * *", Run: func(ctx Context, at time.Time) error {
			s.runs = append(s.runs, "ok "+at.Format("15:04")+"@"+ctx.Now().Format("15:04"))
			return nil
		}},
		{Name: "fail", Spec: "0 4 * * *", Run: func(Context, time.Time) error { return errors.New("exchange down") }},
	}
}

func TestRunNow(t *testing.T) {
	t.Parallel()
	one := &scheduled{spec: "0 3 * * *"}
	two := &twoJobs{}
	plain := &recorder{}
	h := newHarness(t, Options{}, one, two, plain)
	ctx := t.Context()
	h.clock.t = t0.Add(90 * time.Minute)

	// The only schedule of s0 runs with an empty name, now, not at 03:00.
	run, err := h.rt.RunNow(ctx, "s0", "")
	if err != nil || run.Err != nil || run.Schedule != "job" || run.Instance != "s0" || !run.Scheduled.Equal(h.clock.t) || !run.Start.Equal(h.clock.t) {
		t.Fatalf("run %+v, err %v", run, err)
	}
	if got := strings.Join(one.runs, "|"); got != "01:30@01:30" {
		t.Errorf("runs %q", got)
	}
	// The schedule itself is untouched: 03:00 still runs once (and s1's
	// "ok" with it).
	h.clock.t = t0.Add(3 * time.Hour)
	h.rt.Tick(ctx, h.clock.t)
	if got := strings.Join(one.runs, "|"); got != "01:30@01:30|03:00@03:00" {
		t.Errorf("runs after the tick %q", got)
	}

	errs := []struct{ instance, schedule, want string }{
		{"nosuch", "", `strategy: no instance "nosuch" (instances: s0, s1, s2)`},
		{"s1", "", "strategy s1: schedules ok, fail: name one"},
		{"s1", "other", `strategy s1: no schedule "other" (schedules: ok, fail)`},
		{"s2", "", "strategy s2: test has no schedule"},
	}
	for _, e := range errs {
		if _, err := h.rt.RunNow(ctx, e.instance, e.schedule); err == nil || err.Error() != e.want {
			t.Errorf("RunNow(%q, %q): %v, want %q", e.instance, e.schedule, err, e.want)
		}
	}
	if got := h.rt.ScheduleNames("s1"); strings.Join(got, ",") != "ok,fail" {
		t.Errorf("ScheduleNames %q", got)
	}

	// A failing run is recorded and stops the instance, as a scheduled one.
	run, err = h.rt.RunNow(ctx, "s1", "fail")
	if err != nil || run.Err == nil || run.Err.Error() != "exchange down" {
		t.Fatalf("run %+v, err %v", run, err)
	}
	if _, err := h.rt.RunNow(ctx, "s1", "ok"); err == nil || err.Error() != "strategy s1: stopped: exchange down" {
		t.Errorf("after the failure: %v", err)
	}
	st := h.rt.Stats()
	if st.Runs != 4 || st.RunFails != 1 {
		t.Errorf("stats runs %d fails %d", st.Runs, st.RunFails)
	}
	var got []string
	for _, r := range h.j.runs {
		s := r.Instance + "/" + r.Schedule + " " + r.Scheduled.Format("15:04")
		if r.Err != nil {
			s += " " + r.Err.Error()
		}
		got = append(got, s)
	}
	if want := "s0/job 01:30|s0/job 03:00|s1/ok 03:00|s1/fail 03:00 exchange down"; strings.Join(got, "|") != want {
		t.Errorf("journal runs %q, want %q", strings.Join(got, "|"), want)
	}
}
