package backtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Param is one swept parameter: its name in the first instance's params
// and the values to try.
type Param struct {
	Name   string
	Values []any
}

// ParseParam parses name=v1,v2,v3 or name=lo:hi:step (inclusive, integers
// when all three are integers, else decimals).
func ParseParam(s string) (Param, error) {
	name, vals, ok := strings.Cut(s, "=")
	if !ok || name == "" || vals == "" {
		return Param{}, fmt.Errorf("param %q: want name=v1,v2 or name=lo:hi:step", s)
	}
	p := Param{Name: name}
	if parts := strings.Split(vals, ":"); len(parts) == 3 {
		return rangeParam(p, parts)
	}
	for _, v := range strings.Split(vals, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return Param{}, fmt.Errorf("param %s: empty value in %q", name, vals)
		}
		p.Values = append(p.Values, scalar(v))
	}
	return p, nil
}

func rangeParam(p Param, parts []string) (Param, error) {
	ints := true
	var iv [3]int64
	var fv [3]float64
	for i, s := range parts {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			ints = false
		}
		iv[i] = n
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return Param{}, fmt.Errorf("param %s: %q is not a number", p.Name, s)
		}
		fv[i] = f
	}
	if fv[2] <= 0 || fv[1] < fv[0] {
		return Param{}, fmt.Errorf("param %s: range %s needs lo ≤ hi and a positive step", p.Name, strings.Join(parts, ":"))
	}
	if (fv[1]-fv[0])/fv[2] > 10000 {
		return Param{}, fmt.Errorf("param %s: range %s has more than 10000 values", p.Name, strings.Join(parts, ":"))
	}
	if ints {
		for v := iv[0]; v <= iv[1]; v += iv[2] {
			p.Values = append(p.Values, v)
		}
		return p, nil
	}
	for i := 0; ; i++ {
		v := fv[0] + float64(i)*fv[2]
		if v > fv[1]+fv[2]*1e-9 {
			break
		}
		// Written as the shortest decimal text so 0.1+0.2 stays 0.3.
		p.Values = append(p.Values, strconv.FormatFloat(math.Round(v*1e9)/1e9, 'f', -1, 64))
	}
	return p, nil
}

// scalar keeps integers as integers and everything else as text, which the
// strategies' parameter decoder turns into their typed fields.
func scalar(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return s
}

// Combo is one point of a sweep: a value per parameter.
type Combo map[string]any

// String writes the combo as name=value pairs in name order.
func (c Combo) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, c[k])
	}
	return strings.Join(parts, " ")
}

// Grid returns every combination of the parameters, the first parameter
// varying slowest.
func Grid(ps []Param) []Combo {
	out := []Combo{{}}
	for _, p := range ps {
		next := make([]Combo, 0, len(out)*len(p.Values))
		for _, c := range out {
			for _, v := range p.Values {
				n := maps.Clone(c)
				n[p.Name] = v
				next = append(next, n)
			}
		}
		out = next
	}
	return out
}

// Random returns n combinations drawn with replacement from the grid with a
// seeded generator, so the same seed draws the same points.
func Random(ps []Param, n int, seed uint64) []Combo {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]Combo, n)
	for i := range out {
		c := Combo{}
		for _, p := range ps {
			c[p.Name] = p.Values[r.IntN(len(p.Values))]
		}
		out[i] = c
	}
	return out
}

// Objective scores a run; higher is better.
type Objective func(Metrics) float64

// Objectives are the objectives a user can choose by name.
var objectiveNames = []string{"return", "sharpe", "sortino", "calmar", "cagr", "profit_factor", "sqn", "win_rate", "-max_drawdown"}

// ParseObjective returns the objective of a name.
func ParseObjective(name string) (Objective, error) {
	switch name {
	case "return":
		return func(m Metrics) float64 { return m.ReturnPct }, nil
	case "sharpe":
		return func(m Metrics) float64 { return m.Sharpe }, nil
	case "sortino":
		return func(m Metrics) float64 { return m.Sortino }, nil
	case "calmar":
		return func(m Metrics) float64 { return m.Calmar }, nil
	case "cagr":
		return func(m Metrics) float64 { return m.CAGRPct }, nil
	case "profit_factor":
		return func(m Metrics) float64 { return m.ProfitFactor }, nil
	case "sqn":
		return func(m Metrics) float64 { return m.SQN }, nil
	case "win_rate":
		return func(m Metrics) float64 { return m.WinRatePct }, nil
	case "-max_drawdown":
		return func(m Metrics) float64 { return -m.MaxDrawdownPct }, nil
	}
	return nil, fmt.Errorf("objective %q: known objectives are %s", name, strings.Join(objectiveNames, ", "))
}

