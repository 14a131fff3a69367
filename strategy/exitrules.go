package strategy

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// The reasons a position was closed, as the store, trades.csv and the
// reports record them. ExitSignal is every sell the strategy placed itself.
const (
	ExitStopLoss     = "stop_loss"
	ExitTakeProfit   = "take_profit"
	ExitTrailingStop = "trailing_stop"
	ExitMaxHold      = "max_hold"
	ExitSignal       = "signal"
)

// Intrabar paths: the order in which a bar's prices are assumed to have
// traded when the runtime checks exits against a bar.
const (
	// PathDirection walks open-low-high-close when the bar closed at or
	// above its open, open-high-low-close when it closed below (default).
	PathDirection = "direction"
	PathOLHC      = "olhc"
	PathOHLC      = "ohlc"
)

// Exits are the position exits the runtime emulates for an instance (the
// exchange has no stop orders). A strategy declares them in code with
// Exiter; an instance's `exits:` block in the configuration replaces the
// code's declaration. Every level is measured from the entry price: the
// volume-weighted price of the buys since the position was last flat.
type Exits struct {
	// StopLoss sells when the price falls to the level: a percent below
	// the entry ("2%"), an absolute price ("95") or a multiple of the
	// ATR below the entry ("3atr").
	StopLoss Level `koanf:"stop_loss" json:"stop_loss,omitzero"`
	// TakeProfit sells when the price rises to the level (above the entry).
	TakeProfit Level `koanf:"take_profit" json:"take_profit,omitzero"`
	// TrailingStop follows the highest price since entry.
	TrailingStop Trailing `koanf:"trailing_stop" json:"trailing_stop,omitzero"`
	// MaxHold sells a position held this long.
	MaxHold time.Duration `koanf:"max_hold" json:"max_hold,omitempty"`
	// BreakEven moves the stop-loss up to the entry price once the price
	// has reached this level above the entry.
	BreakEven Level `koanf:"break_even" json:"break_even,omitzero"`
	// ATRPeriod is the period of the ATR (Wilder's, on the instance's own
	// bars) that "atr" levels multiply; default 14.
	ATRPeriod int `koanf:"atr_period" json:"atr_period,omitempty"`
	// IntrabarPath is how a bar is walked: direction (default), olhc or
	// ohlc.
	IntrabarPath string `koanf:"intrabar_path" json:"intrabar_path,omitempty"`
	// TimeframeDetail checks exits on bars of this finer interval instead
	// of the instance's own, so a bar that reached both the stop and the
	// target is resolved by which came first (e.g. 1m under 1h).
	TimeframeDetail string `koanf:"timeframe_detail" json:"timeframe_detail,omitempty"`
	// Order is the exit's order: market (default) or limit, a marketable
	// IMMEDIATE_OR_CANCEL limit sell priced LimitOffset below the last
	// price, so an exit never sells below a known price: what the next
	// open does not reach is cancelled and the next check tries again.
	Order string `koanf:"order" json:"order,omitempty"`
	// LimitOffset is how far below the last price a limit exit is
	// priced: a percent of it ("0.5%") or an amount of the quote asset
	// ("0.25"); default 0, at the last price.
	LimitOffset Level `koanf:"limit_offset" json:"limit_offset,omitzero"`
}

// The words of Exits.Order.
const (
	ExitOrderMarket = "market"
	ExitOrderLimit  = "limit"
)

// Trailing is a trailing stop: once the price has reached Activation
// above the entry (at once when Activation is not set), the stop follows
// the highest price since entry at Distance below it.
type Trailing struct {
	Activation Level `koanf:"activation" json:"activation,omitzero"`
	// Distance below the highest price: a percent of it ("1%"), an
	// amount of the quote asset ("150") or a multiple of the ATR.
	Distance Level `koanf:"distance" json:"distance,omitzero"`
}

// Exiter is implemented by strategies that declare their exits in code.
type Exiter interface {
	Exits() Exits
}

// Set reports whether any exit is configured.
func (e Exits) Set() bool {
	return !e.StopLoss.IsZero() || !e.TakeProfit.IsZero() || !e.TrailingStop.Distance.IsZero() ||
		e.MaxHold > 0 || !e.BreakEven.IsZero()
}

// Detail returns the interval exits are checked on, given the instance's.
func (e Exits) Detail(own exchange.Interval) (exchange.Interval, error) {
	if e.TimeframeDetail == "" {
		return own, nil
	}
	iv, err := exchange.ParseInterval(e.TimeframeDetail)
	if err != nil {
		return "", fmt.Errorf("exits.timeframe_detail: %w", err)
	}
	if own != "" && iv.Duration() >= own.Duration() {
		return "", fmt.Errorf("exits.timeframe_detail: %s must be finer than the instance's interval %s", iv, own)
	}
	return iv, nil
}

