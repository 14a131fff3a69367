package backtest

import (
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/scripts/benchrun"
)

// walkBars returns n distinct one-minute ETHBTC bars, generated now (not
// committed): a random walk from 0.05 BTC, moves of about 0.1% a minute
// pulled back towards the start so that 50 million bars stay in a
// realistic range, prices in units of 10^-8 and volumes of 10^-4, the
// same for the same seed. Every bar is its own 48 bytes: no two share
// storage, as bars read from a file do not. They are the whole-command
// benchmarks' bars (benchrun.Series).
func walkBars(n int, seed uint64) (*marketdata.Series, error) { return benchrun.Series(n, seed) }