// SweepRun is one run of a sweep.
type SweepRun struct {
	Index   int     `json:"index"` // position in the full list of combos
	Params  Combo   `json:"params"`
	Score   float64 `json:"score"`
	Metrics Metrics `json:"metrics"`
	Err     string  `json:"error,omitempty"`
	// Blocks are the moments of the run's per-bar returns in Partitions
	// contiguous blocks, what the overfitting statistics need of a run.
	Blocks []Moments `json:"blocks,omitempty"`
}

// SweepOptions configure Sweep.
type SweepOptions struct {
	Combos    []Combo
	Objective Objective
	// Workers run in parallel (default GOMAXPROCS).
	Workers int
	// Shard i of n runs only the combos whose index ≡ i (mod n); n 0 or 1
	// runs them all.
	Shard, Shards int
	// Done, when set, is called after each run (from the workers, one at
	// a time).
	Done func(SweepRun)
	// Partitions is the number of return blocks kept per run for the
	// overfitting statistics (DefaultPartitions when 0).
	Partitions int
}

// Sweep runs the base spec once per combo, with the combo's values set in
// the first instance's params, in parallel. The results are sorted by score,
// best first, ties by index. A run that fails (for example, parameters the
// strategy refuses) is kept with its error and the lowest score.
func Sweep(ctx context.Context, base Spec, o SweepOptions) ([]SweepRun, error) {
	if len(base.Instances) == 0 {
		return nil, errors.New("sweep: no strategy instances")
	}
	if o.Objective == nil {
		return nil, errors.New("sweep: no objective")
	}
	if base.Equity != nil {
		return nil, errors.New("sweep: Spec.Equity streams one run's equity.csv; a sweep has many runs")
	}
	if o.Shards > 1 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return nil, fmt.Errorf("sweep: shard %d/%d: want 0 ≤ i < n", o.Shard, o.Shards)
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var idx []int
	for i := range o.Combos {
		if o.Shards <= 1 || i%o.Shards == o.Shard {
			idx = append(idx, i)
		}
	}
	parts := o.Partitions
	if parts <= 0 {
		parts = DefaultPartitions
	}
	out := make([]SweepRun, len(idx))
	// Each worker takes the next run itself. Runs handed out over a
	// channel by this goroutine made a worker wait for it to be scheduled
	// again after every run (both cores were busy with the workers): 9% of
	// the workers' time in a sweep of short runs. A worker yields between
	// runs: with every core running a worker, that is when the collector's
	// own worker gets a core, and without it a collection's marking lasted
	// four times as long (8 against 2 ms on the sample), the runs paying
	// for its write barriers and assists meanwhile.
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for ctx.Err() == nil {
				j := int(next.Add(1) - 1)
				if j >= len(idx) {
					return
				}
				run := runCombo(ctx, base, idx[j], o.Combos[idx[j]], o.Objective, parts)
				out[j] = run
				if o.Done != nil {
					mu.Lock()
					o.Done(run)
					mu.Unlock()
				}
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	SortRuns(out)
	return out, nil
}

// worstScore is the score of a failed run: finite, so results encode as
// JSON, and below any real score.
const worstScore = -math.MaxFloat64

// SortRuns orders runs best first, ties by index.
func SortRuns(rs []SweepRun) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].Index < rs[j].Index
	})
}

func runCombo(ctx context.Context, base Spec, index int, c Combo, obj Objective, parts int) SweepRun {
	s := withParams(base, c)
	s.Progress, s.Logger = nil, nil
	run := SweepRun{Index: index, Params: c, Score: worstScore}
	res, err := Run(ctx, s)
	if err != nil {
		run.Err = err.Error()
		return run
	}
	run.Metrics = res.Metrics
	run.Blocks = ReturnBlocks(res.Curve, parts)
	run.Score = obj(res.Metrics)
	if math.IsNaN(run.Score) || math.IsInf(run.Score, 0) {
		run.Score = worstScore
	}
	return run
}
