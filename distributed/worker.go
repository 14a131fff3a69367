package distributed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategy"
)

// Worker takes units from the queue and runs them with the strategies of
// its registry: the binary built with app.New or app.Backtest over a
// user's registry is that user's worker.
type Worker struct {
	Queue    *Queue
	Registry *strategy.Registry
	// Name names the worker in results and logs.
	Name string
	// Concurrency is the number of units run at once (default
	// GOMAXPROCS); each unit runs its runs one after another.
	Concurrency int
	// Cache is the number of bar sets kept in memory (default 4).
	Cache  int
	Logger *slog.Logger
	// Started, when set, is called as a unit starts running.
	Started func(Unit)
	// FirstBars, when set, is called once, as soon as the bars of the
	// worker's first unit have arrived and before that unit's runs start:
	// the moment a program sizes its garbage collector to the live heap
	// (backtest.SweepMemory), which the bars mostly are.
	FirstBars func()

	first sync.Once

	mu    sync.Mutex
	jobs  map[string]*prepared
	order []string // cached job ids, oldest first
	bars  map[string]*barsEntry
	used  []string // bar hashes, least recently used first
}

// prepared is a job ready to run: its spec without bars and its combos.
type prepared struct {
	job    *Job
	spec   backtest.Spec
	combos []backtest.Combo
	obj    backtest.Objective
}

type barsEntry struct {
	ready chan struct{}
	data  map[string]*marketdata.Series
	err   error
}

// Run takes and runs units until ctx ends. Units it was running when ctx
// ended are neither stored nor acknowledged, so JetStream hands them to
// another worker after the acknowledgement wait.
func (w *Worker) Run(ctx context.Context) error {
	if w.Queue == nil || w.Registry == nil {
		return errors.New("worker: needs a queue and a strategy registry")
	}
	n := w.Concurrency
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	log := w.logger()
	slots := make(chan struct{}, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	log.Info("worker started", "worker", w.Name, "concurrency", n, "ack_wait", w.Queue.ackWait)
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		// A bounded wait, so an idle worker notices the end of ctx.
		fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		msg, err := w.Queue.cons.Next(jetstream.FetchContext(fctx))
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			<-slots
			if errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, context.DeadlineExceeded) {
				continue
			}
			log.Warn("worker: fetch", "err", err)
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return nil
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			w.handle(ctx, msg)
		}()
	}
}

func (w *Worker) logger() *slog.Logger {
	if w.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Logger
}

// handle runs one unit: a unit whose result is stored already (a
// redelivery after its worker stored it and died before acknowledging)
// is acknowledged without running; otherwise the runs' results are stored
// under the unit's key, then the unit is acknowledged.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	log := w.logger()
	var u Unit
	if err := json.Unmarshal(msg.Data(), &u); err != nil || u.Lo < 0 || u.Hi < u.Lo || CheckID(u.Job) != nil {
		log.Error("worker: not a unit; dropped", "subject", msg.Subject(), "err", err)
		_ = msg.TermWithReason("not a spotbot unit")
		return
	}
	log = log.With("job", u.Job, "stage", u.Stage, "unit", u.Index)
	q := w.Queue
	if _, err := q.results.Get(ctx, u.resultKey()); err == nil {
		log.Info("unit done already; acknowledged again")
		_ = msg.DoubleAck(ctx)
		return
	}
	// Signs of life while the unit runs, so a long unit is not handed to
	// another worker.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(max(q.ackWait/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = msg.InProgress()
			case <-stop:
				return
			}
		}
	}()
	if w.Started != nil {
		w.Started(u)
	}
	var r result
	var err error
	if u.Kind == KindWindow {
		r, err = w.runWindow(ctx, u)
	} else {
		r.Worker = w.Name
		r.Runs, err = w.run(ctx, u)
	}
	if ctx.Err() != nil {
		return // killed: the unit goes back to the queue
	}
	if err != nil {
		log.Error("unit failed; it goes back to the queue", "err", err)
		b, _ := json.Marshal(result{Worker: w.Name, Error: err.Error()})
		if _, perr := q.results.Put(ctx, u.errorKey(), b); perr != nil {
			log.Error("worker: store the failure", "err", perr)
		}
		_ = msg.NakWithDelay(min(q.ackWait, 10*time.Second))
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		log.Error("worker: encode", "err", err)
		_ = msg.Nak()
		return
	}
	if _, err := q.results.Create(ctx, u.resultKey(), b); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		log.Error("worker: store the result; the unit goes back to the queue", "err", err)
		_ = msg.Nak()
		return
	}
	if err := msg.DoubleAck(ctx); err != nil {
		// The result is stored: a redelivery is acknowledged unrun.
		log.Warn("worker: acknowledge", "err", err)
	}
	if u.Kind == KindWindow {
		log.Info("window's runs done", "object", r.Object)
		return
	}
	log.Info("unit done", "runs", len(r.Runs))
}

