package distributed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategy"
)

// Kinds of job.
const (
	KindSweep       = "sweep"
	KindWalkForward = "walkforward"
)

// Job is what every worker needs to run any unit of a sweep or
// walk-forward: the configuration it was loaded from (so the worker builds
// the same spec with its own strategy registry), the parameters (so it
// draws the same combinations), the objective and the bars by hash.
// Stored in JobsBucket under ID.
type Job struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Config is the YAML text, Environ the coordinator's SPOTBOT_
	// variables of the sections that shape a backtest, Overrides the flag
	// values by path: config.Load's three inputs.
	Config    string         `json:"config"`
	Environ   []string       `json:"environ,omitempty"`
	Overrides map[string]any `json:"overrides,omitempty"`
	// Params are the --param specs; Random and Seed draw combinations as
	// backtest.Random does (0: the full grid).
	Params    []string `json:"params"`
	Random    int      `json:"random,omitempty"`
	Seed      uint64   `json:"seed,omitempty"`
	Objective string   `json:"objective"`
	// Bars is the BarsHash of the loaded bars, in BarsBucket.
	Bars string `json:"bars"`
	// UnitSize is the number of runs per unit.
	UnitSize int `json:"unit_size"`
	// Command is the coordinator's command line, opaque here, for
	// attaching to the job again.
	Command []string `json:"command,omitempty"`
}