// Validate checks the exits, naming the field.
func (e Exits) Validate() error {
	var errs []error
	for _, f := range []struct {
		path string
		l    Level
	}{{"stop_loss", e.StopLoss}, {"take_profit", e.TakeProfit}, {"break_even", e.BreakEven},
		{"trailing_stop.activation", e.TrailingStop.Activation}, {"trailing_stop.distance", e.TrailingStop.Distance}} {
		if f.l.IsZero() {
			continue
		}
		if !f.l.Value.IsPositive() && !(f.path == "trailing_stop.activation" && f.l.Kind == LevelPercent) {
			errs = append(errs, fmt.Errorf("exits.%s: %s must be above zero", f.path, f.l))
		}
		if f.path == "stop_loss" && f.l.Kind == LevelPercent && f.l.Value.GreaterThanOrEqual(decimal.NewFromInt(100)) {
			errs = append(errs, fmt.Errorf("exits.stop_loss: %s must be below 100%%", f.l))
		}
		if f.path == "trailing_stop.distance" && f.l.Kind == LevelPercent && f.l.Value.GreaterThanOrEqual(decimal.NewFromInt(100)) {
			errs = append(errs, fmt.Errorf("exits.trailing_stop.distance: %s must be below 100%%", f.l))
		}
	}
	if !e.TrailingStop.Activation.IsZero() && e.TrailingStop.Distance.IsZero() {
		errs = append(errs, errors.New("exits.trailing_stop.distance: required with an activation"))
	}
	if e.MaxHold < 0 {
		errs = append(errs, fmt.Errorf("exits.max_hold: %s must not be negative", e.MaxHold))
	}
	if e.ATRPeriod < 0 {
		errs = append(errs, fmt.Errorf("exits.atr_period: %d must not be negative", e.ATRPeriod))
	}
	switch e.IntrabarPath {
	case "", PathDirection, PathOLHC, PathOHLC:
	default:
		errs = append(errs, fmt.Errorf("exits.intrabar_path: %q must be %s, %s or %s", e.IntrabarPath, PathDirection, PathOLHC, PathOHLC))
	}
	if _, err := e.Detail(""); err != nil {
		errs = append(errs, err)
	}
	switch e.Order {
	case "", ExitOrderMarket:
		if !e.LimitOffset.IsZero() {
			errs = append(errs, errors.New("exits.limit_offset: only with order: limit"))
		}
	case ExitOrderLimit:
		switch o := e.LimitOffset; {
		case o.Kind == LevelATR:
			errs = append(errs, fmt.Errorf("exits.limit_offset: %s must be a percent of the last price or an amount", o))
		case o.Value.IsNegative():
			errs = append(errs, fmt.Errorf("exits.limit_offset: %s must not be negative", o))
		case o.Kind == LevelPercent && o.Value.GreaterThanOrEqual(decimal.NewFromInt(100)):
			errs = append(errs, fmt.Errorf("exits.limit_offset: %s must be below 100%%", o))
		}
	default:
		errs = append(errs, fmt.Errorf("exits.order: %q must be %s or %s", e.Order, ExitOrderMarket, ExitOrderLimit))
	}
	return errors.Join(errs...)
}

// usesATR reports whether a level is an ATR multiple.
func (e Exits) usesATR() bool {
	for _, l := range []Level{e.StopLoss, e.TakeProfit, e.BreakEven, e.TrailingStop.Activation, e.TrailingStop.Distance} {
		if l.Kind == LevelATR {
			return true
		}
	}
	return false
}

// LevelKind says how a Level's value is read.
type LevelKind uint8

// Level kinds.
const (
	LevelNone    LevelKind = iota
	LevelPercent           // a percent of the entry (or, for a trailing distance, of the highest price)
	LevelPrice             // an absolute price (for a trailing distance: an amount of the quote asset)
	LevelATR               // a multiple of the ATR
)

// Level is an exit level as written: "2%", "95" or "3atr".
type Level struct {
	Kind  LevelKind
	Value decimal.Decimal
}

// IsZero reports whether the level is not set.
func (l Level) IsZero() bool { return l.Kind == LevelNone }

// ParseLevel reads "2%" (percent), "3atr" (ATR multiple) or "95" (price).
func ParseLevel(s string) (Level, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	kind := LevelPrice
	switch {
	case t == "":
		return Level{}, nil
	case strings.HasSuffix(t, "%"):
		kind, t = LevelPercent, strings.TrimSpace(strings.TrimSuffix(t, "%"))
	case strings.HasSuffix(t, "atr"):
		kind, t = LevelATR, strings.TrimSpace(strings.TrimSuffix(t, "atr"))
	}
	v, err := decimal.NewFromString(t)
	if err != nil {
		return Level{}, errNotLevel
	}
	return Level{Kind: kind, Value: v}, nil
}

var errNotLevel = errors.New(`is not an exit level (such as "2%", "95" or "3atr")`)

// String writes the level as ParseLevel reads it.
func (l Level) String() string {
	switch l.Kind {
	case LevelPercent:
		return l.Value.String() + "%"
	case LevelATR:
		return l.Value.String() + "atr"
	case LevelPrice:
		return l.Value.String()
	}
	return ""
}

// MarshalText writes the level as text (reports show instances as JSON).
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// above is the level's price above base (a target, an activation).
func (l Level) above(base, atr decimal.Decimal) decimal.Decimal {
	switch l.Kind {
	case LevelPercent:
		return base.Add(base.Mul(l.Value).Shift(-2))
	case LevelATR:
		return base.Add(atr.Mul(l.Value))
	}
	return l.Value
}

// below is the level's price below base (a stop, a trailing distance
// from the highest price, where a price level is an amount).
func (l Level) below(base, atr decimal.Decimal, amount bool) decimal.Decimal {
	switch l.Kind {
	case LevelPercent:
		return base.Sub(base.Mul(l.Value).Shift(-2))
	case LevelATR:
		return base.Sub(atr.Mul(l.Value))
	}
	if amount {
		return base.Sub(l.Value)
	}
	return l.Value
}
