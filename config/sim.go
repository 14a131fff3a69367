package config

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"
)

// The words of sim.fill and sim.market, the same in every command.
const (
	FillTradeThrough = "trade-through" // resting limits fill when a bar trades through them
	FillTouch        = "touch"         // resting limits fill when a bar touches their price
	MarketNextOpen   = "next-open"     // market orders fill at the next bar's open
	MarketClose      = "close"         // market orders fill at once, at the last close
	FeeReceived      = "received"      // fees in the asset received (base for a buyer)
	FeeQuote         = "quote"         // fees always in the quote asset
)

// Check reports what is wrong with the sim section, every problem naming
// its key; session.FillFromConfig translates only a section that passes.
func (s Sim) Check() error { return errors.Join(s.problems()...) }

func (s Sim) problems() []error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	if s.Fill != FillTradeThrough && s.Fill != FillTouch {
		add("sim.fill", "%smust be %s or %s", shown(s.Fill), FillTradeThrough, FillTouch)
	}
	if s.Market != MarketNextOpen && s.Market != MarketClose {
		add("sim.market", "%smust be %s or %s", shown(s.Market), MarketNextOpen, MarketClose)
	}
	switch s.FeeAsset {
	case FeeReceived:
	case FeeQuote:
		if s.TokenFees {
			add("sim.fee_asset", "quote cannot be combined with sim.token_fees, which pays fees in the platform token; choose one")
		}
	default:
		add("sim.fee_asset", "%smust be %s or %s", shown(s.FeeAsset), FeeReceived, FeeQuote)
	}
	if s.SlippageBps.IsNegative() {
		add("sim.slippage_bps", "must not be negative")
	}
	if s.SlippageTicks < 0 {
		add("sim.slippage_ticks", "%d must not be negative", s.SlippageTicks)
	}
	for _, f := range []struct {
		path string
		fee  *decimal.Decimal
	}{{"sim.maker_fee", s.MakerFee}, {"sim.taker_fee", s.TakerFee}} {
		if f.fee != nil && (f.fee.IsNegative() || f.fee.GreaterThanOrEqual(decimal.NewFromInt(1))) {
			add(f.path, "%s must be at least 0 and below 1", f.fee)
		}
	}
	return errs
}
