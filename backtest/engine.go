package backtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// Spec is one backtest: the strategy instances, the bars they run over, the
// starting account and the fill model.
type Spec struct {
	// Instances are the strategy instances, built through Registry.
	Instances []strategy.Config
	Registry  *strategy.Registry
	// Interval is the interval of every series in Data; instances asking
	// for a higher interval get bars aggregated from it.
	Interval exchange.Interval
	// MergeGaps builds a higher interval's bar across missing bars of
	// Interval until one completes a period (data.resample_gaps: merge);
	// by default a gap closes the partial bar at the period's end.
	MergeGaps bool
	// Data holds each symbol's bars at Interval, as compact series
	// (marketdata.Series: 48 bytes a bar, no heap object per bar). They
	// are only read, so the runs of a sweep share one Data, and a
	// walk-forward's windows are cuts of it that share its columns; each
	// bar becomes an exchange.Kline only for the instant it is replayed.
	Data map[string]*marketdata.Series
	// Symbols are the symbols' rules; a symbol in Data without rules gets
	// DefaultRules.
	Symbols []exchange.SymbolInfo
	// Configured is the configuration's symbols section, from which
	// WithData builds Symbols.
	Configured []config.Symbol
	// Balances is the starting account.
	Balances map[string]decimal.Decimal
	// Quote is the asset equity is measured in (default USDT).
	Quote string
	// Fill is the fill model: when resting limits and market orders fill,
	// slippage and fee overrides.
	Fill FillModel
	// Risk are the portfolio limits of the risk gate.
	Risk risk.Limits
	// Logger receives the strategies' logs (discarded when nil).
	Logger *slog.Logger
	// Progress, when set, is called with the bars done and the total, at
	// most every 1/1000th of the run.
	Progress func(done, total int)
	// Stepwise turns off the strategies' fast path (strategy.Skipper),
	// delivering every bar through OnKline: the results are the same,
	// slower; for comparing the two.
	Stepwise bool
	// Equity, when set, is given equity.csv's rows while the run goes on
	// (EquityStream); a Sweep or WalkForward refuses it.
	Equity *EquityStream
}

// FillModel chooses how the simulated exchange fills orders; it is the
// session engine's fill model, built from the configuration's sim section
// by session.FillFromConfig. The zero value is the documented default
// (docs/fill-model.md).
type FillModel = session.Fill

// Fill is one execution in a backtest, with the strategy instance and
// client order id that caused it.
type Fill = strategy.JournalFill

// Result is what a backtest produced.
type Result struct {
	Metrics Metrics
	Curve   Curve
	// Exact is the exact equity of the first and last point and of each
	// new peak, by curve index.
	Exact map[int]decimal.Decimal
	// Exposure marks the curve points at which a position was held.
	Exposure Exposure
	Trades   []Trade
	Fills    Fills
	// Balances is the account at the end, as the simulated exchange holds it.
	Balances map[string]decimal.Decimal
	// BuyHold is each symbol's first and last close over the trading bars.
	BuyHold map[string][2]decimal.Decimal
	// Stopped lists instances stopped by an error, with the reason.
	Stopped []strategy.InstanceStatus
	// Locks are the protections' locks set during the run, in order.
	Locks []strategy.Lock
}

