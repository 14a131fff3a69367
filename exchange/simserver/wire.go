package simserver

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// The reply shapes of the spec (sections 2 and 4), written with the wire's
// names. Amounts and prices are decimal strings; times are milliseconds.

// wires converts records to their wire rows, never nil (an empty list
// encodes as [], not null).
func wires[T, W any](xs []T, to func(T) W) []W {
	out := make([]W, len(xs))
	for i, x := range xs {
		out[i] = to(x)
	}
	return out
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// orderWire is an order (spec 2.4) as the list endpoints send it.
type orderWire struct {
	Symbol              string           `json:"symbol"`
	OrderID             string           `json:"orderId"`
	OrderListID         int64            `json:"orderListId"`
	ClientOrderID       string           `json:"clientOrderId"`
	Price               string           `json:"price"`
	OrigQty             string           `json:"origQty,omitempty"`
	Qty                 string           `json:"Qty,omitempty"`
	ExecutedQty         string           `json:"executedQty"`
	CummulativeQuoteQty string           `json:"cummulativeQuoteQty"`
	OrigQuoteOrderQty   string           `json:"origQuoteOrderQty"`
	Status              string           `json:"status"`
	TimeInForce         *string          `json:"timeInForce"`
	Type                string           `json:"type"`
	Side                string           `json:"side"`
	StopPrice           string           `json:"stopPrice"`
	IcebergQty          string           `json:"icebergQty"`
	Time                int64            `json:"time"`
	UpdateTime          int64            `json:"updateTime"`
	IsWorking           bool             `json:"isWorking"`
	STPMode             exchange.STPMode `json:"stpMode"`
	CancelReason        *string          `json:"cancelReason,omitempty"`
}

func toOrderWire(o exchange.Order) orderWire {
	w := orderWire{Symbol: o.Symbol, OrderID: o.OrderID, OrderListID: -1, ClientOrderID: o.ClientOrderID,
		Price: o.Price.String(), OrigQty: o.OrigQty.String(), ExecutedQty: o.ExecutedQty.String(),
		CummulativeQuoteQty: o.CummulativeQuoteQty.String(), OrigQuoteOrderQty: o.OrigQuoteOrderQty.String(),
		Status: string(o.Status), Type: string(o.Type), Side: string(o.Side), StopPrice: o.StopPrice.String(),
		IcebergQty: o.IcebergQty.String(), Time: ms(o.Time), UpdateTime: ms(o.UpdateTime), IsWorking: o.IsWorking,
		STPMode: o.STPMode}
	if o.TimeInForce != "" {
		tif := o.TimeInForce
		w.TimeInForce = &tif
	}
	if o.CancelReason != "" {
		r := o.CancelReason
		w.CancelReason = &r
	}
	return w
}

// queryOrderWire is the single-order query's reply. The spec names the
// original quantity "Qty" there; clients read "origQty" (facts file), so
// both are sent.
func queryOrderWire(o exchange.Order) orderWire {
	w := toOrderWire(o)
	w.Qty = w.OrigQty
	return w
}

// cancelWire is the reply of the cancel endpoints (spec 4.3).
type cancelWire struct {
	Symbol              string  `json:"symbol"`
	OrigClientOrderID   string  `json:"origClientOrderId"`
	OrderID             string  `json:"orderId"`
	OrderListID         *int64  `json:"orderListId,omitempty"`
	ClientOrderID       string  `json:"clientOrderId"`
	Price               string  `json:"price"`
	OrigQty             string  `json:"origQty"`
	ExecutedQty         string  `json:"executedQty"`
	CummulativeQuoteQty string  `json:"cummulativeQuoteQty"`
	Status              string  `json:"status"`
	TimeInForce         *string `json:"timeInForce"`
	Type                string  `json:"type"`
	Side                string  `json:"side"`
}

func toCancelWire(o exchange.Order, withList bool) cancelWire {
	w := cancelWire{Symbol: o.Symbol, OrigClientOrderID: o.OrigClientOrderID, OrderID: o.OrderID, ClientOrderID: o.ClientOrderID,
		Price: o.Price.String(), OrigQty: o.OrigQty.String(), ExecutedQty: o.ExecutedQty.String(),
		CummulativeQuoteQty: o.CummulativeQuoteQty.String(), Status: string(o.Status), Type: string(o.Type), Side: string(o.Side)}
	if w.OrigClientOrderID == "" {
		w.OrigClientOrderID = o.ClientOrderID
	}
	if o.TimeInForce != "" {
		tif := o.TimeInForce
		w.TimeInForce = &tif
	}
	if withList {
		l := int64(-1)
		w.OrderListID = &l
	}
	return w
}

// ackWire is the new-order reply (spec 4.3): no status.
type ackWire struct {
	Symbol       string `json:"symbol"`
	OrderID      string `json:"orderId"`
	OrderListID  int64  `json:"orderListId"`
	Price        string `json:"price"`
	OrigQty      string `json:"origQty"`
	Type         string `json:"type"`
	Side         string `json:"side"`
	STPMode      string `json:"stpMode"`
	TransactTime int64  `json:"transactTime"`
}

func toAckWire(a exchange.OrderAck) ackWire {
	return ackWire{Symbol: a.Symbol, OrderID: a.OrderID, OrderListID: -1, Price: a.Price.String(), OrigQty: a.OrigQty.String(),
		Type: string(a.Type), Side: string(a.Side), STPMode: string(a.STPMode), TransactTime: ms(a.TransactTime)}
}

// batchItemWire is one item of the batch reply: placed (orderId set) or
// refused (code and msg set).
type batchItemWire struct {
	Symbol           string `json:"symbol,omitempty"`
	OrderID          string `json:"orderId,omitempty"`
	OrderListID      *int64 `json:"orderListId,omitempty"`
	NewClientOrderID string `json:"newClientOrderId,omitempty"`
	Msg              string `json:"msg,omitempty"`
	Code             int    `json:"code,omitempty"`
}

// tradeWire is an own trade (spec 2.5).
type tradeWire struct {
	Symbol          string  `json:"symbol"`
	ID              string  `json:"id"`
	OrderID         string  `json:"orderId"`
	OrderListID     int64   `json:"orderListId"`
	Price           string  `json:"price"`
	Qty             string  `json:"qty"`
	QuoteQty        string  `json:"quoteQty"`
	Commission      string  `json:"commission"`
	CommissionAsset string  `json:"commissionAsset"`
	Time            int64   `json:"time"`
	IsBuyer         bool    `json:"isBuyer"`
	IsMaker         bool    `json:"isMaker"`
	IsBestMatch     bool    `json:"isBestMatch"`
	IsSelfTrade     bool    `json:"isSelfTrade"`
	ClientOrderID   *string `json:"clientOrderId"`
}

func toTradeWire(t exchange.OwnTrade) tradeWire {
	w := tradeWire{Symbol: t.Symbol, ID: t.ID, OrderID: t.OrderID, OrderListID: -1, Price: t.Price.String(), Qty: t.Qty.String(),
		QuoteQty: t.QuoteQty.String(), Commission: t.Commission.String(), CommissionAsset: t.CommissionAsset, Time: ms(t.Time),
		IsBuyer: t.IsBuyer, IsMaker: t.IsMaker, IsBestMatch: t.IsBestMatch, IsSelfTrade: t.IsSelfTrade}
	if t.ClientOrderID != "" {
		c := t.ClientOrderID
		w.ClientOrderID = &c
	}
	return w
}

// accountWire is the account (spec 2.7).
type accountWire struct {
	MakerCommission  exchange.OptDecimal `json:"makerCommission"`
	TakerCommission  exchange.OptDecimal `json:"takerCommission"`
	BuyerCommission  exchange.OptDecimal `json:"buyerCommission"`
	SellerCommission exchange.OptDecimal `json:"sellerCommission"`
	CanTrade         bool                `json:"canTrade"`
	CanWithdraw      bool                `json:"canWithdraw"`
	CanDeposit       bool                `json:"canDeposit"`
	UpdateTime       *int64              `json:"updateTime"`
	AccountType      string              `json:"accountType"`
	Balances         []balanceWire       `json:"balances"`
	Permissions      []string            `json:"permissions"`
}

type balanceWire struct {
	Asset     string `json:"asset"`
	Free      string `json:"free"`
	Locked    string `json:"locked"`
	Available string `json:"available"`
}

func toAccountWire(a *exchange.Account) accountWire {
	w := accountWire{MakerCommission: a.MakerCommission, TakerCommission: a.TakerCommission, BuyerCommission: a.BuyerCommission,
		SellerCommission: a.SellerCommission, CanTrade: a.CanTrade, CanWithdraw: a.CanWithdraw, CanDeposit: a.CanDeposit,
		AccountType: a.AccountType, Balances: make([]balanceWire, 0, len(a.Balances)), Permissions: a.Permissions}
	if !a.UpdateTime.IsZero() {
		u := ms(a.UpdateTime)
		w.UpdateTime = &u
	}
	for _, b := range a.Balances {
		w.Balances = append(w.Balances, balanceWire{Asset: b.Asset, Free: b.Free.String(), Locked: b.Locked.String(), Available: b.Available.String()})
	}
	return w
}

// envelopeWire is the {code, msg, data, timestamp} reply of some endpoints.
type envelopeWire struct {
	Data      any    `json:"data"`
	Code      int    `json:"code"`
	Msg       string `json:"msg"`
	Timestamp int64  `json:"timestamp"`
}

func envelope(now time.Time, data any) envelopeWire {
	return envelopeWire{Data: data, Code: 0, Msg: "success", Timestamp: now.UnixMilli()}
}

// groupWire is an STP group (spec 2.8).
type groupWire struct {
	Name       string      `json:"tradeGroupName"`
	ID         json.Number `json:"tradeGroupId"`
	UIDs       *string     `json:"tradeGroupUid,omitempty"`
	CreateTime int64       `json:"createTime"`
	UpdateTime int64       `json:"updateTime"`
}

func toGroupWire(g exchange.STPGroup, withUIDs bool) groupWire {
	w := groupWire{Name: g.Name, ID: json.Number(g.ID), CreateTime: ms(g.CreateTime), UpdateTime: ms(g.UpdateTime)}
	if withUIDs {
		u := strings.Join(g.UIDs, ",")
		w.UIDs = &u
	}
	return w
}

// number writes a decimal as a JSON number (the trade fee's rates).
func number(d decimal.Decimal) json.Number { return json.Number(d.String()) }

// simErr turns the simulator's refusal into the reply the live service
// sends: its status (400 unless stated) and code.
func simErr(err error) *apiError {
	var rl *exchange.RateLimitError
	if errors.As(err, &rl) {
		return &apiError{status: 429, code: exchange.CodeTooManyRequests, msg: rl.Error(), retryAfter: rl.RetryAfter}
	}
	var ae *exchange.APIError
	if errors.As(err, &ae) {
		st := ae.Status
		if st == 0 || st == 200 {
			st = 400
		}
		return &apiError{status: st, code: ae.Code, msg: ae.Msg}
	}
	return &apiError{status: 500, code: exchange.CodeInternalError, msg: err.Error()}
}
