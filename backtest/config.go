package backtest

import (
	"fmt"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// FromConfig builds a Spec from a configuration: its strategies, its
// starting balances, its fill model and its data (the embedded sample, a
// CSV file or a folder of CSV files, cut to data.from/data.to).
func FromConfig(c *config.Config, reg *strategy.Registry) (Spec, error) {
	iv, err := exchange.ParseInterval(c.Data.Interval)
	if err != nil {
		return Spec{}, fmt.Errorf("data.interval: %w", err)
	}
	fill, err := session.FillFromConfig(c.Sim)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Instances: c.Strategies, Registry: reg, Interval: iv, Balances: c.Account.Balances, Quote: c.Account.Quote,
		Fill: fill, Risk: c.Risk, MergeGaps: c.Data.MergeGaps()}
	syms := strategy.SymbolsOf(c.Strategies)
	rng, err := c.Data.Range()
	if err != nil {
		return Spec{}, err
	}
	s.Data, err = session.LoadData(c.Data.Source, c.Data.Path, iv, syms, rng)
	if err != nil {
		return Spec{}, err
	}
	for _, sym := range syms { // the symbols section over the default rules
		if _, ok := c.SymbolRules(sym); !ok {
			continue
		}
		info, err := session.SymbolRules(c.Symbols, sym, s.Data[sym])
		if err != nil {
			return Spec{}, err
		}
		s.Symbols = append(s.Symbols, info)
	}
	return s, nil
}
