// Command backtest runs spotbot's built-in strategies over historical
// klines: run, sweep, walkforward and report.
//
// With no arguments it backtests the built-in smacross strategy on the
// embedded sample data (configs/backtest.yaml), prints a summary and writes
// report.html. Exit codes: 0 success, 1 a failed run, 2 bad usage
// (unknown command or flag, invalid configuration). Its commands live in
// package app.
package main

import (
	"github.com/spotbot/spotbot/app"
	"github.com/spotbot/spotbot/strategies"
)

func main() { app.Main(app.Backtest(strategies.NewRegistry())) }
