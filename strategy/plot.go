package strategy

import "github.com/spotbot/spotbot/exchange"

// Plotter is an optional interface: a strategy that implements it names
// the series reports draw over a symbol's price, such as its indicators.
// Reports call it on a fresh instance built from the same configuration,
// after the run, so it costs the run nothing.
type Plotter interface {
	// Plot returns the series to draw over symbol's price, computed from
	// bars (the run's bars of that symbol, oldest first): one value per
	// bar, NaN where a series has no value yet.
	Plot(symbol string, bars []exchange.Kline) []PlotSeries
}

// PlotSeries is one line drawn over the price: its name in the legend and
// a value per bar.
type PlotSeries struct {
	Name   string
	Values []float64
}
