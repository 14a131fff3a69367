package exchange

import (
	"fmt"
	"net/http"

	"github.com/shopspring/decimal"
)

// The order rules of a symbol, as the live service applies them when an
// order is placed. CheckOrder first applies the request-shape rules of
// NewOrder.Validate (validate.go), then the symbol's. The simulated exchange
// and the risk gate both check orders with CheckOrder, so a rejection
// carries the same code and message in a backtest, in paper trading and
// before a live order is sent.
//
// Where the spec names no code for a rule, the closest listed code is used:
// precision and PERCENT_PRICE_BY_SIDE violations are 33333 (parameter error)
// and a closed symbol side (tradeSideType 4) is 30016 (trading disabled);
// validate.go lists the codes of the request-shape rules.

// RuleError is an order refused by a request-shape or symbol rule: an
// *APIError with the live service's code, plus the name of the rule.
type RuleError struct {
	Rule string
	APIError
}

func (e *RuleError) Error() string { return e.APIError.Error() + " [rule " + e.Rule + "]" }

// Unwrap exposes the *APIError so errors.As and HasCode see the code.
func (e *RuleError) Unwrap() error { return &e.APIError }

// Rule names.
const (
	RuleSymbolStatus   = "symbol-status"
	RuleAPITradable    = "api-tradable"
	RuleTradeSide      = "trade-side"
	RuleOrderType      = "order-type"
	RuleParameters     = "parameters"
	RulePrecision      = "precision"
	RuleMinAmount      = "min-amount"
	RuleMaxAmount      = "max-amount"
	RulePercentPrice   = "percent-price"
	RuleSTPMode        = "stp-mode"
	RuleNoMarketPrice  = "no-market-price"
	RuleSymbolNotFound = "symbol-not-found"
)

func ruleErr(rule string, code int, format string, args ...any) *RuleError {
	return &RuleError{Rule: rule, APIError: APIError{Endpoint: EpNewOrder.String(), Status: http.StatusBadRequest,
		Code: code, Msg: fmt.Sprintf(format, args...)}}
}

// PriceScale is the number of decimals a price may carry.
func (s *SymbolInfo) PriceScale() int32 { return int32(s.QuotePrecision) }

// QtyScale is the number of decimals a quantity may carry.
func (s *SymbolInfo) QtyScale() int32 { return int32(s.BaseAssetPrecision) }

// QuoteScale is the number of decimals a quote amount may carry.
func (s *SymbolInfo) QuoteScale() int32 {
	if s.QuoteAssetPrecision > 0 {
		return int32(s.QuoteAssetPrecision)
	}
	return int32(s.QuotePrecision)
}

// RoundPrice rounds p to the symbol's price precision (half away from zero).
func (s *SymbolInfo) RoundPrice(p decimal.Decimal) decimal.Decimal { return p.Round(s.PriceScale()) }

// FloorQty truncates q to the symbol's quantity precision, so a computed
// quantity never exceeds what the balance allows.
func (s *SymbolInfo) FloorQty(q decimal.Decimal) decimal.Decimal { return truncate(q, s.QtyScale()) }

// FloorQuote truncates a quote amount to the symbol's quote precision.
func (s *SymbolInfo) FloorQuote(q decimal.Decimal) decimal.Decimal {
	return truncate(q, s.QuoteScale())
}

// truncate is d.Truncate(places): the same value at the same exponent,
// divided on int64 when d's coefficient fits 18 digits (the result's two
// allocations, where decimal's division takes three). A strategy floors
// its position and balance on every order.
func truncate(d decimal.Decimal, places int32) decimal.Decimal {
	if places < 0 || -places <= d.Exponent() {
		return d.Truncate(places) // nothing to cut, or decimal's own rule
	}
	sm, ok := smallOf(d)
	if !ok {
		return d.Truncate(places)
	}
	k := -int64(places) - sm.exp // digits cut, > 0
	var q uint64
	if k < int64(len(pow10u)) {
		q = sm.mag / pow10u[k]
	}
	c := int64(q)
	if sm.sign < 0 {
		c = -c
	}
	return NewDecimal(c, -places)
}

// MinNotional returns the minimum quote value of an order of type t.
func (s *SymbolInfo) MinNotional(t OrderType) decimal.Decimal {
	if t == TypeMarket && s.QuoteAmountPrecisionMarket.IsPositive() {
		return s.QuoteAmountPrecisionMarket
	}
	return s.QuoteAmountPrecision
}

// MaxNotional returns the maximum quote value of an order of type t; zero
// means no limit.
func (s *SymbolInfo) MaxNotional(t OrderType) decimal.Decimal {
	if t == TypeMarket && s.MaxQuoteAmountMarket.IsPositive() {
		return s.MaxQuoteAmountMarket
	}
	return s.MaxQuoteAmount
}

