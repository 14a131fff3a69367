package exchange

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func testSymbol() SymbolInfo {
	return SymbolInfo{
		Symbol: "BTCUSDT", Status: SymbolOnline, BaseAsset: "BTC", QuoteAsset: "USDT",
		BaseAssetPrecision: 4, QuotePrecision: 2, QuoteAssetPrecision: 2,
		OrderTypes:           []OrderType{TypeLimit, TypeMarket, TypeLimitMaker},
		IsSpotTradingAllowed: true, TradeSideType: TradeSideAll,
		Filters:              []Filter{{FilterType: FilterPercentPriceBySide, BidMultiplierUp: d("1.1"), AskMultiplierDown: d("0.9")}},
		QuoteAmountPrecision: d("5"), BaseSizePrecision: d("0.0001"), MaxQuoteAmount: d("100000"),
		QuoteAmountPrecisionMarket: d("10"), MaxQuoteAmountMarket: d("50000"),
	}
}

func TestCheckOrder(t *testing.T) {
	t.Parallel()
	limit := func(side Side, qty, price string) NewOrder {
		return NewOrder{Symbol: "BTCUSDT", Side: side, Type: TypeLimit, Quantity: d(qty), Price: d(price)}
	}
	last := d("20000")
	tests := []struct {
		name   string
		mutate func(*SymbolInfo)
		order  NewOrder
		last   decimal.Decimal
		rule   string
		code   int
	}{
		{name: "valid limit", order: limit(SideBuy, "0.01", "20000"), last: last},
		{name: "valid market by quote", order: NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeMarket, QuoteOrderQty: d("25.5")}, last: last},
		{name: "valid IOC where LIMIT allowed", order: NewOrder{Symbol: "BTCUSDT", Side: SideSell, Type: TypeImmediateOrCancel, Quantity: d("1"), Price: d("19000")}, last: last},
		{name: "paused", mutate: func(s *SymbolInfo) { s.Status = SymbolPaused }, order: limit(SideBuy, "0.01", "20000"), rule: RuleSymbolStatus, code: CodeTradingSuspended},
		{name: "not API tradable", mutate: func(s *SymbolInfo) { s.IsSpotTradingAllowed = false }, order: limit(SideBuy, "0.01", "20000"), rule: RuleAPITradable, code: CodeBadSymbol},
		{name: "sell only", mutate: func(s *SymbolInfo) { s.TradeSideType = TradeSideSellOnly }, order: limit(SideBuy, "0.01", "20000"), rule: RuleTradeSide, code: CodeDirectionNotAllowed},
		{name: "closed", mutate: func(s *SymbolInfo) { s.TradeSideType = TradeSideClosed }, order: limit(SideSell, "0.01", "20000"), rule: RuleTradeSide, code: CodeTradingDisabled},
		{name: "market disabled", mutate: func(s *SymbolInfo) { s.OrderTypes = []OrderType{TypeLimit} }, order: NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeMarket, QuoteOrderQty: d("20")}, last: last, rule: RuleOrderType, code: CodeMarketOrderDisabled},
		{name: "type not allowed", mutate: func(s *SymbolInfo) { s.OrderTypes = []OrderType{TypeMarket} }, order: limit(SideBuy, "0.01", "20000"), rule: RuleOrderType, code: CodeOrderTypeNotAllowed},
		{name: "price too precise", order: limit(SideBuy, "0.01", "20000.001"), last: last, rule: RulePrecision, code: CodeParameterError},
		{name: "quantity too precise", order: limit(SideBuy, "0.00011", "20000"), last: last, rule: RulePrecision, code: CodeParameterError},
		{name: "below min quantity", mutate: func(s *SymbolInfo) { s.BaseSizePrecision = d("0.001") }, order: limit(SideBuy, "0.0009", "20000"), last: last, rule: RuleMinAmount, code: CodeBelowMinVolume},
		{name: "below min amount", order: limit(SideBuy, "0.0002", "20000"), last: last, rule: RuleMinAmount, code: CodeBelowMinVolume},
		{name: "above max amount", order: limit(SideBuy, "6", "20000"), last: last, rule: RuleMaxAmount, code: CodeAboveMaxVolume},
		{name: "market below min (market variant)", order: NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeMarket, QuoteOrderQty: d("9.99")}, last: last, rule: RuleMinAmount, code: CodeBelowMinVolume},
		{name: "market above max (market variant)", order: NewOrder{Symbol: "BTCUSDT", Side: SideSell, Type: TypeMarket, Quantity: d("3")}, last: last, rule: RuleMaxAmount, code: CodeAboveMaxVolume},
		{name: "market by quantity without price", order: NewOrder{Symbol: "BTCUSDT", Side: SideSell, Type: TypeMarket, Quantity: d("0.01")}, rule: RuleNoMarketPrice, code: CodeNoValidTradePrice},
		{name: "market with both sizes", order: NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeMarket, Quantity: d("1"), QuoteOrderQty: d("20")}, last: last, rule: RuleParameters, code: CodeParameterNull},
		{name: "market sell by quote", order: NewOrder{Symbol: "BTCUSDT", Side: SideSell, Type: TypeMarket, QuoteOrderQty: d("20")}, last: last, rule: RuleParameters, code: CodeParameterError},
		{name: "limit without price", order: NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: d("1")}, rule: RuleParameters, code: CodeParameterNull},
		{name: "buy above percent ceiling", order: limit(SideBuy, "0.01", "22000.01"), last: last, rule: RulePercentPrice, code: CodeParameterError},
		{name: "buy at percent ceiling", order: limit(SideBuy, "0.01", "22000"), last: last},
		{name: "sell below percent floor", order: limit(SideSell, "0.01", "17999.99"), last: last, rule: RulePercentPrice, code: CodeParameterError},
		{name: "unusable filter ignored", mutate: func(s *SymbolInfo) { s.Filters[0].BidMultiplierUp = d("0.2") }, order: limit(SideBuy, "0.01", "30000"), last: last},
		{name: "bad stp mode", order: NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: d("1"), Price: d("20000"), STPMode: "cancel_all"}, rule: RuleSTPMode, code: CodeParameterError},
		{name: "negative quantity", order: limit(SideBuy, "-1", "20000"), rule: RuleParameters, code: CodeParameterError},
		{name: "other symbol", order: NewOrder{Symbol: "ETHUSDT", Side: SideBuy, Type: TypeLimit, Quantity: d("1"), Price: d("1")}, rule: RuleSymbolNotFound, code: CodeBadSymbol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := testSymbol()
			if tt.mutate != nil {
				tt.mutate(&s)
			}
			err := s.CheckOrder(tt.order, tt.last)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("CheckOrder = %v, want nil", err)
				}
				return
			}
			var re *RuleError
			if !errors.As(err, &re) {
				t.Fatalf("CheckOrder = %v, want *RuleError", err)
			}
			if re.Rule != tt.rule || re.Code != tt.code {
				t.Errorf("rule %s code %d, want %s %d (%v)", re.Rule, re.Code, tt.rule, tt.code, err)
			}
			if !HasCode(err, tt.code) {
				t.Errorf("HasCode(%d) false for %v", tt.code, err)
			}
		})
	}
}

