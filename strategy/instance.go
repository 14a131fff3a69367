package strategy

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// ErrWarmingUp refuses orders placed while warm-up history is delivered.
var ErrWarmingUp = errors.New("strategy: orders are refused during warm-up")

// ErrStopped refuses calls from an instance that was stopped.
var ErrStopped = errors.New("strategy: instance stopped")

// instance is one running strategy; it is the Context its strategy sees.
type instance struct {
	rt        *Runtime
	id        string
	cfg       Config
	s         Strategy
	fills     FillHandler
	updates   OrderHandler
	skipper   Skipper // the strategy's fast path; nil without
	skipping  bool    // inside Skip: orders are refused
	feeds     []Feed
	schedules []*schedule
	positions map[string]*heldPos
	// posSym's position is posLast (nil when none is remembered): the
	// symbol read or filled last, found again without the map (held).
	posSym  string
	posLast *heldPos
	log     *slog.Logger
	warming bool
	paused  bool // by the operator: new orders refused (RulePaused)
	stopped error
	dirty   bool // state may have changed: save after the event
	// runOrders collects the client order ids placed during a schedule
	// run (non-nil only then), for the run's record.
	runOrders []string
	// exits and protect are the instance's emulated exits and
	// protections; nil when none are configured.
	exits   *instExits
	protect *instProtect
}

var _ Context = (*instance)(nil)

// onKline delivers a bar, stopping the instance on an error or panic.
func (in *instance) onKline(bar *Bar) {
	if in.stopped != nil {
		return
	}
	defer in.recoverPanic()
	if err := in.s.OnKline(in, *bar); err != nil {
		in.stop(fmt.Errorf("OnKline %s %s %s: %w", bar.Symbol, bar.Interval, bar.OpenTime.UTC().Format(time.RFC3339), err))
		return
	}
	if in.dirty {
		in.saveState()
	}
}

// call runs f for the instance, stopping it on an error or panic.
func (in *instance) call(f func() error) {
	if in.stopped != nil {
		return
	}
	defer in.recoverPanic()
	if err := f(); err != nil {
		in.stop(err)
		return
	}
	if in.dirty {
		in.saveState()
	}
}

func (in *instance) recoverPanic() {
	if p := recover(); p != nil {
		in.stop(fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
	}
}

func (in *instance) stop(err error) {
	in.stopped = err
	in.rt.stats.Stopped++
	in.log.Error("strategy instance stopped", slog.Any("err", err))
}

func (in *instance) saveState() {
	in.dirty = false
	st, ok := in.s.(Stateful)
	if !ok {
		return
	}
	data, err := st.MarshalState()
	if err == nil {
		err = in.rt.opts.Journal.SaveState(in.rt.ctx, in.id, data)
	}
	if err != nil {
		in.log.Error("saving strategy state failed", slog.Any("err", err))
	}
}

func (in *instance) ID() string        { return in.id }
func (in *instance) Now() time.Time    { return in.rt.opts.Clock.Now() }
func (in *instance) Log() *slog.Logger { return in.log }
func (in *instance) WarmingUp() bool   { return in.warming }
func (in *instance) LastPrice(symbol string) decimal.Decimal {
	p, _ := in.rt.lastPrice(symbol)
	return p
}

func (in *instance) Balance(asset string) exchange.Balance { return in.rt.balance(asset) }

func (in *instance) Position(symbol string) Position {
	if h := in.held(symbol); h != nil {
		return h.position()
	}
	return Position{Symbol: symbol}
}

func (in *instance) Rules(symbol string) (*exchange.SymbolInfo, error) {
	info, ok := in.rt.rule(symbol)
	if !ok {
		return nil, fmt.Errorf("strategy: unknown symbol %q", symbol)
	}
	return info, nil
}

func (in *instance) Klines(symbol string, iv exchange.Interval, n int) []exchange.Kline {
	st := in.rt.feeds[Feed{Symbol: symbol, Interval: iv}]
	if st == nil {
		return nil
	}
	return st.hist.recent(n)
}

func (in *instance) DustCandidates() ([]exchange.DustCandidate, error) {
	return in.rt.opts.Trader.DustCandidates(in.rt.ctx)
}

func (in *instance) ConvertDust(assets []string) (exchange.DustResult, error) {
	res, err := in.rt.opts.Trader.ConvertDust(in.rt.ctx, assets)
	if err == nil {
		in.rt.stale = true
	}
	return res, err
}

func (in *instance) OpenOrders(symbol string) []Order {
	var out []Order
	for _, t := range in.rt.open {
		if t.inst == in && (symbol == "" || t.order.Symbol == symbol) {
			out = append(out, t.order)
		}
	}
	return out
}

// position returns the instance's position in symbol, creating it.
func (in *instance) position(symbol string) *heldPos {
	h := in.held(symbol)
	if h == nil {
		h = &heldPos{pos: Position{Symbol: symbol}}
		in.positions[symbol] = h
		in.posSym, in.posLast = symbol, h
	}
	return h
}

// held returns the instance's position in symbol, or nil when it has
// none. Positions are never removed, so the one remembered stays valid.
func (in *instance) held(symbol string) *heldPos {
	if in.posLast != nil && in.posSym == symbol {
		return in.posLast
	}
	h := in.positions[symbol]
	if h != nil {
		in.posSym, in.posLast = symbol, h
	}
	return h
}
