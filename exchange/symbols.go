package exchange

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shopspring/decimal"
)

// SymbolStatus is a symbol's trading state.
type SymbolStatus string

// Symbol states (spec 2.1).
const (
	SymbolOnline  SymbolStatus = "1"
	SymbolPaused  SymbolStatus = "2"
	SymbolOffline SymbolStatus = "3"
)

// TradeSideType says which sides may trade a symbol.
type TradeSideType int

// Trade side types (spec 2.1).
const (
	TradeSideAll      TradeSideType = 1
	TradeSideBuyOnly  TradeSideType = 2
	TradeSideSellOnly TradeSideType = 3
	TradeSideClosed   TradeSideType = 4
)

// Allows reports whether orders on side s may be placed.
func (t TradeSideType) Allows(s Side) bool {
	switch t {
	case TradeSideAll:
		return true
	case TradeSideBuyOnly:
		return s == SideBuy
	case TradeSideSellOnly:
		return s == SideSell
	}
	return false
}

// FilterPercentPriceBySide is the only filter type of the interface.
const FilterPercentPriceBySide = "PERCENT_PRICE_BY_SIDE"

// Filter is a symbol filter (spec 2.2).
type Filter struct {
	FilterType        string          `json:"filterType"`
	BidMultiplierUp   decimal.Decimal `json:"bidMultiplierUp"`
	AskMultiplierDown decimal.Decimal `json:"askMultiplierDown"`
}

// SymbolInfo is a symbol's rules from exchange info (spec 2.1).
type SymbolInfo struct {
	Symbol                     string          `json:"symbol"`
	Status                     SymbolStatus    `json:"status"`
	BaseAsset                  string          `json:"baseAsset"`
	BaseAssetPrecision         int             `json:"baseAssetPrecision"`
	QuoteAsset                 string          `json:"quoteAsset"`
	QuotePrecision             int             `json:"quotePrecision"`
	QuoteAssetPrecision        int             `json:"quoteAssetPrecision"`
	BaseCommissionPrecision    int             `json:"baseCommissionPrecision"`
	QuoteCommissionPrecision   int             `json:"quoteCommissionPrecision"`
	OrderTypes                 []OrderType     `json:"orderTypes"`
	IsSpotTradingAllowed       bool            `json:"isSpotTradingAllowed"`
	IsMarginTradingAllowed     bool            `json:"isMarginTradingAllowed"`
	Permissions                []string        `json:"permissions"`
	Filters                    []Filter        `json:"filters"`
	MaxQuoteAmount             decimal.Decimal `json:"maxQuoteAmount"`
	MakerCommission            decimal.Decimal `json:"makerCommission"`
	TakerCommission            decimal.Decimal `json:"takerCommission"`
	QuoteAmountPrecision       decimal.Decimal `json:"quoteAmountPrecision"`       // minimum order amount (quote)
	BaseSizePrecision          decimal.Decimal `json:"baseSizePrecision"`          // minimum order quantity (base)
	QuoteAmountPrecisionMarket decimal.Decimal `json:"quoteAmountPrecisionMarket"` // minimum market order amount
	MaxQuoteAmountMarket       decimal.Decimal `json:"maxQuoteAmountMarket"`
	TradeSideType              TradeSideType   `json:"tradeSideType"`
	ContractAddress            string          `json:"contractAddress"`
	FullName                   string          `json:"fullName"`
	ConceptPlateIDs            []int64         `json:"conceptPlateIds"`
	ST                         bool            `json:"st"`
}

// AllowsType reports whether the symbol accepts orders of type t.
// IMMEDIATE_OR_CANCEL and FILL_OR_KILL are limit orders with a time in
// force and are allowed wherever LIMIT is.
func (s *SymbolInfo) AllowsType(t OrderType) bool {
	want := t
	if t == TypeImmediateOrCancel || t == TypeFillOrKill {
		want = TypeLimit
	}
	for _, ot := range s.OrderTypes {
		if ot == t || ot == want {
			return true
		}
	}
	return false
}

// PercentPrice returns the PERCENT_PRICE_BY_SIDE filter, if the symbol has one.
func (s *SymbolInfo) PercentPrice() (Filter, bool) {
	for _, f := range s.Filters {
		if f.FilterType == FilterPercentPriceBySide {
			return f, true
		}
	}
	return Filter{}, false
}