// Combos are the job's combinations, the same on every machine.
func (j *Job) Combos() ([]backtest.Combo, error) {
	ps := make([]backtest.Param, 0, len(j.Params))
	for _, s := range j.Params {
		p, err := backtest.ParseParam(s)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	if j.Random > 0 {
		return backtest.Random(ps, j.Random, j.Seed), nil
	}
	return backtest.Grid(ps), nil
}

// Spec builds the job's spec over reg without bars, as the coordinator
// built it: config.Load of the same inputs, then backtest.SpecOf.
func (j *Job) Spec(reg *strategy.Registry) (backtest.Spec, error) {
	c, err := config.Load([]byte(j.Config), j.Environ, j.Overrides, reg)
	if err != nil {
		return backtest.Spec{}, fmt.Errorf("job %s: configuration: %w", j.ID, err)
	}
	return backtest.SpecOf(c, reg)
}

// envSections are the sections of the configuration a backtest's spec
// reads; the coordinator's SPOTBOT_ variables of these travel with the job,
// nothing else (credentials and the other sections stay on the machine).
var envSections = [...]string{"ACCOUNT__", "DATA__", "RISK__", "SIM__", "STRATEGIES__", "SYMBOLS__"}

// JobEnviron keeps the variables of environ that travel with a job.
func JobEnviron(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		rest, ok := strings.CutPrefix(name, config.EnvPrefix)
		if !ok {
			continue
		}
		for _, s := range envSections {
			if strings.HasPrefix(rest, s) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

// CheckID refuses a job id that cannot name keys and subjects: it must
// be 1 to 64 ASCII letters, digits, - or _. (A loop rather than a regular
// expression, whose {1,64} compiled at every start of the program.)
func CheckID(id string) error {
	ok := len(id) >= 1 && len(id) <= 64
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
	}
	if !ok {
		return fmt.Errorf("job id %q: want 1 to 64 letters, digits, - or _", id)
	}
	return nil
}

// NewID is a fresh random job id.
func NewID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// Submit stores a job, or, when a job with its id exists, checks it is
// the same work (the same configuration, parameters, objective, bars and
// unit size) and returns the stored one: submitting again resumes.
func (q *Queue) Submit(ctx context.Context, j Job) (*Job, bool, error) {
	if err := CheckID(j.ID); err != nil {
		return nil, false, err
	}
	if j.UnitSize < 1 {
		return nil, false, fmt.Errorf("job %s: unit size %d, want at least 1", j.ID, j.UnitSize)
	}
	if _, err := j.Combos(); err != nil {
		return nil, false, fmt.Errorf("job %s: %w", j.ID, err)
	}
	b, err := json.Marshal(j)
	if err != nil {
		return nil, false, err
	}
	if _, err := q.jobs.Create(ctx, j.ID, b); err == nil {
		return &j, false, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return nil, false, fmt.Errorf("queue: store job %s: %w", j.ID, err)
	}
	old, err := q.Job(ctx, j.ID)
	if err != nil {
		return nil, false, err
	}
	a, b2 := *old, j
	a.Command, b2.Command = nil, nil
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b2)
	if string(ja) != string(jb) {
		return nil, false, fmt.Errorf("job %s exists and is another %s (other configuration, parameters, objective, bars or unit size); choose another id", j.ID, old.Kind)
	}
	return old, true, nil
}

// Job reads a stored job.
func (q *Queue) Job(ctx context.Context, id string) (*Job, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	e, err := q.jobs.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("job %s: no such job in %s", id, JobsBucket)
	}
	if err != nil {
		return nil, fmt.Errorf("queue: job %s: %w", id, err)
	}
	var j Job
	if err := json.Unmarshal(e.Value(), &j); err != nil {
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	return &j, nil
}

// Unit is one message of the work queue: runs [Lo, Hi) of the job's
// combinations, over the bars cut to [From, To) when To is set (a
// walk-forward window; Stage counts windows from 1, 0 is a plain sweep).
// A unit of Kind KindWindow is a walk-forward window's two runs of its
// best combination Lo (backtest.WindowRuns): in-sample over [From, To),
// out-of-sample over [To, TestTo).
type Unit struct {
	Job    string    `json:"job"`
	Kind   string    `json:"kind,omitempty"`
	Stage  int       `json:"stage"`
	Index  int       `json:"unit"`
	Lo     int       `json:"lo"`
	Hi     int       `json:"hi"`
	From   time.Time `json:"from,omitzero"`
	To     time.Time `json:"to,omitzero"`
	TestTo time.Time `json:"test_to,omitzero"`
}

// KindWindow is the Kind of a unit of a walk-forward window's runs of its
// best combination; the units of sweeps have none.
const KindWindow = "window"

// tail is what ends the unit's subject and message id: its index, or w
// for a window's runs.
func (u Unit) tail() string {
	if u.Kind == KindWindow {
		return "w"
	}
	return strconv.Itoa(u.Index)
}

func (u Unit) subject() string {
	return fmt.Sprintf("%s.%s.%d.%s", UnitsSubject, u.Job, u.Stage, u.tail())
}
func (u Unit) id() string { return fmt.Sprintf("%s.%d.%s", u.Job, u.Stage, u.tail()) }

// resultKey and errorKey are <job>.r.<stage>.<unit> and
// <job>.e.<stage>.<unit>, or <job>.w.<stage> and <job>.we.<stage> for a
// window's runs (whose result names an object in RunsBucket).
func (u Unit) resultKey() string {
	if u.Kind == KindWindow {
		return fmt.Sprintf("%s.w.%d", u.Job, u.Stage)
	}
	return fmt.Sprintf("%s.r.%d.%d", u.Job, u.Stage, u.Index)
}
func (u Unit) errorKey() string {
	if u.Kind == KindWindow {
		return fmt.Sprintf("%s.we.%d", u.Job, u.Stage)
	}
	return fmt.Sprintf("%s.e.%d.%d", u.Job, u.Stage, u.Index)
}

// result is what a worker stores for a unit before acknowledging it.
type result struct {
	Worker string              `json:"worker"`
	Runs   []backtest.SweepRun `json:"runs"`
	// Error is a unit the worker could not run (stored under errorKey).
	Error string `json:"error,omitempty"`
	// Object names a window's runs in RunsBucket.
	Object string `json:"object,omitempty"`
}

// units splits n runs into units of size.
func units(job string, stage, n, size int, from, to time.Time) []Unit {
	var out []Unit
	for lo := 0; lo < n; lo += size {
		out = append(out, Unit{Job: job, Stage: stage, Index: len(out), Lo: lo, Hi: min(lo+size, n), From: from, To: to})
	}
	return out
}

// Start stores the bars (once per content) and the job, whose Bars it
// sets; a job of that id stored already is resumed, as Submit does.
func (q *Queue) Start(ctx context.Context, j Job, data map[string]*marketdata.Series) (*Job, bool, error) {
	var err error
	if j.Bars, err = q.PutBars(ctx, data); err != nil {
		return nil, false, err
	}
	return q.Submit(ctx, j)
}
