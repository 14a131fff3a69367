// Package daemon is the long-running trading bot behind `bot run`: it wires
// a trading port (the REST client live, the simulated exchange in paper
// modes), the store, the risk gate and the strategy runtime, reconciles the
// store with the exchange at start, polls market data and order state
// within the rate budgets, keeps the clock in sync and shuts down
// gracefully. Time comes from an injected exchange.Clock, so tests drive a
// whole session in simulated time. docs/daemon.md describes it.
package daemon
