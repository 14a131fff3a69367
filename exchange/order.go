package exchange

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/shopspring/decimal"
)

// Order is an order as the query, list and cancel endpoints return it
// (spec 2.4).
type Order struct {
	Symbol              string
	OrderID             string
	OrderListID         int64 // always -1 on spot
	ClientOrderID       string
	OrigClientOrderID   string
	Price               decimal.Decimal
	OrigQty             decimal.Decimal // the single-order query names it Qty
	ExecutedQty         decimal.Decimal
	CummulativeQuoteQty decimal.Decimal
	OrigQuoteOrderQty   decimal.Decimal
	Status              OrderStatus
	TimeInForce         string
	Type                OrderType
	Side                Side
	StopPrice           decimal.Decimal
	IcebergQty          decimal.Decimal
	Time                time.Time
	UpdateTime          time.Time
	IsWorking           bool
	STPMode             STPMode
	CancelReason        string
}

// orderWire is the wire form of Order, tolerant of every variant seen.
type orderWire struct {
	Symbol              string      `json:"symbol"`
	OrderID             FlexString  `json:"orderId"`
	OrderListID         FlexInt     `json:"orderListId"`
	ClientOrderID       string      `json:"clientOrderId"`
	OrigClientOrderID   string      `json:"origClientOrderId"`
	Price               FlexDecimal `json:"price"`
	OrigQty             OptDecimal  `json:"origQty"`
	Qty                 OptDecimal  `json:"Qty"`
	ExecutedQty         FlexDecimal `json:"executedQty"`
	CummulativeQuoteQty FlexDecimal `json:"cummulativeQuoteQty"`
	OrigQuoteOrderQty   FlexDecimal `json:"origQuoteOrderQty"`
	Status              OrderStatus `json:"status"`
	TimeInForce         *string     `json:"timeInForce"`
	Type                OrderType   `json:"type"`
	Side                Side        `json:"side"`
	StopPrice           FlexDecimal `json:"stopPrice"`
	IcebergQty          FlexDecimal `json:"icebergQty"`
	Time                Millis      `json:"time"`
	UpdateTime          Millis      `json:"updateTime"`
	IsWorking           FlexBool    `json:"isWorking"`
	STPMode             STPMode     `json:"stpMode"`
	CancelReason        *string     `json:"cancelReason"`
}

// UnmarshalJSON decodes an order; Qty and origQty are the same field.
func (o *Order) UnmarshalJSON(b []byte) error {
	var w orderWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	orig := w.OrigQty
	if !orig.Valid {
		orig = w.Qty
	}
	if w.Symbol == "" {
		return errors.New("order without symbol")
	}
	if w.OrderID == "" && w.ClientOrderID == "" && w.OrigClientOrderID == "" {
		return errors.New("order without orderId or client order id")
	}
	*o = Order{
		Symbol: w.Symbol, OrderID: string(w.OrderID), OrderListID: int64(w.OrderListID),
		ClientOrderID: w.ClientOrderID, OrigClientOrderID: w.OrigClientOrderID,
		Price: w.Price.Decimal, OrigQty: orig.Decimal, ExecutedQty: w.ExecutedQty.Decimal,
		CummulativeQuoteQty: w.CummulativeQuoteQty.Decimal, OrigQuoteOrderQty: w.OrigQuoteOrderQty.Decimal,
		Status: w.Status, Type: w.Type, Side: w.Side, StopPrice: w.StopPrice.Decimal,
		IcebergQty: w.IcebergQty.Decimal, Time: w.Time.Time(), UpdateTime: w.UpdateTime.Time(),
		IsWorking: bool(w.IsWorking), STPMode: w.STPMode,
	}
	if w.TimeInForce != nil {
		o.TimeInForce = *w.TimeInForce
	}
	if w.CancelReason != nil {
		o.CancelReason = *w.CancelReason
	}
	return nil
}

// OwnTrade is one fill of the account's own orders (spec 2.5).
type OwnTrade struct {
	Symbol          string
	ID              string
	OrderID         string
	OrderListID     int64
	Price           decimal.Decimal
	Qty             decimal.Decimal
	QuoteQty        decimal.Decimal
	Commission      decimal.Decimal
	CommissionAsset string
	Time            time.Time
	IsBuyer         bool
	IsMaker         bool
	IsBestMatch     bool
	IsSelfTrade     bool
	ClientOrderID   string // may be empty (null on the wire)
}