func TestRounding(t *testing.T) {
	t.Parallel()
	s := testSymbol()
	if got := s.RoundPrice(d("20000.125")).String(); got != "20000.13" {
		t.Errorf("RoundPrice = %s", got)
	}
	if got := s.FloorQty(d("0.123456")).String(); got != "0.1234" {
		t.Errorf("FloorQty = %s", got)
	}
	if got := s.FloorQuote(d("10.999")).String(); got != "10.99" {
		t.Errorf("FloorQuote = %s", got)
	}
	if got := s.MinNotional(TypeMarket).String(); got != "10" {
		t.Errorf("MinNotional(MARKET) = %s", got)
	}
	if got := s.MinNotional(TypeLimit).String(); got != "5" {
		t.Errorf("MinNotional(LIMIT) = %s", got)
	}
}

func TestRulesReadLast(t *testing.T) {
	t.Parallel()
	q := decimal.RequireFromString("1")
	for _, c := range []struct {
		o    NewOrder
		want bool
	}{
		{NewOrder{Type: TypeMarket, Side: SideBuy, QuoteOrderQty: q}, false},
		{NewOrder{Type: TypeMarket, Side: SideBuy, Quantity: q}, true},
		{NewOrder{Type: TypeMarket, Side: SideSell, Quantity: q}, true},
		{NewOrder{Type: TypeLimit, Side: SideBuy, Quantity: q, Price: q}, true},
		{NewOrder{Type: TypeLimitMaker, Side: SideSell, Quantity: q, Price: q}, true},
	} {
		if got := RulesReadLast(c.o); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.o.Type, c.o.Side, got, c.want)
		}
	}
}

// FuzzCheckRulesFixed checks that CheckRulesFixed gives CheckRules' answer
// and message with the last price's decimal, for market orders by quantity
// and by quote amount and for limit orders (with PERCENT_PRICE_BY_SIDE),
// on prices and quantities whose products fit 64 bits or do not (the
// decimal fallback), and a zero last price (unknown).
func FuzzCheckRulesFixed(f *testing.F) {
	f.Add(int64(2995012), int8(-2), int64(1234), int8(-4), uint8(0))
	f.Add(int64(1), int8(-8), int64(1), int8(-8), uint8(1))
	f.Add(int64(999999999999999999), int8(0), int64(999999999999999999), int8(0), uint8(2))
	f.Add(int64(0), int8(0), int64(5), int8(-1), uint8(3))
	f.Fuzz(func(t *testing.T, lc int64, le int8, qc int64, qe int8, kind uint8) {
		s := testSymbol()
		s.Filters = []Filter{{FilterType: FilterPercentPriceBySide, BidMultiplierUp: d("1.1"), AskMultiplierDown: d("0.9")}}
		last := NewFixed(lc, int32(le%20))
		q := decimal.New(qc, int32(qe%20))
		var o NewOrder
		switch kind % 4 {
		case 0:
			o = NewOrder{Symbol: s.Symbol, Side: SideSell, Type: TypeMarket, Quantity: q}
		case 1:
			o = NewOrder{Symbol: s.Symbol, Side: SideBuy, Type: TypeMarket, QuoteOrderQty: q}
		case 2:
			o = NewOrder{Symbol: s.Symbol, Side: SideBuy, Type: TypeLimit, Quantity: q, Price: d("29950.12")}
		default:
			o = NewOrder{Symbol: s.Symbol, Side: SideSell, Type: TypeMarket, Quantity: q}
			last = Fixed{}
		}
		want := s.CheckOrder(o, last.Decimal())
		got := o.Validate()
		if got == nil {
			got = s.CheckRulesFixed(o, last)
		}
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Fatalf("%+v at last %s: CheckRulesFixed %v, CheckRules %v", o, last, got, want)
		}
	})
}
