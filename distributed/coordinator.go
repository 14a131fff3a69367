package distributed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/spotbot/spotbot/backtest"
)

// Sweep is backtest.Sweep on the queue: it publishes the units of the
// job's stage that are neither done nor queued, merges the results as
// workers store them (o.Done is called for each run, in arrival order),
// and returns every run ranked as backtest.Sweep ranks them. o.Combos are
// the job's combinations (Job.Combos), set as the runs' Params. Stopped
// (ctx) and called again, by this or another process, it publishes nothing
// twice and keeps every finished unit: the queue and the results bucket
// hold the state. Stopped, it returns ctx.Err() itself, whichever step
// was under way (the client wraps a cancelled request's error in its
// own).
func (q *Queue) Sweep(ctx context.Context, j *Job, stage int, from, to time.Time, o backtest.SweepOptions) (_ []backtest.SweepRun, err error) {
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = ctx.Err()
		}
	}()
	if o.Shards > 1 {
		return nil, errors.New("queue: a distributed sweep is not sharded; the queue spreads it")
	}
	all := units(j.ID, stage, len(o.Combos), j.UnitSize, from, to)
	runs := make([]backtest.SweepRun, len(o.Combos))
	done := make([]bool, len(all))
	left := len(all)
	q.track(len(all), len(o.Combos))
	prefix := fmt.Sprintf("%s.%%s.%d.", j.ID, stage)
	w, err := q.results.WatchFiltered(ctx, []string{fmt.Sprintf(prefix, "r") + "*", fmt.Sprintf(prefix, "e") + "*"})
	if err != nil {
		return nil, fmt.Errorf("queue: watch results of %s: %w", j.ID, err)
	}
	defer func() { _ = w.Stop() }()
	initial := true
	for left > 0 || initial {
		var e jetstream.KeyValueEntry
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e = <-w.Updates():
		}
		if e == nil { // the stored values are all read: queue what is missing
			initial = false
			if err := q.publish(ctx, all, done); err != nil {
				return nil, err
			}
			continue
		}
		if e.Operation() != jetstream.KeyValuePut {
			continue
		}
		kind, idx, ok := parseKey(e.Key(), j.ID, stage)
		if !ok || idx >= len(all) {
			return nil, fmt.Errorf("queue: job %s: result key %s names no unit of this sweep (is the job id reused?)", j.ID, e.Key())
		}
		var r result
		if err := json.Unmarshal(e.Value(), &r); err != nil {
			return nil, fmt.Errorf("queue: job %s: result %s: %w", j.ID, e.Key(), err)
		}
		if kind == "e" {
			if initial {
				// A failure of an earlier attempt: the unit is still queued
				// and a fixed worker may run it now.
				_ = q.results.Delete(ctx, e.Key())
				continue
			}
			return nil, fmt.Errorf("job %s: unit %d (runs %d-%d): worker %s: %s; fix the workers, then attach to the job again",
				j.ID, idx, all[idx].Lo, all[idx].Hi-1, r.Worker, r.Error)
		}
		if done[idx] {
			continue // a redelivered unit's second result
		}
		u := all[idx]
		if len(r.Runs) != u.Hi-u.Lo {
			return nil, fmt.Errorf("queue: job %s: unit %d holds %d runs, want %d", j.ID, idx, len(r.Runs), u.Hi-u.Lo)
		}
		for i, run := range r.Runs {
			if run.Index != u.Lo+i {
				return nil, fmt.Errorf("queue: job %s: unit %d: run %d where %d belongs", j.ID, idx, run.Index, u.Lo+i)
			}
			run.Params = o.Combos[run.Index]
			runs[run.Index] = run
			if o.Done != nil {
				o.Done(run)
			}
		}
		done[idx] = true
		left--
		q.advance(1, len(r.Runs))
	}
	backtest.SortRuns(runs)
	return runs, nil
}

// publish queues every unit not done and not in the stream (a unit
// stays in the work-queue stream until a worker acknowledges it). One
// request lists the units in the stream; the others are published
// asynchronously and their acknowledgements awaited together (in batches
// of publishBatch, the client's bound on pending publications). The
// message id makes a second publication within two minutes a no-op; a
// later duplicate is run by nobody: the worker finds its result stored.
func (q *Queue) publish(ctx context.Context, all []Unit, done []bool) error {
	if len(all) == 0 {
		return nil
	}
	queued, err := q.queued(ctx, all[0])
	if err != nil {
		return err
	}
	var acks []jetstream.PubAckFuture
	var ids []string
	wait := func() error {
		select {
		case <-q.js.PublishAsyncComplete():
		case <-ctx.Done():
			return ctx.Err()
		}
		for i, a := range acks {
			select {
			case <-a.Ok():
			case err := <-a.Err():
				return fmt.Errorf("queue: publish unit %s: %w", ids[i], err)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		acks, ids = acks[:0], ids[:0]
		return nil
	}
	for i, u := range all {
		if done[i] || queued[u.subject()] {
			continue
		}
		b, err := json.Marshal(u)
		if err != nil {
			return err
		}
		a, err := q.js.PublishAsync(u.subject(), b, jetstream.WithMsgID(u.id()))
		if err != nil {
			return fmt.Errorf("queue: publish unit %s: %w", u.id(), err)
		}
		acks, ids = append(acks, a), append(ids, u.id())
		if len(acks) == publishBatch {
			if err := wait(); err != nil {
				return err
			}
		}
	}
	return wait()
}

// publishBatch bounds the publications awaiting their acknowledgement,
// below the client's default of 4,000 pending.
const publishBatch = 1000

// queued is the set of subjects of u's job and stage with a unit in the
// stream, in one request.
func (q *Queue) queued(ctx context.Context, u Unit) (map[string]bool, error) {
	filter := fmt.Sprintf("%s.%s.%d.*", UnitsSubject, u.Job, u.Stage)
	info, err := q.stream.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return nil, fmt.Errorf("queue: look up the queued units of %s: %w", u.Job, err)
	}
	out := make(map[string]bool, len(info.State.Subjects))
	for s, n := range info.State.Subjects {
		if n > 0 {
			out[s] = true
		}
	}
	return out, nil
}

// parseKey reads <job>.<kind>.<stage>.<unit>.
func parseKey(key, job string, stage int) (kind string, unit int, ok bool) {
	rest, ok := strings.CutPrefix(key, job+".")
	if !ok {
		return "", 0, false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 || parts[1] != strconv.Itoa(stage) {
		return "", 0, false
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return parts[0], n, parts[0] == "r" || parts[0] == "e"
}

// Finished counts the units of a job whose results are stored, over all
// its stages.
func (q *Queue) Finished(ctx context.Context, id string) (int, error) {
	if err := CheckID(id); err != nil {
		return 0, err
	}
	l, err := q.results.ListKeysFiltered(ctx, id+".r.>")
	if err != nil {
		return 0, fmt.Errorf("queue: results of %s: %w", id, err)
	}
	n := 0
	for range l.Keys() {
		n++
	}
	return n, nil
}