// run runs the unit's combinations, in combination order.
func (w *Worker) run(ctx context.Context, u Unit) ([]backtest.SweepRun, error) {
	p, err := w.prepare(ctx, u.Job)
	if err != nil {
		return nil, err
	}
	if u.Hi > len(p.combos) {
		return nil, fmt.Errorf("unit %d: runs %d-%d of %d combinations", u.Index, u.Lo, u.Hi, len(p.combos))
	}
	data, err := w.barsOf(ctx, p.job.Bars)
	if err != nil {
		return nil, err
	}
	if w.FirstBars != nil {
		w.first.Do(w.FirstBars)
	}
	spec, err := p.spec.WithData(data)
	if err != nil {
		return nil, err
	}
	if !u.To.IsZero() {
		spec.Data = backtest.CutWindow(data, u.From, u.To)
	}
	runs, err := backtest.Sweep(ctx, spec, backtest.SweepOptions{Combos: p.combos[u.Lo:u.Hi], Objective: p.obj, Workers: 1})
	if err != nil {
		return nil, err
	}
	for i := range runs {
		runs[i].Index += u.Lo
	}
	slices.SortFunc(runs, func(a, b backtest.SweepRun) int { return a.Index - b.Index })
	return runs, nil
}

// prepare reads and builds a job once per worker (the last 16 kept).
func (w *Worker) prepare(ctx context.Context, id string) (*prepared, error) {
	w.mu.Lock()
	if p, ok := w.jobs[id]; ok {
		w.mu.Unlock()
		return p, nil
	}
	w.mu.Unlock()
	j, err := w.Queue.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	spec, err := j.Spec(w.Registry)
	if err != nil {
		return nil, err
	}
	combos, err := j.Combos()
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	obj, err := backtest.ParseObjective(j.Objective)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	p := &prepared{job: j, spec: spec, combos: combos, obj: obj}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.jobs == nil {
		w.jobs = map[string]*prepared{}
	}
	if _, ok := w.jobs[id]; !ok {
		w.jobs[id] = p
		w.order = append(w.order, id)
		if len(w.order) > 16 {
			delete(w.jobs, w.order[0])
			w.order = w.order[1:]
		}
	}
	return p, nil
}

// barsOf returns bars by hash from the worker's cache, fetching them once
// however many units ask at the same time.
func (w *Worker) barsOf(ctx context.Context, hash string) (map[string]*marketdata.Series, error) {
	w.mu.Lock()
	if w.bars == nil {
		w.bars = map[string]*barsEntry{}
	}
	e, ok := w.bars[hash]
	if !ok {
		e = &barsEntry{ready: make(chan struct{})}
		w.bars[hash] = e
	}
	w.touch(hash)
	w.mu.Unlock()
	if !ok {
		e.data, e.err = w.Queue.getBars(ctx, hash)
		close(e.ready)
		if e.err != nil {
			w.mu.Lock()
			if w.bars[hash] == e {
				delete(w.bars, hash)
			}
			w.mu.Unlock()
		}
	}
	select {
	case <-e.ready:
		return e.data, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// touch marks hash most recently used and evicts beyond the cache size;
// w.mu is held.
func (w *Worker) touch(hash string) {
	if i := slices.Index(w.used, hash); i >= 0 {
		w.used = slices.Delete(w.used, i, i+1)
	}
	w.used = append(w.used, hash)
	size := w.Cache
	if size <= 0 {
		size = 4
	}
	for len(w.used) > size {
		delete(w.bars, w.used[0])
		w.used = w.used[1:]
	}
}