// UnmarshalJSON decodes an own trade.
func (t *OwnTrade) UnmarshalJSON(b []byte) error {
	var w struct {
		Symbol          string      `json:"symbol"`
		ID              FlexString  `json:"id"`
		OrderID         FlexString  `json:"orderId"`
		OrderListID     FlexInt     `json:"orderListId"`
		Price           FlexDecimal `json:"price"`
		Qty             FlexDecimal `json:"qty"`
		QuoteQty        FlexDecimal `json:"quoteQty"`
		Commission      FlexDecimal `json:"commission"`
		CommissionAsset *string     `json:"commissionAsset"`
		Time            Millis      `json:"time"`
		IsBuyer         FlexBool    `json:"isBuyer"`
		IsMaker         FlexBool    `json:"isMaker"`
		IsBestMatch     FlexBool    `json:"isBestMatch"`
		IsSelfTrade     FlexBool    `json:"isSelfTrade"`
		ClientOrderID   *string     `json:"clientOrderId"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Symbol == "" || w.ID == "" || w.OrderID == "" {
		return errors.New("trade without symbol, id or orderId")
	}
	*t = OwnTrade{
		Symbol: w.Symbol, ID: string(w.ID), OrderID: string(w.OrderID), OrderListID: int64(w.OrderListID),
		Price: w.Price.Decimal, Qty: w.Qty.Decimal, QuoteQty: w.QuoteQty.Decimal,
		Commission: w.Commission.Decimal, Time: w.Time.Time(), IsBuyer: bool(w.IsBuyer),
		IsMaker: bool(w.IsMaker), IsBestMatch: bool(w.IsBestMatch), IsSelfTrade: bool(w.IsSelfTrade),
	}
	if w.CommissionAsset != nil {
		t.CommissionAsset = *w.CommissionAsset
	}
	if w.ClientOrderID != nil {
		t.ClientOrderID = *w.ClientOrderID
	}
	return nil
}

// NewOrder is an order to place (POST /api/v3/order, /api/v3/order/test and
// each item of a batch).
type NewOrder struct {
	Symbol           string
	Side             Side
	Type             OrderType
	Quantity         decimal.Decimal // base quantity
	QuoteOrderQty    decimal.Decimal // MARKET BUY: quote amount to spend
	Price            decimal.Decimal
	NewClientOrderID string
	STPMode          STPMode
}

// OrderAck is the reply to a new order. It has no status: an order id means
// the order was accepted; its state comes from querying it.
type OrderAck struct {
	Symbol        string
	OrderID       string
	OrderListID   int64
	ClientOrderID string
	Price         decimal.Decimal
	OrigQty       decimal.Decimal
	Type          OrderType
	Side          Side
	STPMode       STPMode
	TransactTime  time.Time
}

// UnmarshalJSON decodes a new-order acknowledgement.
func (a *OrderAck) UnmarshalJSON(b []byte) error {
	var w struct {
		Symbol           string      `json:"symbol"`
		OrderID          FlexString  `json:"orderId"`
		OrderListID      FlexInt     `json:"orderListId"`
		ClientOrderID    string      `json:"clientOrderId"`
		NewClientOrderID string      `json:"newClientOrderId"`
		Price            FlexDecimal `json:"price"`
		OrigQty          FlexDecimal `json:"origQty"`
		Type             OrderType   `json:"type"`
		Side             Side        `json:"side"`
		STPMode          STPMode     `json:"stpMode"`
		TransactTime     Millis      `json:"transactTime"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.OrderID == "" {
		return errors.New("order acknowledgement without orderId")
	}
	cid := w.ClientOrderID
	if cid == "" {
		cid = w.NewClientOrderID
	}
	*a = OrderAck{Symbol: w.Symbol, OrderID: string(w.OrderID), OrderListID: int64(w.OrderListID),
		ClientOrderID: cid, Price: w.Price.Decimal, OrigQty: w.OrigQty.Decimal, Type: w.Type,
		Side: w.Side, STPMode: w.STPMode, TransactTime: w.TransactTime.Time()}
	return nil
}

// Balance is one asset of an account.
type Balance struct {
	Asset     string
	Free      decimal.Decimal
	Locked    decimal.Decimal
	Available decimal.Decimal
}

// UnmarshalJSON decodes a balance, requiring asset and free.
func (bl *Balance) UnmarshalJSON(b []byte) error {
	var w struct {
		Asset     string      `json:"asset"`
		Free      OptDecimal  `json:"free"`
		Locked    FlexDecimal `json:"locked"`
		Available FlexDecimal `json:"available"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Asset == "" || !w.Free.Valid {
		return errors.New("balance without asset or free amount")
	}
	*bl = Balance{Asset: w.Asset, Free: w.Free.Decimal, Locked: w.Locked.Decimal, Available: w.Available.Decimal}
	return nil
}

// Account is the spot account (spec 2.7).
type Account struct {
	MakerCommission  OptDecimal
	TakerCommission  OptDecimal
	BuyerCommission  OptDecimal
	SellerCommission OptDecimal
	CanTrade         bool
	CanWithdraw      bool
	CanDeposit       bool
	UpdateTime       time.Time
	AccountType      string
	Balances         []Balance
	Permissions      []string
}

// UnmarshalJSON decodes an account.
func (a *Account) UnmarshalJSON(b []byte) error {
	var w struct {
		MakerCommission  OptDecimal `json:"makerCommission"`
		TakerCommission  OptDecimal `json:"takerCommission"`
		BuyerCommission  OptDecimal `json:"buyerCommission"`
		SellerCommission OptDecimal `json:"sellerCommission"`
		CanTrade         FlexBool   `json:"canTrade"`
		CanWithdraw      FlexBool   `json:"canWithdraw"`
		CanDeposit       FlexBool   `json:"canDeposit"`
		UpdateTime       Millis     `json:"updateTime"`
		AccountType      string     `json:"accountType"`
		Balances         *[]Balance `json:"balances"`
		Permissions      []string   `json:"permissions"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Balances == nil {
		return errors.New("account without balances")
	}
	*a = Account{MakerCommission: w.MakerCommission, TakerCommission: w.TakerCommission,
		BuyerCommission: w.BuyerCommission, SellerCommission: w.SellerCommission,
		CanTrade: bool(w.CanTrade), CanWithdraw: bool(w.CanWithdraw), CanDeposit: bool(w.CanDeposit),
		UpdateTime: w.UpdateTime.Time(), AccountType: w.AccountType, Balances: *w.Balances,
		Permissions: w.Permissions}
	return nil
}

// Balance returns the balance of asset, or a zero balance.
func (a *Account) Balance(asset string) Balance {
	for _, b := range a.Balances {
		if b.Asset == asset {
			return b
		}
	}
	return Balance{Asset: asset}
}
