package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Ticker24h is the 24-hour statistics of a symbol. Any price or quantity
// may be absent (null or "" on the wire): check Valid.
type Ticker24h struct {
	Symbol             string
	PriceChange        OptDecimal
	PriceChangePercent OptDecimal
	PrevClosePrice     OptDecimal
	LastPrice          OptDecimal
	LastQty            OptDecimal
	BidPrice           OptDecimal
	BidQty             OptDecimal
	AskPrice           OptDecimal
	AskQty             OptDecimal
	OpenPrice          OptDecimal
	HighPrice          OptDecimal
	LowPrice           OptDecimal
	Volume             OptDecimal
	QuoteVolume        OptDecimal
	OpenTime           time.Time
	CloseTime          time.Time
	Count              int64
}

// UnmarshalJSON decodes a ticker.
func (t *Ticker24h) UnmarshalJSON(b []byte) error {
	type plain Ticker24h
	var w struct {
		plain
		Symbol    string  `json:"symbol"`
		OpenTime  Millis  `json:"openTime"`
		CloseTime Millis  `json:"closeTime"`
		Count     FlexInt `json:"count"`
	}
	w.plain = plain{}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Symbol == "" {
		return errors.New("ticker without symbol")
	}
	*t = Ticker24h(w.plain)
	t.Symbol, t.OpenTime, t.CloseTime, t.Count = w.Symbol, w.OpenTime.Time(), w.CloseTime.Time(), int64(w.Count)
	return nil
}

// PriceTicker is a symbol's latest price.
type PriceTicker struct {
	Symbol string
	Price  OptDecimal
}

// UnmarshalJSON decodes a price ticker.
func (t *PriceTicker) UnmarshalJSON(b []byte) error {
	var w struct {
		Symbol string     `json:"symbol"`
		Price  OptDecimal `json:"price"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Symbol == "" {
		return errors.New("price ticker without symbol")
	}
	*t = PriceTicker{Symbol: w.Symbol, Price: w.Price}
	return nil
}

// BookTicker is a symbol's best bid and ask.
type BookTicker struct {
	Symbol   string
	BidPrice OptDecimal
	BidQty   OptDecimal
	AskPrice OptDecimal
	AskQty   OptDecimal
}

// UnmarshalJSON decodes a book ticker.
func (t *BookTicker) UnmarshalJSON(b []byte) error {
	var w struct {
		Symbol   string     `json:"symbol"`
		BidPrice OptDecimal `json:"bidPrice"`
		BidQty   OptDecimal `json:"bidQty"`
		AskPrice OptDecimal `json:"askPrice"`
		AskQty   OptDecimal `json:"askQty"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Symbol == "" {
		return errors.New("book ticker without symbol")
	}
	*t = BookTicker{Symbol: w.Symbol, BidPrice: w.BidPrice, BidQty: w.BidQty, AskPrice: w.AskPrice, AskQty: w.AskQty}
	return nil
}

// oneOrMany decodes a reply that is one object or an array of them.
func oneOrMany[T any](ep EndpointID, body []byte) ([]T, error) {
	b := bytes.TrimSpace(body)
	if len(b) > 0 && b[0] == '[' {
		var out []T
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, decodeError(ep, body, err)
		}
		return out, nil
	}
	var one T
	if err := json.Unmarshal(b, &one); err != nil {
		return nil, decodeError(ep, body, err)
	}
	return []T{one}, nil
}

// tickers calls a ticker endpoint for one symbol ("" for all).
func tickers[T any](ctx context.Context, c *Client, ep EndpointID, symbol string) ([]T, error) {
	var q query
	q.str("symbol", symbol)
	body, err := c.call(ctx, ep, &q)
	if err != nil {
		return nil, err
	}
	return oneOrMany[T](ep, body)
}

// first returns the only element of a one-symbol reply.
func first[T any](ep EndpointID, xs []T, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	if len(xs) != 1 {
		return zero, decodeError(ep, nil, fmt.Errorf("want one ticker, got %d", len(xs)))
	}
	return xs[0], nil
}

// Ticker24h returns one symbol's 24-hour statistics.
func (s *MarketService) Ticker24h(ctx context.Context, symbol string) (Ticker24h, error) {
	if symbol == "" {
		return Ticker24h{}, invalid(EpTicker24h, "symbol", "required (Tickers24h lists all)")
	}
	xs, err := tickers[Ticker24h](ctx, s.c, EpTicker24h, symbol)
	return first(EpTicker24h, xs, err)
}

// Tickers24h returns every symbol's 24-hour statistics.
func (s *MarketService) Tickers24h(ctx context.Context) ([]Ticker24h, error) {
	return tickers[Ticker24h](ctx, s.c, EpTicker24h, "")
}

// TickerPrice returns one symbol's latest price.
func (s *MarketService) TickerPrice(ctx context.Context, symbol string) (PriceTicker, error) {
	if symbol == "" {
		return PriceTicker{}, invalid(EpTickerPrice, "symbol", "required (TickerPrices lists all)")
	}
	xs, err := tickers[PriceTicker](ctx, s.c, EpTickerPrice, symbol)
	return first(EpTickerPrice, xs, err)
}

// TickerPrices returns every symbol's latest price.
func (s *MarketService) TickerPrices(ctx context.Context) ([]PriceTicker, error) {
	return tickers[PriceTicker](ctx, s.c, EpTickerPrice, "")
}

// BookTicker returns one symbol's best bid and ask.
func (s *MarketService) BookTicker(ctx context.Context, symbol string) (BookTicker, error) {
	if symbol == "" {
		return BookTicker{}, invalid(EpBookTicker, "symbol", "required (BookTickers lists all)")
	}
	xs, err := tickers[BookTicker](ctx, s.c, EpBookTicker, symbol)
	return first(EpBookTicker, xs, err)
}

// BookTickers returns every symbol's best bid and ask.
func (s *MarketService) BookTickers(ctx context.Context) ([]BookTicker, error) {
	return tickers[BookTicker](ctx, s.c, EpBookTicker, "")
}
