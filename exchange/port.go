package exchange

import (
	"context"
	"time"

	"github.com/shopspring/decimal"
)

// Trader is the trading port: what the strategy runtime, the risk gate and
// the scheduled jobs need from an exchange. *Client implements it over REST
// and the simulated exchange implements it in memory; one conformance suite
// runs against both.
type Trader interface {
	ServerTime(ctx context.Context) (time.Time, error)
	ExchangeInfo(ctx context.Context, symbols ...string) (*ExchangeInfo, error)
	Klines(ctx context.Context, r KlinesRequest) ([]Kline, error)

	PlaceOrder(ctx context.Context, o NewOrder) (OrderAck, error)
	TestOrder(ctx context.Context, o NewOrder) error
	PlaceBatch(ctx context.Context, orders []NewOrder) ([]BatchResult, error)
	CancelOrder(ctx context.Context, r CancelOrderRequest) (Order, error)
	CancelOpenOrders(ctx context.Context, symbol string) ([]Order, error)
	QueryOrder(ctx context.Context, r QueryOrderRequest) (Order, error)
	OpenOrders(ctx context.Context, symbol string) ([]Order, error)
	Account(ctx context.Context) (*Account, error)
	MyTrades(ctx context.Context, r MyTradesRequest) ([]OwnTrade, error)
	TradeFee(ctx context.Context, symbol string) (TradeFee, error)

	DustCandidates(ctx context.Context) ([]DustCandidate, error)
	ConvertDust(ctx context.Context, assets []string) (DustResult, error)
}

// KlinesRequest selects klines. Start and End are used together or not at
// all; Limit 0 means the server's default (500), at most 500.
type KlinesRequest struct {
	Symbol   string
	Interval Interval
	Start    time.Time
	End      time.Time
	Limit    int
}

// CancelOrderRequest names the order to cancel by OrderID or
// OrigClientOrderID (one is required).
type CancelOrderRequest struct {
	Symbol            string
	OrderID           string
	OrigClientOrderID string
	NewClientOrderID  string
}

// QueryOrderRequest names an order by OrderID or OrigClientOrderID.
type QueryOrderRequest struct {
	Symbol            string
	OrderID           string
	OrigClientOrderID string
}

// MyTradesRequest selects own trades of a symbol. Limit 0 means the server's
// default (100), at most 100.
type MyTradesRequest struct {
	Symbol  string
	OrderID string
	Start   time.Time
	End     time.Time
	Limit   int
}

// BatchResult is one item of a batch reply: an acknowledgement, or a code and
// message for an order that was refused.
type BatchResult struct {
	Ack           *OrderAck // nil for a refused item
	ClientOrderID string
	Code          int
	Msg           string
}

// Err returns the item's refusal as an *APIError, or nil.
func (r BatchResult) Err() error {
	if r.Ack != nil {
		return nil
	}
	return &APIError{Endpoint: EpBatchOrders.String(), Status: 200, Code: r.Code, Msg: r.Msg}
}

// TradeFee is the account's fee rate for a symbol.
type TradeFee struct {
	MakerCommission decimal.Decimal
	TakerCommission decimal.Decimal
}

// DustCandidate is an asset that may be converted to the platform token, or
// the reason it may not (Code and Message set).
type DustCandidate struct {
	Asset       string
	Balance     decimal.Decimal
	ConvertTok  decimal.Decimal // estimated token received
	ConvertUsdt decimal.Decimal // estimated value in USDT
	Code        string
	Message     string
}

// DustFailure is an asset a conversion refused, with the reason.
type DustFailure struct {
	Asset   string
	Message string
	Code    string
}

// DustResult is the reply to a dust conversion.
type DustResult struct {
	SuccessList  []string
	FailedList   []DustFailure
	TotalConvert decimal.Decimal
	ConvertFee   decimal.Decimal
}
