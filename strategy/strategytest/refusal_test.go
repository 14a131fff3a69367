package strategytest_test

import (
	"fmt"
	"testing"

	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/strategytest"
)

// placer places one order or batch on its first live bar and keeps the
// error.
type placer struct {
	r   exchangetest.Refusal
	err error
	ran bool
}

func (p *placer) OnKline(ctx strategy.Context, _ strategy.Bar) error {
	if ctx.WarmingUp() || p.ran {
		return nil
	}
	p.ran = true
	if p.r.IsBatch {
		_, p.err = ctx.PlaceBatch(p.r.Batch)
	} else {
		_, p.err = ctx.Place(p.r.Order)
	}
	return nil
}

// A strategy's malformed order is refused by the runtime with the error,
// code and message the exchange gives (the conformance suite's cases), in
// a backtest as live: a client order id like "bad id!" never passes a
// backtest to fail live.
func TestStrategyRefusalsMatchTheExchange(t *testing.T) {
	for _, r := range exchangetest.Refusals() {
		t.Run(r.Name, func(t *testing.T) {
			p := &placer{r: r}
			h := strategytest.New(t, strategytest.Options{Strategy: p, Symbols: exchangetest.Symbols(),
				Config:   strategy.Config{Name: "placer", ID: "p", Symbols: []string{"BTCUSDT"}, Interval: "1m"},
				Balances: map[string]string{"USDT": "100000", "BTC": "10"}})
			h.Begin()
			h.Step("BTCUSDT", exchangetest.Bar(0, "20000", "20000", "20000", "20000"))
			if err := exchangetest.WantRefusal(p.err, r); err != nil {
				t.Error(err)
			}
			if sent := h.Sent(); len(sent) != 0 {
				t.Errorf("sent to the exchange: %v", sent)
			}
			if got := fmt.Sprint(h.RT.Stats().Placed); got != "0" {
				t.Errorf("placed %s orders", got)
			}
		})
	}
}

var _ strategy.Strategy = (*placer)(nil)
