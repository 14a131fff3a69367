package obs

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Checker is one readiness check: Check returns nil when the condition
// holds, else an error saying what is wrong. The error text is served on
// /readyz, so it must hold no secret (the project's errors never do).
type Checker struct {
	Name  string
	Check func(ctx context.Context) error
}

// Check is the outcome of one readiness check, as /readyz reports it.
type Check struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// ServerTimer is the part of the trading port that proves the exchange
// answers: exchange.Trader has it.
type ServerTimer interface {
	ServerTime(ctx context.Context) (time.Time, error)
}

// ExchangeReachable is the "exchange" check: the exchange answers a
// server-time request (one unit of IP weight).
func ExchangeReachable(t ServerTimer) Checker {
	return Checker{Name: "exchange", Check: func(ctx context.Context) error {
		if _, err := t.ServerTime(ctx); err != nil {
			return fmt.Errorf("server time: %w", err)
		}
		return nil
	}}
}

// NotBanned fails check at once, without a request, while the exchange
// bans the bot's address (HTTP 418): until reports the ban's end, zero
// when none (daemon.Status.BannedUntil). A request would only wait for the
// ban's end in the client's budget.
func NotBanned(until func() time.Time, check Checker) Checker {
	return Checker{Name: check.Name, Check: func(ctx context.Context) error {
		if t := until(); !t.IsZero() {
			return fmt.Errorf("the exchange banned this IP (HTTP 418) until %s", t.UTC().Format(time.RFC3339))
		}
		return check.Check(ctx)
	}}
}

// ClockWithin is the "clock" check: the last measured clock offset is
// within max. synced reports the offset and when it was measured (zero
// when never); daemon.Status carries both.
func ClockWithin(max time.Duration, synced func() (offset time.Duration, at time.Time)) Checker {
	return Checker{Name: "clock", Check: func(context.Context) error {
		off, at := synced()
		if at.IsZero() {
			return errors.New("clock not synced with the exchange yet")
		}
		if off > max || off < -max {
			return fmt.Errorf("clock offset %s is beyond %s", off, max)
		}
		return nil
	}}
}

// StoreWritable is the "store" check: write proves the store accepts a
// write (for example a transaction that is rolled back).
func StoreWritable(write func(ctx context.Context) error) Checker {
	return Checker{Name: "store", Check: write}
}