func tooPrecise(d decimal.Decimal, scale int32) bool { return !d.Equal(d.Truncate(scale)) }

// splitOne is 1, split.
var splitOne = splitOf(decOne)

// A PERCENT_PRICE_BY_SIDE filter is enforced as the spec states it only
// with a bid multiplier of at least 1 and an ask multiplier in (0, 1]: the
// facts file notes published samples with multipliers that would refuse
// every order, which are to be ignored.
func bidUsable(up split) bool   { return cmpSplit(up, splitOne) >= 0 }
func askUsable(down split) bool { return down.dec().IsPositive() && cmpSplit(down, splitOne) <= 0 }

// CheckOrder applies the request-shape rules (NewOrder.Validate) and then
// the symbol's rules to o. last is the latest trade price, used for
// market-order amounts and PERCENT_PRICE_BY_SIDE; zero means unknown. It
// returns nil or a *RuleError.
func (s *SymbolInfo) CheckOrder(o NewOrder, last decimal.Decimal) error {
	if err := o.validate(EpNewOrder, -1); err != nil {
		return err
	}
	return s.CheckRules(o, last)
}

// RulesReadLast reports whether CheckRules reads its last price for o, an
// order that passed NewOrder.Validate: every order but a quote-sized
// MARKET buy, whose amount is its quoteOrderQty. A caller holding the last
// price in another form (a bar's close) builds its decimal only then.
func RulesReadLast(o NewOrder) bool {
	return o.Type != TypeMarket || !o.QuoteOrderQty.IsPositive()
}

// CheckRules applies the symbol's rules alone to an order that passed
// NewOrder.Validate: a caller that validated before looking the symbol up
// (the simulator, the risk gate) does not validate every order twice.
func (s *SymbolInfo) CheckRules(o NewOrder, last decimal.Decimal) error {
	return s.checkRules(o, splitOf(last))
}

// CheckRulesFixed is CheckRules with the last price as a Fixed (a bar's
// close): the same answer and message, and the price's decimal is built
// only where the int64 comparisons cannot decide, for a priced order's
// PERCENT_PRICE_BY_SIDE check, or for a refusal's message. Zero means
// unknown.
func (s *SymbolInfo) CheckRulesFixed(o NewOrder, last Fixed) error {
	return s.checkRules(o, splitFixed(last))
}

func (s *SymbolInfo) checkRules(o NewOrder, last split) error {
	if o.Symbol != s.Symbol {
		return ruleErr(RuleSymbolNotFound, CodeBadSymbol, "order for %s checked against %s", o.Symbol, s.Symbol)
	}
	if s.Status != "" && s.Status != SymbolOnline {
		return ruleErr(RuleSymbolStatus, CodeTradingSuspended, "%s is not online (status %s)", s.Symbol, s.Status)
	}
	if !s.IsSpotTradingAllowed {
		return ruleErr(RuleAPITradable, CodeBadSymbol, "%s is not open to API trading", s.Symbol)
	}
	switch {
	case s.TradeSideType == TradeSideClosed:
		return ruleErr(RuleTradeSide, CodeTradingDisabled, "%s is closed to trading", s.Symbol)
	case s.TradeSideType != 0 && !s.TradeSideType.Allows(o.Side):
		return ruleErr(RuleTradeSide, CodeDirectionNotAllowed, "%s does not accept %s orders now", s.Symbol, o.Side)
	}
	if !s.AllowsType(o.Type) {
		if o.Type == TypeMarket {
			return ruleErr(RuleOrderType, CodeMarketOrderDisabled, "%s does not accept market orders", s.Symbol)
		}
		return ruleErr(RuleOrderType, CodeOrderTypeNotAllowed, "%s does not accept %s orders", s.Symbol, o.Type)
	}
	if o.Type == TypeMarket {
		return s.checkMarket(o, last)
	}
	return s.checkLimit(o, last.dec())
}

