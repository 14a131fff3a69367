package config

import (
	"fmt"
	"time"
)

// What the daemon does with an order open on the exchange that the store
// does not know (placed by hand, or by another tool on the same account).
const (
	// UnknownAdopt records the order in the store and follows it to a
	// final status; an order whose client id starts with a configured
	// instance id and "-" is given back to that instance.
	UnknownAdopt = "adopt"
	// UnknownCancel cancels the order and records the cancellation.
	UnknownCancel = "cancel"
)

// Daemon configures `bot run` beyond its mode: reconciliation at start,
// clock checks and shutdown.
type Daemon struct {
	// UnknownOrders is adopt or cancel (see UnknownAdopt, UnknownCancel).
	UnknownOrders string `koanf:"unknown_orders"`
	// CancelOnShutdown cancels every open order of the configured symbols
	// when the bot stops.
	CancelOnShutdown bool `koanf:"cancel_on_shutdown"`
	// ShutdownTimeout bounds the shutdown: cancelling, the last order
	// sync and flushing the store.
	ShutdownTimeout time.Duration `koanf:"shutdown_timeout"`
	// ClockSync is how often the clock is compared with the exchange's.
	ClockSync time.Duration `koanf:"clock_sync"`
}

func (d Daemon) validate() []error {
	var errs []error
	if d.UnknownOrders != UnknownAdopt && d.UnknownOrders != UnknownCancel {
		errs = append(errs, fmt.Errorf("daemon.unknown_orders: %smust be adopt or cancel", shown(d.UnknownOrders)))
	}
	if d.ShutdownTimeout <= 0 {
		errs = append(errs, fmt.Errorf("daemon.shutdown_timeout: %s must be positive", d.ShutdownTimeout))
	}
	if d.ClockSync <= 0 {
		errs = append(errs, fmt.Errorf("daemon.clock_sync: %s must be positive", d.ClockSync))
	}
	return errs
}

func (p Poll) validate() []error {
	var errs []error
	if p.KlineDelay < 0 {
		errs = append(errs, fmt.Errorf("poll.kline_delay: %s must not be negative", p.KlineDelay))
	}
	if p.Orders <= 0 {
		errs = append(errs, fmt.Errorf("poll.orders: %s must be positive", p.Orders))
	}
	if p.Price != 0 && p.Price < MinPricePoll {
		errs = append(errs, fmt.Errorf("poll.price: %s must be 0 (off) or at least %s, to stay within the rate budgets", p.Price, MinPricePoll))
	}
	return errs
}

// MinPricePoll is the shortest poll.price; Validate also checks the
// cadence against the IP weight budget for the symbols with exits.
const MinPricePoll = time.Second
