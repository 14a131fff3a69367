package sim

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

// control drives a sim.Exchange for the conformance suite.
type control struct {
	x    *Exchange
	uids [2]string
}

func (c *control) FeedKline(symbol string, k exchange.Kline) error {
	return c.x.FeedKline(symbol, exchange.Interval1m, k)
}
func (c *control) Credit(acct int, asset string, amount decimal.Decimal) error {
	return c.x.Credit(c.uids[acct], asset, amount)
}
func (c *control) GroupBoth() error {
	g, err := c.x.CreateSTPGroup("both")
	if err != nil {
		return err
	}
	_, err = c.x.AddSTPGroupUIDs(g.ID, c.uids[:])
	return err
}
func (c *control) SetTokDeduct(on bool) error {
	_, err := c.x.As(c.uids[0]).SetTokDeduct(context.Background(), on)
	return err
}
func (c *control) SetSymbolStatus(s string, st exchange.SymbolStatus) error {
	return c.x.SetSymbolStatus(s, st)
}

func TestConformance(t *testing.T) {
	exchangetest.Run(t, func(t *testing.T, cfg exchangetest.Config) exchangetest.Harness {
		x, err := New(Options{Start: cfg.Start, Symbols: cfg.Symbols, MarketFill: Immediate})
		if err != nil {
			t.Fatal(err)
		}
		other := x.CreateAccount("other")
		c := &control{x: x, uids: [2]string{x.MasterUID(), other}}
		return exchangetest.Harness{Trader: x.Master(), Other: x.As(other), Control: c}
	})
}
