package distributed_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/distributed"
	"github.com/spotbot/spotbot/distributed/natstest"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategies/smacross"
	"github.com/spotbot/spotbot/strategy"
)

// sampleJob is a sweep of smacross over the embedded sample: the job, its
// spec with bars and its combinations.
func sampleJob(t testing.TB, id string, params []string, unit int) (distributed.Job, backtest.Spec, []backtest.Combo, *strategy.Registry) {
	t.Helper()
	reg := strategies.NewRegistry()
	text, err := configs.FS.ReadFile("backtest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(text, nil, nil, reg)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := backtest.FromConfig(c, reg)
	if err != nil {
		t.Fatal(err)
	}
	j := distributed.Job{ID: id, Kind: distributed.KindSweep, Config: string(text), Params: params, Objective: "sharpe", UnitSize: unit}
	combos, err := j.Combos()
	if err != nil {
		t.Fatal(err)
	}
	return j, spec, combos, reg
}

func connect(t testing.TB, url, name string) *distributed.Queue {
	t.Helper()
	q, err := distributed.Connect(t.Context(), distributed.ConnOptions{URL: url, Name: name, AckWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSweepSurvivesKilledWorkerAndCoordinator: three workers, one killed
// in the middle of its first unit (after its first run), the coordinator stopped after the first
// results and started again; the merged result is byte for byte the
// local sweep's.
func TestSweepSurvivesKilledWorkerAndCoordinator(t *testing.T) {
	url := natstest.Server(t)
	job, spec, combos, reg := sampleJob(t, "killtest", []string{"fast=3:12:1", "slow=30,50,80"}, 4)
	obj, _ := backtest.ParseObjective(job.Objective)
	local, err := backtest.Sweep(t.Context(), spec, backtest.SweepOptions{Combos: combos, Objective: obj, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	const nUnits = 8 // 30 runs of 4

	coord := connect(t, url, "coordinator-1")
	j, resumed, err := coord.Start(t.Context(), job, spec.Data)
	if err != nil || resumed {
		t.Fatalf("start: resumed %v, %v", resumed, err)
	}
	// The coordinator stops once the first unit's runs are merged.
	ctx1, stop1 := context.WithCancel(t.Context())
	var merged atomic.Int32
	first := make(chan error, 1)
	go func() {
		_, err := coord.Sweep(ctx1, j, 0, time.Time{}, time.Time{}, backtest.SweepOptions{Combos: combos, Objective: obj,
			Done: func(backtest.SweepRun) {
				if merged.Add(1) == 4 {
					stop1()
				}
			}})
		first <- err
	}()

	// Worker "doomed" dies in the middle of its first unit: its registry
	// builds smacross once to check the job's configuration, once per run,
	// and cancels the worker as it builds the unit's second run. The unit
	// is neither stored nor acknowledged.
	var killed atomic.Value
	doomedQ := connect(t, url, "doomed")
	dctx, kill := context.WithCancel(t.Context())
	var builds atomic.Int32
	doomedReg := strategy.NewRegistry()
	doomedReg.Register(smacross.Name, func(cfg strategy.Config) (strategy.Strategy, error) {
		if builds.Add(1) == 3 {
			kill()
		}
		return smacross.New(cfg)
	})
	doomed := &distributed.Worker{Queue: doomedQ, Registry: doomedReg, Name: "doomed", Concurrency: 1,
		Started: func(u distributed.Unit) { killed.CompareAndSwap(nil, u.Index) }}
	if err := doomed.Run(dctx); err != nil {
		t.Fatal(err)
	}
	doomedQ.Close()
	if builds.Load() < 3 {
		t.Fatalf("the doomed worker built %d strategies, want at least 3", builds.Load())
	}
	deadUnit, ok := killed.Load().(int)
	if !ok {
		t.Fatal("the doomed worker ran no unit")
	}

	var wg sync.WaitGroup
	wctx, stopWorkers := context.WithCancel(t.Context())
	defer func() { stopWorkers(); wg.Wait() }()
	var started sync.Map // unit -> count of starts by the live workers
	for i := range 2 {
		w := &distributed.Worker{Queue: connect(t, url, fmt.Sprintf("w%d", i)), Registry: reg, Name: fmt.Sprintf("w%d", i),
			Concurrency: 2, Logger: slog.New(slog.DiscardHandler), Started: func(u distributed.Unit) {
				n, _ := started.LoadOrStore(u.Index, new(atomic.Int32))
				n.(*atomic.Int32).Add(1)
			}}
		wg.Go(func() {
			if err := w.Run(wctx); err != nil {
				t.Error(err)
			}
		})
	}
	if err := <-first; err != context.Canceled {
		t.Fatalf("first coordinator: %v, want context.Canceled", err)
	}

	// A new coordinator, a new connection: it resumes the job.
	coord2 := connect(t, url, "coordinator-2")
	j2, resumed, err := coord2.Start(t.Context(), job, spec.Data)
	if err != nil || !resumed {
		t.Fatalf("restart: resumed %v, %v", resumed, err)
	}
	var arrived atomic.Int32
	got, err := coord2.Sweep(t.Context(), j2, 0, time.Time{}, time.Time{}, backtest.SweepOptions{Combos: combos, Objective: obj,
		Done: func(backtest.SweepRun) { arrived.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if a, want := mustJSON(t, got), mustJSON(t, local); a != want {
		t.Fatalf("distributed result differs from the local sweep:\n%s\nwant\n%s", a, want)
	}
	// The restarted coordinator merged every run exactly once, the first
	// one's included (read back from the bucket).
	if arrived.Load() != int32(len(combos)) {
		t.Fatalf("second coordinator merged %d runs, want %d", arrived.Load(), len(combos))
	}
	// The dead worker's unit was run again by a live worker; no unit ran
	// twice on the live ones.
	total := 0
	started.Range(func(k, v any) bool {
		if n := v.(*atomic.Int32).Load(); n != 1 {
			t.Errorf("unit %v started %d times on live workers", k, n)
		}
		total++
		return true
	})
	if total != nUnits {
		t.Errorf("live workers started %d distinct units, want %d (the killed one %d included)", total, nUnits, deadUnit)
	}
	if _, ok := started.Load(deadUnit); !ok {
		t.Errorf("the killed unit %d was not run again", deadUnit)
	}
	checkDrained(t, url)
}

// checkDrained asserts the work queue holds no unit.
func checkDrained(t *testing.T, url string) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		js, _ := nc.JetStream()
		si, err := js.StreamInfo(distributed.Stream)
		if err != nil {
			t.Fatal(err)
		}
		if si.State.Msgs == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d units left in the queue", si.State.Msgs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBarsRoundTrip: decoded bars equal the loaded ones exactly (the
// exponents included), the hash is fixed by the content, and bars
// differing in a value or only in their scale are other bars.
func TestBarsRoundTrip(t *testing.T) {
	full, err := marketdata.SampleSeries("BTCUSDT")
	if err != nil {
		t.Fatal(err)
	}
	s := full.Slice(0, 3)
	data := map[string]*marketdata.Series{"BTCUSDT": s}
	enc, err := distributed.EncodeBars(data)
	if err != nil {
		t.Fatal(err)
	}
	back, err := distributed.DecodeBars(enc)
	if err != nil {
		t.Fatal(err)
	}
	got := back["BTCUSDT"]
	if got.Len() != 3 || got.Symbol() != "BTCUSDT" || got.Interval() != s.Interval() {
		t.Fatalf("decoded %d %s bars of %q", got.Len(), got.Interval(), got.Symbol())
	}
	for i := range 3 {
		k, o := got.Kline(i), s.Kline(i)
		if !k.OpenTime.Equal(o.OpenTime) || k.OpenTime.Location() != o.OpenTime.Location() || !k.CloseTime.Equal(o.CloseTime) ||
			k.Open.String() != o.Open.String() || k.Open.Exponent() != o.Open.Exponent() || k.Close.Exponent() != o.Close.Exponent() ||
			k.High.String() != o.High.String() || k.Low.String() != o.Low.String() || k.Close.String() != o.Close.String() ||
			k.Volume.String() != o.Volume.String() || k.Volume.Exponent() != o.Volume.Exponent() {
			t.Fatalf("bar %d: %+v, want %+v", i, k, o)
		}
	}
	h := distributed.BarsHash(data)
	if h != "1d673dad88ba208f9f4ee49b4d0da60cea023e18b5d47100501b0ec8cd39d8b3" || distributed.BarsHash(back) != h {
		t.Fatalf("hash %s, of the decoded bars %s", h, distributed.BarsHash(back))
	}
	// The same prices at another scale: equal content, other bars.
	scaled := func(col []int64, k int64) []int64 {
		out := make([]int64, len(col))
		for i, v := range col {
			out[i] = v * k
		}
		return out
	}
	pe, ve := s.Exp(marketdata.Close), s.Exp(marketdata.Volume)
	other, err := marketdata.NewSeries("BTCUSDT", s.Interval(), pe-1, ve, slices.Clone(s.Times()), scaled(s.Ints(marketdata.Open), 10),
		scaled(s.Ints(marketdata.High), 10), scaled(s.Ints(marketdata.Low), 10), scaled(s.Ints(marketdata.Close), 10), slices.Clone(s.Ints(marketdata.Volume)))
	if err != nil {
		t.Fatal(err)
	}
	if other.Hash() != s.Hash() {
		t.Fatal("the series' content hashes differ")
	}
	if distributed.BarsHash(map[string]*marketdata.Series{"BTCUSDT": other}) == h {
		t.Fatal("bars differing in their scale hash alike")
	}
	changed := scaled(s.Ints(marketdata.Volume), 1)
	changed[1]++
	third, err := marketdata.NewSeries("BTCUSDT", s.Interval(), pe, ve, slices.Clone(s.Times()), slices.Clone(s.Ints(marketdata.Open)),
		slices.Clone(s.Ints(marketdata.High)), slices.Clone(s.Ints(marketdata.Low)), slices.Clone(s.Ints(marketdata.Close)), changed)
	if err != nil {
		t.Fatal(err)
	}
	if distributed.BarsHash(map[string]*marketdata.Series{"BTCUSDT": third}) == h {
		t.Fatal("bars differing in a volume hash alike")
	}
	if distributed.BarsHash(map[string]*marketdata.Series{"ETHUSDT": s}) == h {
		t.Fatal("bars of another symbol hash alike")
	}
	if _, err := distributed.DecodeBars(enc[:len(enc)-1]); err == nil {
		t.Fatal("a truncated encoding decoded")
	}
	if _, err := distributed.DecodeBars([]byte("something else")); err == nil || err.Error() != "bars: not a spotbot.bars/v2 encoding" {
		t.Fatalf("a foreign object: %v", err)
	}
	// A bar the loaders would refuse is refused here too.
	vol := s.Ints(marketdata.Volume)
	last := binary.AppendVarint(nil, vol[2]-vol[1]) // the last volume's delta ends the encoding
	bad := binary.AppendVarint(slices.Clone(enc[:len(enc)-len(last)]), -1-vol[1])
	if _, err := distributed.DecodeBars(bad); err == nil || !strings.Contains(err.Error(), "volume: negative") {
		t.Fatalf("a negative volume: %v", err)
	}
}

// runWorker runs a worker until the test ends.
func runWorker(t *testing.T, w *distributed.Worker) {
	t.Helper()
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { stop(); <-done })
}

// TestUnitFailureStopsCoordinatorThenAttachContinues: a worker whose
// binary lacks the strategy reports it; the coordinator stops naming the
// unit, the worker and the reason; with a fixed worker the same job
// finishes, identical to the local sweep.
func TestUnitFailureStopsCoordinatorThenAttachContinues(t *testing.T) {
	url := natstest.Server(t)
	job, spec, combos, reg := sampleJob(t, "failing", []string{"fast=5,10", "slow=30,50"}, 2)
	obj, _ := backtest.ParseObjective(job.Objective)
	q := connect(t, url, "coordinator")
	j, _, err := q.Start(t.Context(), job, spec.Data)
	if err != nil {
		t.Fatal(err)
	}
	bareCtx, stopBare := context.WithCancel(t.Context())
	bareDone := make(chan struct{})
	go func() {
		defer close(bareDone)
		_ = (&distributed.Worker{Queue: connect(t, url, "bare"), Registry: strategy.NewRegistry(), Name: "bare", Concurrency: 1}).Run(bareCtx)
	}()
	_, err = q.Sweep(t.Context(), j, 0, time.Time{}, time.Time{}, backtest.SweepOptions{Combos: combos, Objective: obj})
	stopBare()
	<-bareDone
	if err == nil || !strings.Contains(err.Error(), "worker bare: job failing: configuration: ") ||
		!strings.Contains(err.Error(), `unknown strategy "smacross"`) || !strings.Contains(err.Error(), "attach to the job again") {
		t.Fatalf("err = %v", err)
	}
	runWorker(t, &distributed.Worker{Queue: connect(t, url, "fixed"), Registry: reg, Name: "fixed", Concurrency: 2})
	got, err := q.Sweep(t.Context(), j, 0, time.Time{}, time.Time{}, backtest.SweepOptions{Combos: combos, Objective: obj})
	if err != nil {
		t.Fatal(err)
	}
	local, err := backtest.Sweep(t.Context(), spec, backtest.SweepOptions{Combos: combos, Objective: obj})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, got), mustJSON(t, local); a != b {
		t.Fatalf("got\n%s\nwant\n%s", a, b)
	}
}

// TestRedeliveredUnitIsNotRunAgain: a unit delivered again after its
// result was stored is acknowledged without running.
func TestRedeliveredUnitIsNotRunAgain(t *testing.T) {
	url := natstest.Server(t)
	job, spec, combos, reg := sampleJob(t, "again", []string{"fast=5,10"}, 1)
	obj, _ := backtest.ParseObjective(job.Objective)
	q := connect(t, url, "coordinator")
	j, _, err := q.Start(t.Context(), job, spec.Data)
	if err != nil {
		t.Fatal(err)
	}
	var starts atomic.Int32
	runWorker(t, &distributed.Worker{Queue: connect(t, url, "w"), Registry: reg, Name: "w", Concurrency: 1,
		Started: func(distributed.Unit) { starts.Add(1) }})
	if _, err := q.Sweep(t.Context(), j, 0, time.Time{}, time.Time{}, backtest.SweepOptions{Combos: combos, Objective: obj}); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := nc.JetStream()
	if _, err := js.Publish("spotbot.units.again.0.1", []byte(`{"job":"again","stage":0,"unit":1,"lo":1,"hi":2}`)); err != nil {
		t.Fatal(err)
	}
	checkDrained(t, url)
	if n := starts.Load(); n != 2 {
		t.Fatalf("%d units started, want 2 (the redelivery acknowledged unrun)", n)
	}
	n, err := q.Finished(t.Context(), "again")
	if err != nil || n != 2 {
		t.Fatalf("finished %d, %v; want 2", n, err)
	}
}

// TestSweepStoppedReturnsCanceled: a sweep stopped before its first step
// returns ctx's own error, not the NATS client's wrapping of it.
func TestSweepStoppedReturnsCanceled(t *testing.T) {
	url := natstest.Server(t)
	job, _, combos, _ := sampleJob(t, "stopped", []string{"fast=3:4:1"}, 1)
	obj, _ := backtest.ParseObjective(job.Objective)
	q := connect(t, url, "coordinator")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	runs, err := q.Sweep(ctx, &job, 0, time.Time{}, time.Time{}, backtest.SweepOptions{Combos: combos, Objective: obj})
	if err != context.Canceled || runs != nil {
		t.Fatalf("got %d runs and %v, want none and context.Canceled", len(runs), err)
	}
}
