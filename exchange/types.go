package exchange

import (
	"fmt"
	"time"
)

// Side is an order side.
type Side string

// Order sides.
const (
	SideBuy  Side = "BUY"
	SideSell Side = "SELL"
)

// Valid reports whether s is BUY or SELL.
func (s Side) Valid() bool { return s == SideBuy || s == SideSell }

// Opposite returns the other side.
func (s Side) Opposite() Side {
	if s == SideBuy {
		return SideSell
	}
	return SideBuy
}

// OrderType is an order type; the type carries the time in force.
type OrderType string

// Order types.
const (
	TypeLimit             OrderType = "LIMIT"
	TypeMarket            OrderType = "MARKET"
	TypeLimitMaker        OrderType = "LIMIT_MAKER"
	TypeImmediateOrCancel OrderType = "IMMEDIATE_OR_CANCEL"
	TypeFillOrKill        OrderType = "FILL_OR_KILL"
)

// Valid reports whether t is one of the five order types.
func (t OrderType) Valid() bool {
	switch t {
	case TypeLimit, TypeMarket, TypeLimitMaker, TypeImmediateOrCancel, TypeFillOrKill:
		return true
	}
	return false
}

// HasPrice reports whether orders of this type carry a limit price.
func (t OrderType) HasPrice() bool { return t.Valid() && t != TypeMarket }

// TimeInForce is the time in force the type carries, as an order reply
// states it (the facts file: clients read it, or derive it from the type
// when it is null): GTC for LIMIT, IOC for IMMEDIATE_OR_CANCEL and for
// MARKET (it takes what it can now and the rest is cancelled), FOK for
// FILL_OR_KILL and POST_ONLY for LIMIT_MAKER, the value the most widely
// used client derives from that type. Empty for an invalid type.
func (t OrderType) TimeInForce() string {
	switch t {
	case TypeLimit:
		return "GTC"
	case TypeMarket, TypeImmediateOrCancel:
		return "IOC"
	case TypeFillOrKill:
		return "FOK"
	case TypeLimitMaker:
		return "POST_ONLY"
	}
	return ""
}

// OrderStatus is an order's state.
type OrderStatus string

// Order statuses. There are no others.
const (
	StatusNew               OrderStatus = "NEW"
	StatusPartiallyFilled   OrderStatus = "PARTIALLY_FILLED"
	StatusFilled            OrderStatus = "FILLED"
	StatusCanceled          OrderStatus = "CANCELED"
	StatusPartiallyCanceled OrderStatus = "PARTIALLY_CANCELED"
)

// Final reports whether no further change can happen to an order in s.
func (s OrderStatus) Final() bool {
	return s == StatusFilled || s == StatusCanceled || s == StatusPartiallyCanceled
}

// Rank orders statuses along their only direction of travel: NEW, then
// PARTIALLY_FILLED, then a final status. Unknown statuses rank 0.
func (s OrderStatus) Rank() int {
	switch s {
	case StatusNew:
		return 1
	case StatusPartiallyFilled:
		return 2
	case StatusFilled, StatusCanceled, StatusPartiallyCanceled:
		return 3
	}
	return 0
}

// STPMode is a self-trade prevention mode. The empty mode means none.
type STPMode string

// Self-trade prevention modes.
const (
	STPNone        STPMode = ""
	STPCancelMaker STPMode = "cancel_maker"
	STPCancelTaker STPMode = "cancel_taker"
	STPCancelBoth  STPMode = "cancel_both"
)

// Valid reports whether m is one of the four modes.
func (m STPMode) Valid() bool {
	switch m {
	case STPNone, STPCancelMaker, STPCancelTaker, STPCancelBoth:
		return true
	}
	return false
}

// CancelReasonSTP marks an order cancelled by self-trade prevention.
const CancelReasonSTP = "stp_cancel"

// Interval is a kline interval as the wire names it.
type Interval string

// Kline intervals. There is no 1h (it is 60m) and no 8h.
const (
	Interval1m  Interval = "1m"
	Interval5m  Interval = "5m"
	Interval15m Interval = "15m"
	Interval30m Interval = "30m"
	Interval60m Interval = "60m"
	Interval4h  Interval = "4h"
	Interval1d  Interval = "1d"
	Interval1W  Interval = "1W"
	Interval1M  Interval = "1M"
)

// Intervals lists every interval, shortest first.
func Intervals() []Interval {
	return []Interval{Interval1m, Interval5m, Interval15m, Interval30m, Interval60m, Interval4h, Interval1d, Interval1W, Interval1M}
}

// ParseInterval parses a user-facing interval; "1h" is accepted as 60m.
func ParseInterval(s string) (Interval, error) {
	if s == "1h" {
		return Interval60m, nil
	}
	for _, iv := range Intervals() {
		if string(iv) == s {
			return iv, nil
		}
	}
	return "", fmt.Errorf("unknown interval %q (known: 1m 5m 15m 30m 60m (or 1h) 4h 1d 1W 1M)", s)
}

// Valid reports whether iv is a wire interval.
func (iv Interval) Valid() bool {
	_, err := ParseInterval(string(iv))
	return err == nil && iv != "1h"
}

// Duration returns the fixed length of iv; 1M (a calendar month) returns 0.
func (iv Interval) Duration() time.Duration {
	switch iv {
	case Interval1m:
		return time.Minute
	case Interval5m:
		return 5 * time.Minute
	case Interval15m:
		return 15 * time.Minute
	case Interval30m:
		return 30 * time.Minute
	case Interval60m:
		return time.Hour
	case Interval4h:
		return 4 * time.Hour
	case Interval1d:
		return 24 * time.Hour
	case Interval1W:
		return 7 * 24 * time.Hour
	}
	return 0
}

// Next returns the open time of the bar after the one opening at open,
// which is also that bar's close time.
func (iv Interval) Next(open time.Time) time.Time {
	if iv == Interval1M {
		return open.AddDate(0, 1, 0)
	}
	return open.Add(iv.Duration())
}

// Truncate returns the open time of the bar containing t (UTC; weeks start
// on Monday, months on the 1st).
func (iv Interval) Truncate(t time.Time) time.Time {
	t = t.UTC()
	switch iv {
	case Interval1M:
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case Interval1W:
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		wd := (int(d.Weekday()) + 6) % 7 // Monday = 0
		return d.AddDate(0, 0, -wd)
	}
	return t.Truncate(iv.Duration())
}
