// Package strategies holds spotbot's built-in strategies, one package each,
// and Register, which adds them all to a registry. Nothing registers itself
// on import.
package strategies

import (
	"github.com/spotbot/spotbot/strategies/dca"
	"github.com/spotbot/spotbot/strategies/dust"
	"github.com/spotbot/spotbot/strategies/grid"
	"github.com/spotbot/spotbot/strategies/rebalance"
	"github.com/spotbot/spotbot/strategies/smacross"
	"github.com/spotbot/spotbot/strategy"
)

// Register adds every built-in strategy to r.
func Register(r *strategy.Registry) {
	r.Register(dca.Name, dca.New)
	r.Register(dust.Name, dust.New)
	r.Register(grid.Name, grid.New)
	r.Register(rebalance.Name, rebalance.New)
	r.Register(smacross.Name, smacross.New)
}

// NewRegistry returns a registry holding every built-in strategy.
func NewRegistry() *strategy.Registry {
	r := strategy.NewRegistry()
	Register(r)
	return r
}
