package obs

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/daemon"
)

// statusJSON is the /status body: the Status as it encodes itself, with
// its embedded domain types spelled out in snake_case like the rest.
// daemon.FeedKline embeds exchange.Kline, whose MarshalJSON (the wire's
// array form) would otherwise be promoted and drop the symbol and
// interval; strategy.Position, strategy.Order and exchange.Balance carry
// no JSON names, and an order's error would encode as {}.
type statusJSON struct {
	daemon.Status
	Positions  []positionJSON `json:"positions"`
	OpenOrders []orderJSON    `json:"open_orders"`
	Balances   []balanceJSON  `json:"balances"`
	LastKlines []feedJSON     `json:"last_klines"`
}

type positionJSON struct {
	Instance   string          `json:"instance"`
	Symbol     string          `json:"symbol"`
	Qty        decimal.Decimal `json:"qty"`
	AvgPrice   decimal.Decimal `json:"avg_price"`
	Realized   decimal.Decimal `json:"realized"`
	FeesQuote  decimal.Decimal `json:"fees_quote"`
	FeesBase   decimal.Decimal `json:"fees_base"`
	FeesOther  decimal.Decimal `json:"fees_other"`
	OtherAsset string          `json:"other_asset,omitempty"`
}

type orderJSON struct {
	Instance      string          `json:"instance"`
	ClientOrderID string          `json:"client_order_id"`
	OrderID       string          `json:"order_id,omitempty"`
	Symbol        string          `json:"symbol"`
	Side          string          `json:"side"`
	Type          string          `json:"type"`
	Price         decimal.Decimal `json:"price"`
	Quantity      decimal.Decimal `json:"quantity"`
	QuoteOrderQty decimal.Decimal `json:"quote_order_qty"`
	Status        string          `json:"status,omitempty"`
	ExecutedQty   decimal.Decimal `json:"executed_qty"`
	CumQuoteQty   decimal.Decimal `json:"cum_quote_qty"`
	CancelReason  string          `json:"cancel_reason,omitempty"`
	Error         string          `json:"error,omitempty"`
}

type balanceJSON struct {
	Asset  string          `json:"asset"`
	Free   decimal.Decimal `json:"free"`
	Locked decimal.Decimal `json:"locked"`
}

type feedJSON struct {
	Symbol    string          `json:"symbol"`
	Interval  string          `json:"interval"`
	OpenTime  time.Time       `json:"open_time"`
	CloseTime time.Time       `json:"close_time"`
	Open      decimal.Decimal `json:"open"`
	High      decimal.Decimal `json:"high"`
	Low       decimal.Decimal `json:"low"`
	Close     decimal.Decimal `json:"close"`
	Volume    decimal.Decimal `json:"volume"`
}

func newStatusJSON(s daemon.Status) statusJSON {
	v := statusJSON{Status: s, Positions: make([]positionJSON, 0, len(s.Positions)), OpenOrders: make([]orderJSON, 0, len(s.OpenOrders)),
		Balances: make([]balanceJSON, 0, len(s.Balances)), LastKlines: make([]feedJSON, 0, len(s.LastKlines))}
	for _, p := range s.Positions {
		v.Positions = append(v.Positions, positionJSON{Instance: p.Instance, Symbol: p.Symbol, Qty: p.Qty, AvgPrice: p.AvgPrice,
			Realized: p.Realized, FeesQuote: p.FeesQuote, FeesBase: p.FeesBase, FeesOther: p.FeesOther, OtherAsset: p.OtherAsset})
	}
	for _, o := range s.OpenOrders {
		j := orderJSON{Instance: o.Instance, ClientOrderID: o.ClientOrderID, OrderID: o.OrderID, Symbol: o.Symbol, Side: string(o.Side),
			Type: string(o.Type), Price: o.Price, Quantity: o.Quantity, QuoteOrderQty: o.QuoteOrderQty, Status: string(o.Status),
			ExecutedQty: o.ExecutedQty, CumQuoteQty: o.CumQuoteQty, CancelReason: o.CancelReason}
		if o.Err != nil {
			j.Error = o.Err.Error()
		}
		v.OpenOrders = append(v.OpenOrders, j)
	}
	for _, b := range s.Balances {
		v.Balances = append(v.Balances, balanceJSON{Asset: b.Asset, Free: b.Free, Locked: b.Locked})
	}
	for _, f := range s.LastKlines {
		v.LastKlines = append(v.LastKlines, feedJSON{Symbol: f.Symbol, Interval: string(f.Interval), OpenTime: f.OpenTime,
			CloseTime: f.CloseTime, Open: f.Open, High: f.High, Low: f.Low, Close: f.Close, Volume: f.Volume})
	}
	return v
}
