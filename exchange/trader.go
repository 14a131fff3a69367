package exchange

import (
	"context"
	"time"
)

// The trading port over REST: each method is the area method of the same
// meaning, so strategies, the runtime and the jobs see one interface for the
// live service and the simulator.
var _ Trader = (*Client)(nil)

// ServerTime implements Trader.
func (c *Client) ServerTime(ctx context.Context) (time.Time, error) { return c.Market.ServerTime(ctx) }

// ExchangeInfo implements Trader.
func (c *Client) ExchangeInfo(ctx context.Context, symbols ...string) (*ExchangeInfo, error) {
	return c.Market.ExchangeInfo(ctx, symbols...)
}

// Klines implements Trader.
func (c *Client) Klines(ctx context.Context, r KlinesRequest) ([]Kline, error) {
	return c.Market.Klines(ctx, r)
}

// PlaceOrder implements Trader.
func (c *Client) PlaceOrder(ctx context.Context, o NewOrder) (OrderAck, error) {
	return c.Spot.NewOrder(ctx, o)
}

// TestOrder implements Trader.
func (c *Client) TestOrder(ctx context.Context, o NewOrder) error { return c.Spot.TestOrder(ctx, o) }

// PlaceBatch implements Trader.
func (c *Client) PlaceBatch(ctx context.Context, orders []NewOrder) ([]BatchResult, error) {
	return c.Spot.BatchOrders(ctx, orders)
}

// CancelOrder implements Trader.
func (c *Client) CancelOrder(ctx context.Context, r CancelOrderRequest) (Order, error) {
	return c.Spot.CancelOrder(ctx, r)
}

// CancelOpenOrders implements Trader.
func (c *Client) CancelOpenOrders(ctx context.Context, symbol string) ([]Order, error) {
	return c.Spot.CancelOpenOrders(ctx, symbol)
}

// QueryOrder implements Trader.
func (c *Client) QueryOrder(ctx context.Context, r QueryOrderRequest) (Order, error) {
	return c.Spot.QueryOrder(ctx, r)
}

// OpenOrders implements Trader.
func (c *Client) OpenOrders(ctx context.Context, symbol string) ([]Order, error) {
	return c.Spot.OpenOrders(ctx, symbol)
}

// Account implements Trader.
func (c *Client) Account(ctx context.Context) (*Account, error) { return c.Spot.Account(ctx) }

// MyTrades implements Trader.
func (c *Client) MyTrades(ctx context.Context, r MyTradesRequest) ([]OwnTrade, error) {
	return c.Spot.MyTrades(ctx, r)
}

// TradeFee implements Trader.
func (c *Client) TradeFee(ctx context.Context, symbol string) (TradeFee, error) {
	return c.Spot.TradeFee(ctx, symbol)
}

// DustCandidates implements Trader.
func (c *Client) DustCandidates(ctx context.Context) ([]DustCandidate, error) {
	return c.Wallet.DustCandidates(ctx)
}

// ConvertDust implements Trader.
func (c *Client) ConvertDust(ctx context.Context, assets []string) (DustResult, error) {
	return c.Wallet.ConvertDust(ctx, assets)
}
