package exchange

// OrderEvent reports a change to one of an account's orders as it happened:
// its state after the change and the trades (fills) the change produced.
type OrderEvent struct {
	Order  Order
	Trades []OwnTrade
}

// EventSource is an optional capability of a trading port that can report
// order changes as they happen (the simulated exchange does). The runtime
// uses it when present and polls order status and own trades otherwise, so
// the two paths carry the same information.
type EventSource interface {
	// DrainEvents appends the events since the last call to dst, oldest
	// first, and returns the extended slice. The events' Trades are the
	// source's, valid until the next call, which may reuse them for the
	// trades of later events: copy what is kept.
	DrainEvents(dst []OrderEvent) []OrderEvent
}
