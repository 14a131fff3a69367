package session

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/strategy"
)

// Options assemble a session's runtime: the strategy instances over a
// trading port, through a risk gate, recorded in a journal.
type Options struct {
	Instances []strategy.Config
	Registry  *strategy.Registry
	// Port is the trading port; Events its order events, when it
	// reports them (the simulator's port), passed on to the runtime.
	Port   exchange.Trader
	Events exchange.EventSource
	// Balances is the port's cheap balance read, when it has one (the
	// simulator's), passed on to the runtime.
	Balances strategy.BalanceReader
	// Journal records orders, fills, state and runs.
	Journal strategy.Journal
	// Clock is the runtime's clock: simulated time, or the wall clock.
	Clock  strategy.Clock
	Logger *slog.Logger
	// Risk are the portfolio limits; Gate adds the gate's options (a
	// live session waits on the client's rate budget).
	Risk risk.Limits
	Gate []risk.Option
	// Fill is the simulated exchange's fill model when Port is the
	// simulator (zero for a live exchange). The gate checks a buy's funds
	// as the simulator locks them: with QuoteFees (sim.fee_asset: quote)
	// it counts the buy's fee too (risk.WithQuoteFees).
	Fill Fill
	// Quote is the asset equity is measured in; the runtime values the
	// account only when a limit needs it (the kill switch).
	Quote string
	// BaseInterval is the interval bars are fed at (replays and jobs);
	// empty when every feed is polled at its own interval.
	BaseInterval exchange.Interval
	// MergeGaps builds higher intervals across missing base bars
	// (data.resample_gaps: merge; config.Data.MergeGaps).
	MergeGaps bool
	// ScheduleGrace is how late a schedule occurrence may be seen and
	// still run (the time between wake-ups).
	ScheduleGrace time.Duration
	// Locks records the protections' locks (the store, or a backtest's
	// memory journal); nil records none.
	Locks strategy.LockRecorder
}

// NewRuntime builds the risk gate and the runtime, and adds every
// instance built through the registry. Errors name the instance as
// strategies[i].
func NewRuntime(o Options) (*strategy.Runtime, *risk.Gate, error) {
	if o.Registry == nil {
		return nil, nil, errors.New("a strategy registry is required")
	}
	gate, err := risk.New(o.Risk, append(slices.Clip(o.Gate), o.Fill.gateOptions()...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("risk: %w", err)
	}
	valuation := ""
	if o.Risk.MaxDrawdown.IsPositive() || o.Risk.MaxDailyLoss.IsPositive() {
		valuation = o.Quote
	}
	rt, err := strategy.New(strategy.Options{Trader: o.Port, Events: o.Events, Balances: o.Balances, Gate: gate, Journal: o.Journal, Clock: o.Clock,
		Logger: o.Logger, BaseInterval: o.BaseInterval, MergeGaps: o.MergeGaps, Valuation: valuation, ScheduleGrace: o.ScheduleGrace, Locks: o.Locks})
	if err != nil {
		return nil, nil, err
	}
	for i, cfg := range o.Instances {
		st, err := o.Registry.New(cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("strategies[%d]: %w", i, err)
		}
		if err := rt.Add(cfg, st); err != nil {
			return nil, nil, fmt.Errorf("strategies[%d]: %w", i, err)
		}
	}
	return rt, gate, nil
}

// SimClock is a simulated session's clock: the time of the step being
// handled, set by the Loop. It is read and set by the loop's goroutine
// alone (a backtest reads it at every order); a session that reads it from
// other goroutines too wraps it (the daemon's paper-replay logs).
type SimClock struct{ t time.Time }

// NewSimClock returns a clock at t.
func NewSimClock(t time.Time) *SimClock { return &SimClock{t: t} }

// Now implements strategy.Clock.
func (c *SimClock) Now() time.Time { return c.t }

// Set moves the clock.
func (c *SimClock) Set(t time.Time) { c.t = t }
