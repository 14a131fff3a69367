package exchange

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// refusedOn returns a request-shape refusal (a *RuleError from Validate or
// ValidateBatch) as made on endpoint ep, so it equals what the server would
// answer there: same status, code and message, and the endpoint's name.
func refusedOn(ep EndpointID, err error) error {
	if re, ok := err.(*RuleError); ok && re.Endpoint != ep.String() {
		c := *re
		c.Endpoint = ep.String()
		return &c
	}
	return err
}

// orderQuery writes an order's parameters in the spec's order.
func orderQuery(q *query, o *NewOrder) {
	q.str("symbol", o.Symbol)
	q.str("side", string(o.Side))
	q.str("type", string(o.Type))
	q.dec("quantity", o.Quantity)
	q.dec("quoteOrderQty", o.QuoteOrderQty)
	q.dec("price", o.Price)
	q.str("newClientOrderId", o.NewClientOrderID)
	q.str("stpMode", string(o.STPMode))
}

// TestOrder validates an order on the exchange without sending it to
// matching.
func (s *SpotService) TestOrder(ctx context.Context, o NewOrder) error {
	if err := o.Validate(); err != nil {
		return refusedOn(EpTestOrder, err)
	}
	q := query{buf: make([]byte, 0, 256)}
	orderQuery(&q, &o)
	return s.c.do(ctx, EpTestOrder, &q, nil)
}

// NewOrder places an order. The acknowledgement has no status: query the
// order for its state. An *UnknownOutcomeError means the order may exist:
// look it up by its client order id rather than sending it again.
func (s *SpotService) NewOrder(ctx context.Context, o NewOrder) (OrderAck, error) {
	if err := o.Validate(); err != nil {
		return OrderAck{}, err
	}
	q := query{buf: make([]byte, 0, 256)}
	orderQuery(&q, &o)
	var ack OrderAck
	if err := s.c.do(ctx, EpNewOrder, &q, &ack); err != nil {
		return OrderAck{}, err
	}
	return ack, nil
}

// batchItem is one order in the batchOrders JSON text.
type batchItem struct {
	Symbol           string `json:"symbol"`
	Side             Side   `json:"side"`
	Type             string `json:"type"`
	Quantity         string `json:"quantity,omitempty"`
	QuoteOrderQty    string `json:"quoteOrderQty,omitempty"`
	Price            string `json:"price,omitempty"`
	NewClientOrderID string `json:"newClientOrderId,omitempty"`
	STPMode          string `json:"stpMode,omitempty"`
}

// decText is a decimal's wire text, empty for zero (left out of the batch).
func decText(d decimal.Decimal) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

