package strategy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

// RuleProtection refuses a buy in a symbol a protection has locked.
const RuleProtection = "protection"

// The protections, as a lock names them.
const (
	LockCooldown      = "cooldown"
	LockStopLossGuard = "stoploss_guard"
	LockMaxDrawdown   = "max_drawdown"
	LockLowProfit     = "low_profit"
)

// Protections lock an instance's symbol (its buys are refused; sells and
// exits go on) after losses, judged on the instance's closed trades in
// that symbol. Each is off while its lock duration is zero.
type Protections struct {
	// Cooldown locks the symbol this long after a stop-out (a stop_loss
	// or trailing_stop exit).
	Cooldown time.Duration `koanf:"cooldown" json:"cooldown,omitempty"`
	// StopLossGuard locks the symbol for Lock once Stops stop-outs closed
	// within Window.
	StopLossGuard StopLossGuard `koanf:"stoploss_guard" json:"stoploss_guard,omitzero"`
	// MaxDrawdown locks the symbol for Lock when the running sum of the
	// returns of the trades closed within Window has fallen Percent
	// percentage points below its peak.
	MaxDrawdown DrawdownLock `koanf:"max_drawdown" json:"max_drawdown,omitzero"`
	// LowProfit locks the symbol for Lock when at least Trades trades
	// closed within Window and their returns sum to less than Percent.
	LowProfit LowProfitLock `koanf:"low_profit" json:"low_profit,omitzero"`
}

// StopLossGuard is Protections.StopLossGuard.
type StopLossGuard struct {
	Stops  int           `koanf:"stops" json:"stops"`
	Window time.Duration `koanf:"window" json:"window"`
	Lock   time.Duration `koanf:"lock" json:"lock"`
}

// DrawdownLock is Protections.MaxDrawdown.
type DrawdownLock struct {
	Percent decimal.Decimal `koanf:"percent" json:"percent"`
	Window  time.Duration   `koanf:"window" json:"window"`
	Lock    time.Duration   `koanf:"lock" json:"lock"`
}

// LowProfitLock is Protections.LowProfit.
type LowProfitLock struct {
	Trades  int             `koanf:"trades" json:"trades"`
	Percent decimal.Decimal `koanf:"percent" json:"percent"`
	Window  time.Duration   `koanf:"window" json:"window"`
	Lock    time.Duration   `koanf:"lock" json:"lock"`
}

// Validate checks the protections, naming the field.
func (p Protections) Validate() error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("protections.%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if p.Cooldown < 0 {
		add("cooldown", "%s must not be negative", p.Cooldown)
	}
	if g := p.StopLossGuard; g.Lock != 0 || g.Stops != 0 || g.Window != 0 {
		if g.Stops < 1 {
			add("stoploss_guard.stops", "%d must be at least 1", g.Stops)
		}
		if g.Window <= 0 {
			add("stoploss_guard.window", "must be a positive duration")
		}
		if g.Lock <= 0 {
			add("stoploss_guard.lock", "must be a positive duration")
		}
	}
	if d := p.MaxDrawdown; d.Lock != 0 || d.Window != 0 || !d.Percent.IsZero() {
		if !d.Percent.IsPositive() {
			add("max_drawdown.percent", "%s must be above zero", d.Percent)
		}
		if d.Window <= 0 {
			add("max_drawdown.window", "must be a positive duration")
		}
		if d.Lock <= 0 {
			add("max_drawdown.lock", "must be a positive duration")
		}
	}
	if l := p.LowProfit; l.Lock != 0 || l.Window != 0 || l.Trades != 0 || !l.Percent.IsZero() {
		if l.Trades < 1 {
			add("low_profit.trades", "%d must be at least 1", l.Trades)
		}
		if l.Window <= 0 {
			add("low_profit.window", "must be a positive duration")
		}
		if l.Lock <= 0 {
			add("low_profit.lock", "must be a positive duration")
		}
	}
	return errors.Join(errs...)
}

func (p Protections) set() bool {
	return p.Cooldown > 0 || p.StopLossGuard.Lock > 0 || p.MaxDrawdown.Lock > 0 || p.LowProfit.Lock > 0
}

// Lock is a symbol locked for an instance by a protection.
type Lock struct {
	Instance string
	Symbol   string
	Reason   string // LockCooldown, LockStopLossGuard, ...
	From     time.Time
	Until    time.Time
}

// LockRecorder records protection locks (the store does).
type LockRecorder interface {
	RecordLock(ctx context.Context, l Lock) error
}

// closedTrade is one of an instance's round trips in a symbol.
type closedTrade struct {
	at        time.Time
	reason    string
	returnPct decimal.Decimal // profit over cost, in percent
}

// instProtect is an instance's protections and their state.
type instProtect struct {
	rules  Protections
	open   map[string]*exitPos // positions followed when the instance has no exits
	trades map[string][]closedTrade
	locks  map[string]Lock // the latest lock by symbol
}