// Run runs a backtest. It is deterministic: the same Spec gives the same
// Result. Runs share nothing, so many may run in parallel.
func Run(ctx context.Context, s Spec) (res *Result, err error) {
	if s.Equity != nil {
		if s.Equity.done {
			return nil, errors.New("backtest: Spec.Equity has served a run already: a stream is for one run")
		}
		defer func() { s.Equity.end(err) }()
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	quote := s.Quote
	if quote == "" {
		quote = "USDT"
	}
	symbols := make([]string, 0, len(s.Data))
	for sym := range s.Data {
		symbols = append(symbols, sym)
	}
	sort.Strings(symbols)
	rules, err := s.rules(symbols)
	if err != nil {
		return nil, err
	}
	start := earliest(s.Data)
	x, err := session.NewSim(ctx, session.Venue{Fill: s.Fill, Start: start, Rules: rules, Balances: s.Balances,
		Retention: session.KeepRun, SingleDriver: true})
	if err != nil {
		return nil, fmt.Errorf("backtest: %w", err)
	}
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	clock := session.NewSimClock(start)
	j := strategy.NewMemoryJournal()
	// Time advances a bar at a time, so a schedule occurrence inside a bar
	// is first seen at the bar's close: it is on time, not missed.
	rt, _, err := session.NewRuntime(session.Options{Instances: s.Instances, Registry: s.Registry, Port: x.Master(),
		Events: x.Master(), Balances: x.Master(), Journal: j, Clock: clock, Logger: log, Risk: s.Risk, Fill: s.Fill, Quote: quote,
		BaseInterval: s.Interval, MergeGaps: s.MergeGaps, ScheduleGrace: s.Interval.Duration(), Locks: j})
	if err != nil {
		return nil, fmt.Errorf("backtest: %w", err)
	}
	for _, f := range rt.Feeds() {
		if _, ok := s.Data[f.Symbol]; !ok {
			return nil, fmt.Errorf("backtest: no data for symbol %s", f.Symbol)
		}
	}
	if err := rt.Start(ctx); err != nil {
		return nil, fmt.Errorf("backtest: %w", err)
	}
	d := &driver{s: &s, x: x, rt: rt, clock: clock, symbols: symbols, quote: quote, journal: j, rules: rules}
	return d.run(ctx)
}

func (s *Spec) check() error {
	switch {
	case len(s.Instances) == 0:
		return errors.New("backtest: no strategy instances")
	case s.Registry == nil:
		return errors.New("backtest: no strategy registry")
	case !s.Interval.Valid():
		return fmt.Errorf("backtest: interval %q is not valid", s.Interval)
	case len(s.Data) == 0:
		return errors.New("backtest: no data")
	}
	for sym, ks := range s.Data {
		switch {
		case ks == nil || ks.Len() == 0:
			return fmt.Errorf("backtest: no bars for %s", sym)
		case ks.Interval() != s.Interval:
			return fmt.Errorf("backtest: the %s bars are %s, not the run's interval %s", sym, ks.Interval(), s.Interval)
		}
	}
	for a, v := range s.Balances {
		if v.IsNegative() {
			return fmt.Errorf("backtest: account.balances.%s: %s is negative", a, v)
		}
	}
	return nil
}

// rules returns the rules of every symbol with data, configured or default.
func (s *Spec) rules(symbols []string) ([]exchange.SymbolInfo, error) {
	have := map[string]exchange.SymbolInfo{}
	for _, r := range s.Symbols {
		have[r.Symbol] = r
	}
	out := make([]exchange.SymbolInfo, 0, len(symbols))
	for _, sym := range symbols {
		r, ok := have[sym]
		if !ok {
			var err error
			if r, err = session.DefaultRules(sym, firstBar(s.Data[sym])); err != nil {
				return nil, err
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func earliest(data map[string]*marketdata.Series) time.Time {
	var t time.Time
	for _, ks := range data {
		if first, _ := ks.Range(); t.IsZero() || first.Before(t) {
			t = first
		}
	}
	return t
}

// firstBar is a series' first bar as a kline, for the rules that read the
// bars' decimals (session.DefaultRules, session.SymbolRules): every bar of
// a series carries its exponents, so the first says what all would.
func firstBar(s *marketdata.Series) []exchange.Kline {
	if s == nil || s.Len() == 0 {
		return nil
	}
	return []exchange.Kline{s.Kline(0)}
}

// Klines materialises a symbol's bars as klines (nil without data): for
// reports and callers that take klines; a run never does.
func (s *Spec) Klines(symbol string) []exchange.Kline {
	if ks := s.Data[symbol]; ks != nil {
		return ks.Klines()
	}
	return nil
}