// BatchOrders places 1 to MaxBatchOrders orders of one symbol in one
// request; a batch ValidateBatch refuses is not sent. The result has one
// item per order, in order; refused items carry a code.
func (s *SpotService) BatchOrders(ctx context.Context, orders []NewOrder) ([]BatchResult, error) {
	if err := ValidateBatch(orders); err != nil {
		return nil, err
	}
	items := make([]batchItem, len(orders))
	for i := range orders {
		o := &orders[i]
		items[i] = batchItem{Symbol: o.Symbol, Side: o.Side, Type: string(o.Type), Quantity: decText(o.Quantity),
			QuoteOrderQty: decText(o.QuoteOrderQty), Price: decText(o.Price), NewClientOrderID: o.NewClientOrderID, STPMode: string(o.STPMode)}
	}
	text, err := json.Marshal(items)
	if err != nil {
		return nil, err
	}
	var q query
	q.str("batchOrders", string(text))
	body, err := s.c.call(ctx, EpBatchOrders, &q)
	if err != nil {
		return nil, err
	}
	var raw []struct {
		Symbol           string      `json:"symbol"`
		OrderID          FlexString  `json:"orderId"`
		OrderListID      FlexInt     `json:"orderListId"`
		NewClientOrderID string      `json:"newClientOrderId"`
		ClientOrderID    string      `json:"clientOrderId"`
		Code             *FlexInt    `json:"code"`
		Msg              string      `json:"msg"`
		Price            FlexDecimal `json:"price"`
		OrigQty          FlexDecimal `json:"origQty"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, decodeError(EpBatchOrders, body, err)
	}
	if len(raw) != len(orders) {
		// The orders may exist: the caller must reconcile by client id.
		return nil, &UnknownOutcomeError{Endpoint: EpBatchOrders.String(), Status: 200,
			Msg: fmt.Sprintf("reply has %d items for %d orders", len(raw), len(orders))}
	}
	out := make([]BatchResult, len(raw))
	for i, r := range raw {
		cid := r.NewClientOrderID
		if cid == "" {
			cid = r.ClientOrderID
		}
		if cid == "" {
			cid = orders[i].NewClientOrderID
		}
		if r.OrderID == "" {
			if r.Code == nil {
				return nil, decodeError(EpBatchOrders, body, fmt.Errorf("item %d has neither orderId nor code", i))
			}
			out[i] = BatchResult{ClientOrderID: cid, Code: int(*r.Code), Msg: r.Msg}
			continue
		}
		out[i] = BatchResult{ClientOrderID: cid, Ack: &OrderAck{Symbol: r.Symbol, OrderID: string(r.OrderID),
			OrderListID: int64(r.OrderListID), ClientOrderID: cid, Price: r.Price.Decimal, OrigQty: r.OrigQty.Decimal,
			Side: orders[i].Side, Type: orders[i].Type, STPMode: orders[i].STPMode}}
	}
	return out, nil
}

// orderRef validates a reference to one order.
func orderRef(ep EndpointID, q *query, symbol, orderID, origClientID string) error {
	switch {
	case symbol == "":
		return invalid(ep, "symbol", "required")
	case orderID == "" && origClientID == "":
		return invalid(ep, "orderId", "one of orderId and origClientOrderId is required")
	}
	q.str("symbol", symbol)
	q.str("orderId", orderID)
	q.str("origClientOrderId", origClientID)
	return nil
}

// CancelOrder cancels one order, named by OrderID or OrigClientOrderID.
func (s *SpotService) CancelOrder(ctx context.Context, r CancelOrderRequest) (Order, error) {
	var q query
	if err := orderRef(EpCancelOrder, &q, r.Symbol, r.OrderID, r.OrigClientOrderID); err != nil {
		return Order{}, err
	}
	if !ValidClientOrderID(r.NewClientOrderID) {
		return Order{}, invalid(EpCancelOrder, "newClientOrderId", "%s is not at most %d letters, digits, '-' and '_'", quoted(r.NewClientOrderID), MaxClientOrderIDLen)
	}
	q.str("newClientOrderId", r.NewClientOrderID)
	var o Order
	if err := s.c.do(ctx, EpCancelOrder, &q, &o); err != nil {
		return Order{}, err
	}
	return o, nil
}

// CancelOpenOrders cancels every open order of a symbol.
func (s *SpotService) CancelOpenOrders(ctx context.Context, symbol string) ([]Order, error) {
	if symbol == "" {
		return nil, invalid(EpCancelOpenOrders, "symbol", "required")
	}
	var q query
	q.str("symbol", symbol)
	var out []Order
	if err := s.c.do(ctx, EpCancelOpenOrders, &q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// QueryOrder returns one order, named by OrderID or OrigClientOrderID.
func (s *SpotService) QueryOrder(ctx context.Context, r QueryOrderRequest) (Order, error) {
	var q query
	if err := orderRef(EpQueryOrder, &q, r.Symbol, r.OrderID, r.OrigClientOrderID); err != nil {
		return Order{}, err
	}
	var o Order
	if err := s.c.do(ctx, EpQueryOrder, &q, &o); err != nil {
		return Order{}, err
	}
	return o, nil
}

// OpenOrders returns the open orders of a symbol, or of all symbols when
// symbol is empty.
func (s *SpotService) OpenOrders(ctx context.Context, symbol string) ([]Order, error) {
	var q query
	q.str("symbol", symbol)
	var out []Order
	if err := s.c.do(ctx, EpOpenOrders, &q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// AllOrdersRequest selects orders of a symbol; the window may span at most
// 7 days (the server default is the last 24 hours).
type AllOrdersRequest struct {
	Symbol string
	Start  time.Time
	End    time.Time
	Limit  int // 0: default 500; else 1..1000
}

// maxAllOrdersWindow is the longest window allOrders serves.
const maxAllOrdersWindow = 7 * 24 * time.Hour

// AllOrders returns orders of a symbol, open or not.
func (s *SpotService) AllOrders(ctx context.Context, r AllOrdersRequest) ([]Order, error) {
	if r.Symbol == "" {
		return nil, invalid(EpAllOrders, "symbol", "required")
	}
	if err := checkWindow(EpAllOrders, r.Start, r.End, false); err != nil {
		return nil, err
	}
	if !r.Start.IsZero() && !r.End.IsZero() && r.End.Sub(r.Start) > maxAllOrdersWindow {
		return nil, invalid(EpAllOrders, "endTime", "window of %s exceeds 7 days", r.End.Sub(r.Start))
	}
	if r.Limit < 0 || r.Limit > 1000 {
		return nil, invalid(EpAllOrders, "limit", "%d is outside 1..1000", r.Limit)
	}
	var q query
	q.str("symbol", r.Symbol)
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("limit", int64(r.Limit))
	var out []Order
	if err := s.c.do(ctx, EpAllOrders, &q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// MyTrades returns the account's trades of a symbol (the past month).
func (s *SpotService) MyTrades(ctx context.Context, r MyTradesRequest) ([]OwnTrade, error) {
	if r.Symbol == "" {
		return nil, invalid(EpMyTrades, "symbol", "required")
	}
	if err := checkWindow(EpMyTrades, r.Start, r.End, false); err != nil {
		return nil, err
	}
	if r.Limit < 0 || r.Limit > 100 {
		return nil, invalid(EpMyTrades, "limit", "%d is outside 1..100", r.Limit)
	}
	var q query
	q.str("symbol", r.Symbol)
	q.str("orderId", r.OrderID)
	q.time("startTime", r.Start)
	q.time("endTime", r.End)
	q.optInt("limit", int64(r.Limit))
	var out []OwnTrade
	if err := s.c.do(ctx, EpMyTrades, &q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// joinIDs joins identifiers with commas, refusing empty ones.
func joinIDs(ep EndpointID, field string, ids []string) (string, error) {
	if len(ids) == 0 {
		return "", invalid(ep, field, "at least one is required")
	}
	for i, id := range ids {
		if id == "" || strings.Contains(id, ",") {
			return "", invalid(ep, field, "entry %d (%q) is empty or holds a comma", i, id)
		}
	}
	return strings.Join(ids, ","), nil
}
