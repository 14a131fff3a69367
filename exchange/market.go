package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Ping checks connectivity.
func (s *MarketService) Ping(ctx context.Context) error {
	return s.c.do(ctx, EpPing, nil, nil)
}

// ServerTime returns the server's clock.
func (s *MarketService) ServerTime(ctx context.Context) (time.Time, error) {
	var r struct {
		ServerTime Millis `json:"serverTime"`
	}
	if err := s.c.do(ctx, EpTime, nil, &r); err != nil {
		return time.Time{}, err
	}
	if r.ServerTime <= 0 {
		return time.Time{}, decodeError(EpTime, nil, errors.New("serverTime missing"))
	}
	return r.ServerTime.Time(), nil
}

// DefaultSymbols lists the symbols open to API trading.
func (s *MarketService) DefaultSymbols(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.c.doEnvelope(ctx, EpDefaultSymbols, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// OfflineSymbol is a suspended or delisted symbol.
type OfflineSymbol struct {
	Symbol      string
	State       int // 2 suspended, 3 delisted
	OfflineTime time.Time
}

// OfflineSymbols lists suspended and delisted symbols.
func (s *MarketService) OfflineSymbols(ctx context.Context) ([]OfflineSymbol, error) {
	var r struct {
		Data []struct {
			Symbol      string  `json:"symbol"`
			State       FlexInt `json:"state"`
			OfflineTime Millis  `json:"offlineTime"`
		} `json:"data"`
	}
	if err := s.c.do(ctx, EpOfflineSymbols, nil, &r); err != nil {
		return nil, err
	}
	out := make([]OfflineSymbol, 0, len(r.Data))
	for i, d := range r.Data {
		if d.Symbol == "" {
			return nil, decodeError(EpOfflineSymbols, nil, fmt.Errorf("offline symbol %d without symbol", i))
		}
		out = append(out, OfflineSymbol{Symbol: d.Symbol, State: int(d.State), OfflineTime: d.OfflineTime.Time()})
	}
	return out, nil
}

// ExchangeInfo returns symbol rules: of every symbol, of one, or of several.
func (s *MarketService) ExchangeInfo(ctx context.Context, symbols ...string) (*ExchangeInfo, error) {
	var q query
	for i, sym := range symbols {
		if sym == "" {
			return nil, invalid(EpExchangeInfo, "symbols", "entry %d is empty", i)
		}
	}
	switch len(symbols) {
	case 0:
	case 1:
		q.str("symbol", symbols[0])
	default:
		q.str("symbols", strings.Join(symbols, ","))
	}
	var out ExchangeInfo
	if err := s.c.do(ctx, EpExchangeInfo, &q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PriceLevel is one level of an order book.
type PriceLevel struct {
	Price decimal.Decimal
	Qty   decimal.Decimal
}

// OrderBook is a depth snapshot; bids best first (highest), asks best first
// (lowest).
type OrderBook struct {
	LastUpdateID int64
	Bids         []PriceLevel
	Asks         []PriceLevel
}

// Depth returns the order book. limit 0 means the server's default (100);
// otherwise 1..5000.
func (s *MarketService) Depth(ctx context.Context, symbol string, limit int) (*OrderBook, error) {
	if symbol == "" {
		return nil, invalid(EpDepth, "symbol", "required")
	}
	if limit < 0 || limit > 5000 {
		return nil, invalid(EpDepth, "limit", "%d is outside 1..5000", limit)
	}
	var q query
	q.str("symbol", symbol)
	q.optInt("limit", int64(limit))
	body, err := s.c.call(ctx, EpDepth, &q)
	if err != nil {
		return nil, err
	}
	book, err := DecodeDepth(body)
	if err != nil {
		return nil, decodeError(EpDepth, body, err)
	}
	return book, nil
}

// PublicTrade is a trade of the market.
type PublicTrade struct {
	ID           string // may be empty (null on the wire)
	Price        decimal.Decimal
	Qty          decimal.Decimal
	QuoteQty     decimal.Decimal
	Time         time.Time
	IsBuyerMaker bool
	IsBestMatch  bool
}

// UnmarshalJSON decodes a public trade.
func (t *PublicTrade) UnmarshalJSON(b []byte) error {
	var w struct {
		ID           FlexString `json:"id"`
		Price        OptDecimal `json:"price"`
		Qty          OptDecimal `json:"qty"`
		QuoteQty     OptDecimal `json:"quoteQty"`
		Time         Millis     `json:"time"`
		IsBuyerMaker FlexBool   `json:"isBuyerMaker"`
		IsBestMatch  FlexBool   `json:"isBestMatch"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if !w.Price.Valid || !w.Qty.Valid {
		return errors.New("trade without price or qty")
	}
	*t = PublicTrade{ID: string(w.ID), Price: w.Price.Decimal, Qty: w.Qty.Decimal, QuoteQty: w.QuoteQty.Decimal,
		Time: w.Time.Time(), IsBuyerMaker: bool(w.IsBuyerMaker), IsBestMatch: bool(w.IsBestMatch)}
	return nil
}

// Trades returns recent public trades. limit 0 means the default (500);
// otherwise 1..1000.
func (s *MarketService) Trades(ctx context.Context, symbol string, limit int) ([]PublicTrade, error) {
	if symbol == "" {
		return nil, invalid(EpTrades, "symbol", "required")
	}
	if limit < 0 || limit > 1000 {
		return nil, invalid(EpTrades, "limit", "%d is outside 1..1000", limit)
	}
	var q query
	q.str("symbol", symbol)
	q.optInt("limit", int64(limit))
	var out []PublicTrade
	if err := s.c.do(ctx, EpTrades, &q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// AggTrade is an aggregate of trades filled at one time, from one order, at
// one price.
type AggTrade struct {
	ID           string // a; may be empty
	FirstTradeID string // f; may be empty
	LastTradeID  string // l; may be empty
	Price        decimal.Decimal
	Qty          decimal.Decimal
	Time         time.Time
	IsBuyerMaker bool
	IsBestMatch  bool
}

// UnmarshalJSON decodes an aggregate trade.
func (t *AggTrade) UnmarshalJSON(b []byte) error {
	var w struct {
		A FlexString `json:"a"`
		F FlexString `json:"f"`
		L FlexString `json:"l"`
		P OptDecimal `json:"p"`
		Q OptDecimal `json:"q"`
		T Millis     `json:"T"`
		M FlexBool   `json:"m"`
		B FlexBool   `json:"M"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if !w.P.Valid || !w.Q.Valid {
		return errors.New("aggregate trade without price or quantity")
	}
	*t = AggTrade{ID: string(w.A), FirstTradeID: string(w.F), LastTradeID: string(w.L), Price: w.P.Decimal,
		Qty: w.Q.Decimal, Time: w.T.Time(), IsBuyerMaker: bool(w.M), IsBestMatch: bool(w.B)}
	return nil
}

// AggTradesRequest selects aggregate trades; Start and End go together.
type AggTradesRequest struct {
	Symbol string
	Start  time.Time
	End    time.Time
	Limit  int // 0: default 500; else 1..1000
}

// AggTrades returns aggregate trades.
func (s *MarketService) AggTrades(ctx context.Context, r AggTradesRequest) ([]AggTrade, error) {
	if r.Symbol == "" {
		return nil, invalid(EpAggTrades, "symbol", "required")
	}
	if err := checkWindow(EpAggTrades, r.Start, r.End, true); err != nil {
		return nil, err
	}
	if r.Limit < 0 || r.Limit > 1000 {
		return nil, invalid(EpAggTrades, "limit", "%d is outside 1..1000", r.Limit)
	}
	var q query
	q.str("symbol", r.Symbol)
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("limit", int64(r.Limit))
	var out []AggTrade
	if err := s.c.do(ctx, EpAggTrades, &q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkWindow validates a time window: End not before Start, and when together
// is set, both or neither.
func checkWindow(ep EndpointID, start, end time.Time, together bool) error {
	if together && start.IsZero() != end.IsZero() {
		return invalid(ep, "startTime", "startTime and endTime must be used together")
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		return invalid(ep, "endTime", "%s is before startTime %s", end.UTC().Format(time.RFC3339), start.UTC().Format(time.RFC3339))
	}
	return nil
}

// Klines returns candles. The interval must be a wire interval (60m, not
// 1h: use ParseInterval for user input); limit 0 means 500, else 1..500.
func (s *MarketService) Klines(ctx context.Context, r KlinesRequest) ([]Kline, error) {
	if r.Symbol == "" {
		return nil, invalid(EpKlines, "symbol", "required")
	}
	if !r.Interval.Valid() {
		return nil, invalid(EpKlines, "interval", "%q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", r.Interval)
	}
	if err := checkWindow(EpKlines, r.Start, r.End, false); err != nil {
		return nil, err
	}
	if r.Limit < 0 || r.Limit > 500 {
		return nil, invalid(EpKlines, "limit", "%d is outside 1..500", r.Limit)
	}
	var q query
	q.str("symbol", r.Symbol)
	q.str("interval", string(r.Interval))
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("limit", int64(r.Limit))
	var out []Kline
	if err := s.c.do(ctx, EpKlines, &q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// AvgPrice is the average price over a window of minutes.
type AvgPrice struct {
	Mins  int
	Price decimal.Decimal
}

// AvgPrice returns the current average price.
func (s *MarketService) AvgPrice(ctx context.Context, symbol string) (AvgPrice, error) {
	if symbol == "" {
		return AvgPrice{}, invalid(EpAvgPrice, "symbol", "required")
	}
	var q query
	q.str("symbol", symbol)
	var w struct {
		Mins  FlexInt    `json:"mins"`
		Price OptDecimal `json:"price"`
	}
	if err := s.c.do(ctx, EpAvgPrice, &q, &w); err != nil {
		return AvgPrice{}, err
	}
	if !w.Price.Valid {
		return AvgPrice{}, decodeError(EpAvgPrice, nil, errors.New("price missing"))
	}
	return AvgPrice{Mins: int(w.Mins), Price: w.Price.Decimal}, nil
}