// UnmarshalJSON decodes a symbol record, taking integers and booleans as
// numbers or strings and tradeSideType as a string or number.
func (s *SymbolInfo) UnmarshalJSON(b []byte) error {
	type plain SymbolInfo
	var w struct {
		plain
		Status                     FlexString  `json:"status"`
		BaseAssetPrecision         FlexInt     `json:"baseAssetPrecision"`
		QuotePrecision             FlexInt     `json:"quotePrecision"`
		QuoteAssetPrecision        FlexInt     `json:"quoteAssetPrecision"`
		BaseCommissionPrecision    FlexInt     `json:"baseCommissionPrecision"`
		QuoteCommissionPrecision   FlexInt     `json:"quoteCommissionPrecision"`
		IsSpotTradingAllowed       FlexBool    `json:"isSpotTradingAllowed"`
		IsMarginTradingAllowed     FlexBool    `json:"isMarginTradingAllowed"`
		MaxQuoteAmount             FlexDecimal `json:"maxQuoteAmount"`
		MakerCommission            FlexDecimal `json:"makerCommission"`
		TakerCommission            FlexDecimal `json:"takerCommission"`
		QuoteAmountPrecision       FlexDecimal `json:"quoteAmountPrecision"`
		BaseSizePrecision          FlexDecimal `json:"baseSizePrecision"`
		QuoteAmountPrecisionMarket FlexDecimal `json:"quoteAmountPrecisionMarket"`
		MaxQuoteAmountMarket       FlexDecimal `json:"maxQuoteAmountMarket"`
		TradeSideType              FlexInt     `json:"tradeSideType"`
		ConceptPlateIDs            []FlexInt   `json:"conceptPlateIds"`
		ST                         FlexBool    `json:"st"`
		Filters                    []struct {
			FilterType        string      `json:"filterType"`
			BidMultiplierUp   FlexDecimal `json:"bidMultiplierUp"`
			AskMultiplierDown FlexDecimal `json:"askMultiplierDown"`
		} `json:"filters"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.plain.Symbol == "" {
		return errors.New("symbol record without symbol")
	}
	out := SymbolInfo(w.plain)
	out.Status = SymbolStatus(w.Status)
	out.BaseAssetPrecision = int(w.BaseAssetPrecision)
	out.QuotePrecision = int(w.QuotePrecision)
	out.QuoteAssetPrecision = int(w.QuoteAssetPrecision)
	out.BaseCommissionPrecision = int(w.BaseCommissionPrecision)
	out.QuoteCommissionPrecision = int(w.QuoteCommissionPrecision)
	out.IsSpotTradingAllowed = bool(w.IsSpotTradingAllowed)
	out.IsMarginTradingAllowed = bool(w.IsMarginTradingAllowed)
	out.MaxQuoteAmount = w.MaxQuoteAmount.Decimal
	out.MakerCommission = w.MakerCommission.Decimal
	out.TakerCommission = w.TakerCommission.Decimal
	out.QuoteAmountPrecision = w.QuoteAmountPrecision.Decimal
	out.BaseSizePrecision = w.BaseSizePrecision.Decimal
	out.QuoteAmountPrecisionMarket = w.QuoteAmountPrecisionMarket.Decimal
	out.MaxQuoteAmountMarket = w.MaxQuoteAmountMarket.Decimal
	out.TradeSideType = TradeSideType(w.TradeSideType)
	out.ST = bool(w.ST)
	out.ConceptPlateIDs = nil
	for _, id := range w.ConceptPlateIDs {
		out.ConceptPlateIDs = append(out.ConceptPlateIDs, int64(id))
	}
	out.Filters = nil
	for _, f := range w.Filters {
		out.Filters = append(out.Filters, Filter{FilterType: f.FilterType,
			BidMultiplierUp: f.BidMultiplierUp.Decimal, AskMultiplierDown: f.AskMultiplierDown.Decimal})
	}
	*s = out
	return nil
}

// ExchangeInfo is the reply of /api/v3/exchangeInfo.
type ExchangeInfo struct {
	Timezone        string            `json:"timezone"`
	ServerTime      Millis            `json:"serverTime"`
	RateLimits      []json.RawMessage `json:"rateLimits"`
	ExchangeFilters []json.RawMessage `json:"exchangeFilters"`
	Symbols         []SymbolInfo      `json:"symbols"`
}

// Symbol returns the rules of one symbol.
func (e *ExchangeInfo) Symbol(name string) (*SymbolInfo, error) {
	for i := range e.Symbols {
		if e.Symbols[i].Symbol == name {
			return &e.Symbols[i], nil
		}
	}
	return nil, fmt.Errorf("symbol %q not in exchange info", name)
}

// FlexDecimal is a decimal that may arrive as a string, a number, null or ""
// (the last two decode as zero). Use it for optional amounts; required ones
// are checked for presence by the type that holds them.
type FlexDecimal struct{ Decimal decimal.Decimal }

// UnmarshalJSON implements json.Unmarshaler.
func (d *FlexDecimal) UnmarshalJSON(b []byte) error {
	var o OptDecimal
	if err := o.UnmarshalJSON(b); err != nil {
		return err
	}
	d.Decimal = o.Decimal
	return nil
}
