package strategy

import (
	"context"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// Journal is where the runtime records what it must not lose. The store
// implements it over SQLite; every call is made before the runtime acts on
// its result, so a crash at any point leaves a record to reconcile from.
// Package strategy/journaltest is the conformance suite every
// implementation passes.
type Journal interface {
	// RecordIntent records an order before it is sent. created is false
	// when an intent with this client order id already exists.
	RecordIntent(ctx context.Context, in Intent) (created bool, err error)
	// RecordAck records the exchange's acceptance of an order; it
	// overrides a refusal (the exchange is the authority on whether an
	// order exists). It, RecordUnknown and RecordRefused return an error
	// for a client order id with no intent.
	RecordAck(ctx context.Context, clientOrderID, orderID string, at time.Time) error
	// RecordUnknown records that the outcome of sending an order is
	// unknown (5XX, timeout); it is resolved by querying the client id.
	// An order already acknowledged stays so.
	RecordUnknown(ctx context.Context, clientOrderID string, cause error) error
	// RecordRefused records that an order was never placed (the exchange
	// refused it, or a query proved it unknown to the exchange). Refusing
	// an acknowledged order is an error; a second refusal keeps the first
	// cause.
	RecordRefused(ctx context.Context, clientOrderID string, cause error) error
	// RecordOrder records an order's state as the exchange reports it.
	// Implementations keep status moving forward only.
	RecordOrder(ctx context.Context, instance string, o exchange.Order) error
	// RecordFill records a fill; inserted is false when it was already
	// recorded (fills are unique by symbol and trade id).
	RecordFill(ctx context.Context, instance, clientOrderID string, t exchange.OwnTrade) (inserted bool, err error)
	// SaveState and LoadState keep a strategy instance's state; neither
	// shares its slice with the journal.
	SaveState(ctx context.Context, instance string, state []byte) error
	LoadState(ctx context.Context, instance string) (state []byte, ok bool, err error)
	// RecordRun records one run of a schedule.
	RecordRun(ctx context.Context, run Run) error
}

// Intent is an order about to be sent.
type Intent struct {
	Instance      string
	ClientOrderID string
	Order         exchange.NewOrder
	At            time.Time
	// Reason is why the runtime placed the order: an exit's reason
	// (ExitStopLoss, ...); empty for the strategy's own orders.
	Reason string
}

// Run is one run of a scheduled handler.
type Run struct {
	Instance  string
	Schedule  string
	Scheduled time.Time
	Start     time.Time
	End       time.Time
	Err       error
	// Orders are the client order ids the run placed, in order.
	Orders []string
}
