// Package backtest runs strategies over historical klines against the
// simulated exchange and computes metrics from the mark-to-market equity
// curve. The formulas are written in docs/metrics.md.
package backtest
