// Command rsirevert is spotbot with one strategy of its own, RSI mean
// reversion, beside the built-in ones: every command of spotbot's bot and
// backtest ("go run . backtest run --config backtest.yaml").
package main

import (
	"github.com/spotbot/spotbot/app"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"

	"github.com/spotbot/spotbot/examples/rsirevert/rsirevert"
)

func main() { app.Main(app.New("rsirevert", registry())) }

// registry holds the built-in strategies and rsirevert.
func registry() *strategy.Registry {
	reg := strategies.NewRegistry()
	reg.Register(rsirevert.Name, rsirevert.New)
	return reg
}
