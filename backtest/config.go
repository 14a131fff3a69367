package backtest

import (
	"fmt"
	"slices"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// FromConfig builds a Spec from a configuration: its strategies, its
// starting balances, its fill model and its data (the embedded sample, a
// CSV file or a folder of CSV files, cut to data.from/data.to).
func FromConfig(c *config.Config, reg *strategy.Registry) (Spec, error) {
	return FromConfigBackground(c, reg, nil)
}

// FromConfigBackground is FromConfig leaving the binary cache of CSV data
// to be written in the background into w (session.LoadSeriesBackground).
func FromConfigBackground(c *config.Config, reg *strategy.Registry, w *session.CacheWrites) (Spec, error) {
	s, err := SpecOf(c, reg)
	if err != nil {
		return Spec{}, err
	}
	rng, err := c.Data.Range()
	if err != nil {
		return Spec{}, err
	}
	data, err := session.LoadSeriesBackground(c.Data, s.Interval, strategy.SymbolsOf(c.Strategies), rng, w)
	if err != nil {
		return Spec{}, err
	}
	return s.WithData(data)
}

// WithData returns the spec with its bars, and the rules of the symbols
// its symbols section names, laid over the default rules (which read the
// bars' decimals): FromConfig, and a distributed worker once the bars it
// received by hash are at hand.
func (s Spec) WithData(data map[string]*marketdata.Series) (Spec, error) {
	s.Data, s.Symbols = data, nil
	for _, sym := range strategy.SymbolsOf(s.Instances) {
		if !slices.ContainsFunc(s.Configured, func(c config.Symbol) bool { return c.Symbol == sym }) {
			continue
		}
		info, err := session.SymbolRules(s.Configured, sym, firstBar(data[sym]))
		if err != nil {
			return Spec{}, err
		}
		s.Symbols = append(s.Symbols, info)
	}
	return s, nil
}

// SpecOf builds the Spec of a configuration without its data: what a
// distributed worker builds before it sets the bars it received by hash.
func SpecOf(c *config.Config, reg *strategy.Registry) (Spec, error) {
	iv, err := exchange.ParseInterval(c.Data.Interval)
	if err != nil {
		return Spec{}, fmt.Errorf("data.interval: %w", err)
	}
	fill, err := session.FillFromConfig(c.Sim)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Instances: c.Strategies, Registry: reg, Interval: iv, Balances: c.Account.Balances, Quote: c.Account.Quote,
		Fill: fill, Risk: c.Risk, MergeGaps: c.Data.MergeGaps(), Configured: c.Symbols}
	return s, nil
}
