// Command rotation is spotbot with one strategy of its own, momentum
// rotation between symbols, beside the built-in ones: every command of
// spotbot's bot and backtest ("go run . backtest run --config backtest.yaml").
package main

import (
	"github.com/spotbot/spotbot/app"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"

	"github.com/spotbot/spotbot/examples/rotation/rotation"
)

func main() { app.Main(app.New("rotation", registry())) }

// registry holds the built-in strategies and rotation.
func registry() *strategy.Registry {
	reg := strategies.NewRegistry()
	reg.Register(rotation.Name, rotation.New)
	return reg
}
