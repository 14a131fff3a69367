package simserver

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// Fault is what can go wrong with requests to one endpoint. Probabilities
// are in [0, 1].
type Fault struct {
	// Before5XX answers 503 without acting.
	Before5XX float64
	// After5XX acts (the order exists) and then answers 503.
	After5XX float64
	// DropAfter acts and then closes the connection without a reply.
	DropAfter float64
	// Latency is added before the request is handled.
	Latency time.Duration
}

// Faults configures fault injection. Random choices come from a generator
// seeded with Seed, so a run with the same requests makes the same choices.
type Faults struct {
	Seed    uint64
	Default Fault
	// ByEndpoint overrides Default per endpoint.
	ByEndpoint map[exchange.EndpointID]Fault
	// Storm429Until answers every request with 429 until this server time.
	Storm429Until time.Time
	// ClockOffset shifts the server clock used for timestamps and
	// serverTime (a skewed server).
	ClockOffset time.Duration
}

// faults picks faults with a seeded generator.
type faults struct {
	mu  sync.Mutex
	cfg Faults
	rnd *rand.Rand
}

func newFaults(cfg Faults) *faults {
	return &faults{cfg: cfg, rnd: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))}
}

func (f *faults) set(cfg Faults) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg = cfg
	f.rnd = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
}

// plan is the faults chosen for one request.
type plan struct {
	latency   time.Duration
	before5XX bool
	after5XX  bool
	dropAfter bool
	storm     bool
}

func (f *faults) plan(id exchange.EndpointID, now time.Time) plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.cfg.ByEndpoint[id]
	if !ok {
		fl = f.cfg.Default
	}
	p := plan{latency: fl.Latency, storm: now.Before(f.cfg.Storm429Until)}
	// Draw every number each time so one endpoint's settings do not shift
	// another's sequence.
	a, b, c := f.rnd.Float64(), f.rnd.Float64(), f.rnd.Float64()
	p.before5XX = a < fl.Before5XX
	p.after5XX = !p.before5XX && b < fl.After5XX
	p.dropAfter = !p.before5XX && !p.after5XX && c < fl.DropAfter
	return p
}

func (f *faults) clockOffset() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cfg.ClockOffset
}