// checkLimit applies the symbol's rules to a valid priced order.
func (s *SymbolInfo) checkLimit(o NewOrder, last decimal.Decimal) error {
	if tooPrecise(o.Price, s.PriceScale()) {
		return ruleErr(RulePrecision, CodeParameterError, "price %s has more than %d decimals", o.Price, s.PriceScale())
	}
	if tooPrecise(o.Quantity, s.QtyScale()) {
		return ruleErr(RulePrecision, CodeParameterError, "quantity %s has more than %d decimals", o.Quantity, s.QtyScale())
	}
	// Price and quantity are compared several times: split them once.
	price, qty := splitOf(o.Price), splitOf(o.Quantity)
	if err := s.checkPricedAmount(o.Type, price, qty); err != nil {
		return err
	}
	if f, ok := s.PercentPrice(); ok && last.IsPositive() && o.Type != TypeLimitMaker {
		if o.Side == SideBuy {
			up, l := splitOf(f.BidMultiplierUp), splitOf(last)
			if p, ok := product(l, up); bidUsable(up) && cmpToProduct(price, p, ok, l, up) > 0 {
				ceil := last.Mul(f.BidMultiplierUp)
				return ruleErr(RulePercentPrice, CodeParameterError, "buy price %s above %s (last %s × %s)", o.Price, ceil, last, f.BidMultiplierUp)
			}
		}
		if o.Side == SideSell {
			down, l := splitOf(f.AskMultiplierDown), splitOf(last)
			if p, ok := product(l, down); askUsable(down) && cmpToProduct(price, p, ok, l, down) < 0 {
				floor := last.Mul(f.AskMultiplierDown)
				return ruleErr(RulePercentPrice, CodeParameterError, "sell price %s below %s (last %s × %s)", o.Price, floor, last, f.AskMultiplierDown)
			}
		}
	}
	return nil
}

// checkMarket applies the symbol's rules to a valid MARKET order: sized by
// quantity or, for a BUY, by quoteOrderQty.
func (s *SymbolInfo) checkMarket(o NewOrder, last split) error {
	if o.Quantity.IsPositive() {
		if tooPrecise(o.Quantity, s.QtyScale()) {
			return ruleErr(RulePrecision, CodeParameterError, "quantity %s has more than %d decimals", o.Quantity, s.QtyScale())
		}
		if !last.positive() {
			return ruleErr(RuleNoMarketPrice, CodeNoValidTradePrice, "no trade price for %s yet", s.Symbol)
		}
		// The amount (quantity × last price) compared without building it,
		// as a priced order's is.
		return s.checkPricedAmount(o.Type, last, splitOf(o.Quantity))
	}
	if tooPrecise(o.QuoteOrderQty, s.QuoteScale()) {
		return ruleErr(RulePrecision, CodeParameterError, "quoteOrderQty %s has more than %d decimals", o.QuoteOrderQty, s.QuoteScale())
	}
	return s.checkAmount(o.Type, decimal.Zero, o.QuoteOrderQty)
}

// checkAmount applies the minimum quantity and the minimum and maximum
// amounts. qty is zero for a quote-sized market order.
func (s *SymbolInfo) checkAmount(t OrderType, qty, notional decimal.Decimal) error {
	if err := s.checkMinQty(qty); err != nil {
		return err
	}
	if min := s.MinNotional(t); min.IsPositive() && cmpDec(notional, min) < 0 {
		return ruleErr(RuleMinAmount, CodeBelowMinVolume, "amount %s below the minimum %s", notional, min)
	}
	if max := s.MaxNotional(t); max.IsPositive() && cmpDec(notional, max) > 0 {
		return ruleErr(RuleMaxAmount, CodeAboveMaxVolume, "amount %s above the maximum %s", notional, max)
	}
	return nil
}

func (s *SymbolInfo) checkMinQty(qty decimal.Decimal) error {
	if qty.IsPositive() && s.BaseSizePrecision.IsPositive() && cmpDec(qty, s.BaseSizePrecision) < 0 {
		return ruleErr(RuleMinAmount, CodeBelowMinVolume, "quantity %s below the minimum %s", qty, s.BaseSizePrecision)
	}
	return nil
}

// checkPricedAmount is checkAmount for a priced order: it compares price ×
// quantity with the bounds without computing the product, which is built
// only for a refusal's message (placing an order is the simulator's hot
// path).
func (s *SymbolInfo) checkPricedAmount(t OrderType, price, qty split) error {
	if qty.dec().IsPositive() && s.BaseSizePrecision.IsPositive() && cmpSplit(qty, splitOf(s.BaseSizePrecision)) < 0 {
		return ruleErr(RuleMinAmount, CodeBelowMinVolume, "quantity %s below the minimum %s", qty.dec(), s.BaseSizePrecision)
	}
	n, ok := product(price, qty)
	if min := s.MinNotional(t); min.IsPositive() && cmpToProduct(splitOf(min), n, ok, price, qty) > 0 {
		return ruleErr(RuleMinAmount, CodeBelowMinVolume, "amount %s below the minimum %s", price.dec().Mul(qty.dec()), min)
	}
	if max := s.MaxNotional(t); max.IsPositive() && cmpToProduct(splitOf(max), n, ok, price, qty) < 0 {
		return ruleErr(RuleMaxAmount, CodeAboveMaxVolume, "amount %s above the maximum %s", price.dec().Mul(qty.dec()), max)
	}
	return nil
}