func (r *Runtime) setupProtections(in *instance) error {
	if in.cfg.Protections == nil || !in.cfg.Protections.set() {
		return nil
	}
	in.protect = &instProtect{rules: *in.cfg.Protections, open: map[string]*exitPos{},
		trades: map[string][]closedTrade{}, locks: map[string]Lock{}}
	return nil
}

// closed records a round trip that ended at a sell at time at, and locks
// the symbol when a protection says so.
func (in *instance) closed(symbol string, p *exitPos, profit decimal.Decimal, reason string, at time.Time) {
	pr := in.protect
	if pr == nil {
		return
	}
	ret := decimal.Zero
	if p.cost.IsPositive() {
		ret = profit.Shift(2).DivRound(p.cost, 8)
	}
	ts := append(pr.trades[symbol], closedTrade{at: at, reason: reason, returnPct: ret})
	// Only the longest window is needed.
	keep := max(pr.rules.StopLossGuard.Window, pr.rules.MaxDrawdown.Window, pr.rules.LowProfit.Window)
	for len(ts) > 0 && at.Sub(ts[0].at) > keep {
		ts = ts[1:]
	}
	pr.trades[symbol] = ts
	stopOut := reason == ExitStopLoss || reason == ExitTrailingStop
	if d := pr.rules.Cooldown; d > 0 && stopOut {
		in.lock(symbol, LockCooldown, at, d)
	}
	if g := pr.rules.StopLossGuard; g.Lock > 0 && stopOut {
		n := 0
		for _, t := range within(ts, at, g.Window) {
			if t.reason == ExitStopLoss || t.reason == ExitTrailingStop {
				n++
			}
		}
		if n >= g.Stops {
			in.lock(symbol, LockStopLossGuard, at, g.Lock)
		}
	}
	if d := pr.rules.MaxDrawdown; d.Lock > 0 {
		var sum, peak decimal.Decimal
		for _, t := range within(ts, at, d.Window) {
			sum = sum.Add(t.returnPct)
			if sum.GreaterThan(peak) {
				peak = sum
			}
		}
		if peak.Sub(sum).GreaterThanOrEqual(d.Percent) {
			in.lock(symbol, LockMaxDrawdown, at, d.Lock)
		}
	}
	if l := pr.rules.LowProfit; l.Lock > 0 {
		w := within(ts, at, l.Window)
		var sum decimal.Decimal
		for _, t := range w {
			sum = sum.Add(t.returnPct)
		}
		if len(w) >= l.Trades && sum.LessThan(l.Percent) {
			in.lock(symbol, LockLowProfit, at, l.Lock)
		}
	}
}

// within is the trades closed in the window ending at at.
func within(ts []closedTrade, at time.Time, window time.Duration) []closedTrade {
	i := sort.Search(len(ts), func(i int) bool { return at.Sub(ts[i].at) <= window })
	return ts[i:]
}

// lock locks symbol for d from at, unless a lock already runs longer,
// and records it.
func (in *instance) lock(symbol, reason string, at time.Time, d time.Duration) {
	pr := in.protect
	l := Lock{Instance: in.id, Symbol: symbol, Reason: reason, From: at, Until: at.Add(d)}
	if cur, ok := pr.locks[symbol]; ok && !cur.Until.Before(l.Until) {
		return
	}
	pr.locks[symbol] = l
	in.rt.stats.Locks++
	in.log.Warn("symbol locked", slog.String("symbol", symbol), slog.String("protection", reason),
		slog.Time("until", l.Until))
	if rec := in.rt.opts.Locks; rec != nil {
		if err := rec.RecordLock(in.rt.ctx, l); err != nil {
			in.log.Error("recording lock failed", slog.Any("err", err))
		}
	}
}

// locked refuses a buy in a symbol the instance has locked.
func (in *instance) locked(o exchange.NewOrder) error {
	if in.protect == nil || o.Side != exchange.SideBuy {
		return nil
	}
	l, ok := in.protect.locks[o.Symbol]
	if !ok || !in.rt.opts.Clock.Now().Before(l.Until) {
		return nil
	}
	return &risk.Rejection{Rule: RuleProtection, Reason: fmt.Sprintf("%s is locked for %s by %s until %s", o.Symbol, in.id, l.Reason,
		l.Until.UTC().Format(time.RFC3339))}
}

// Locks returns the protection locks in force at now, by instance (in the
// order instances were added) and symbol.
func (r *Runtime) Locks(now time.Time) []Lock {
	var out []Lock
	for _, in := range r.insts {
		if in.protect == nil {
			continue
		}
		var ls []Lock
		for _, l := range in.protect.locks {
			if now.Before(l.Until) {
				ls = append(ls, l)
			}
		}
		sort.Slice(ls, func(i, j int) bool { return ls[i].Symbol < ls[j].Symbol })
		out = append(out, ls...)
	}
	return out
}
