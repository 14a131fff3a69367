package simserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
)

// routeSpot installs the handlers of the spot account and trade endpoints.
func (s *Server) routeSpot() {
	h := s.handlers
	h[exchange.EpKYCStatus] = s.kycStatus
	h[exchange.EpUID] = func(r *request) (any, *apiError) { return map[string]string{"uid": r.key.UID}, nil }
	h[exchange.EpSelfSymbols] = s.selfSymbols
	h[exchange.EpTestOrder] = s.testOrder
	h[exchange.EpNewOrder] = s.newOrder
	h[exchange.EpBatchOrders] = s.batchOrders
	h[exchange.EpCancelOrder] = s.cancelOrder
	h[exchange.EpCancelOpenOrders] = s.cancelOpenOrders
	h[exchange.EpQueryOrder] = s.queryOrder
	h[exchange.EpOpenOrders] = s.openOrders
	h[exchange.EpAllOrders] = s.allOrders
	h[exchange.EpAccount] = s.account
	h[exchange.EpMyTrades] = s.myTrades
	h[exchange.EpSetTokDeduct] = s.setTokDeduct
	h[exchange.EpGetTokDeduct] = s.getTokDeduct
	h[exchange.EpTradeFee] = s.tradeFee
	s.routeSTP()
}

// port is the trading port of the key's account. The order events the
// simulator queues for in-process readers are dropped: over HTTP the client
// learns of fills by querying, and nothing else would drain them.
func (s *Server) port(r *request) *sim.Port {
	p := s.x.As(r.key.UID)
	p.DiscardEvents()
	return p
}

// window parses startTime and endTime; endTime may not precede startTime.
// listQuery is a symbol's list request: the required symbol, limit (with
// its default and maximum) and the optional startTime/endTime window.
type listQuery struct {
	symbol     string
	limit      int
	start, end time.Time
}

func parseListQuery(p *params, def, max int) (q listQuery, err *apiError) {
	if q.symbol, err = p.required("symbol"); err != nil {
		return q, err
	}
	if q.limit, err = p.limit("limit", def, max); err != nil {
		return q, err
	}
	q.start, q.end, err = window(p)
	return q, err
}

func window(p *params) (start, end time.Time, err *apiError) {
	if start, err = p.millis("startTime"); err != nil {
		return
	}
	if end, err = p.millis("endTime"); err != nil {
		return
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		err = badParam(exchange.CodeParameterError, "endTime is before startTime")
	}
	return
}

func (s *Server) kycStatus(r *request) (any, *apiError) {
	st, err := s.port(r).KYCStatus(context.Background())
	if err != nil {
		return nil, simErr(err)
	}
	return map[string]string{"status": st}, nil
}

func (s *Server) selfSymbols(r *request) (any, *apiError) {
	syms, err := s.port(r).SelfSymbols(context.Background())
	if err != nil {
		return nil, simErr(err)
	}
	return struct {
		Code int      `json:"code"`
		Data []string `json:"data"`
		Msg  *string  `json:"msg"`
	}{0, syms, nil}, nil
}

// parseOrder reads an order's parameters into an exchange.NewOrder and
// applies exchange's request-shape rules (NewOrder.Validate), so a
// malformed order gets the code and message the client and the simulator
// give it. Only what a NewOrder cannot hold is the wire's own refusal: a
// number that is not a plain decimal (33333). item is the order's index in
// a batch, -1 for a single order; a batch's rules are the caller's.
func parseOrder(p *params, item int) (exchange.NewOrder, *apiError) {
	var o exchange.NewOrder
	o.Symbol = p.str("symbol")
	o.Side = exchange.Side(p.str("side"))
	o.Type = exchange.OrderType(p.str("type"))
	if o.Type == "LIMIT_ORDER" { // the reference's batch sample (facts file)
		o.Type = exchange.TypeLimit
	}
	name := func(k string) string {
		if item < 0 {
			return k
		}
		return "batchOrders[" + strconv.Itoa(item) + "]." + k
	}
	var err *apiError
	if o.Quantity, err = p.decNamed("quantity", name("quantity")); err != nil {
		return o, err
	}
	if o.QuoteOrderQty, err = p.decNamed("quoteOrderQty", name("quoteOrderQty")); err != nil {
		return o, err
	}
	if o.Price, err = p.decNamed("price", name("price")); err != nil {
		return o, err
	}
	if o.Type == exchange.TypeMarket {
		// Widely used clients send a MARKET order's price beside
		// quoteOrderQty (facts file); the service ignores it. It is dropped
		// here, on the wire, after it was read as a decimal, so that
		// NewOrder.Validate still refuses a price on MARKET from a direct
		// caller of the port or the client (docs/sim.md).
		o.Price = decimal.Decimal{}
	}
	o.NewClientOrderID = p.str("newClientOrderId")
	o.STPMode = exchange.STPMode(p.str("stpMode"))
	if item < 0 {
		if err := o.Validate(); err != nil {
			return o, simErr(err)
		}
	}
	return o, nil
}

func (s *Server) testOrder(r *request) (any, *apiError) {
	o, perr := parseOrder(r.p, -1)
	if perr != nil {
		return nil, perr
	}
	if err := s.port(r).TestOrder(context.Background(), o); err != nil {
		return nil, simErr(err)
	}
	return struct{}{}, nil
}

func (s *Server) newOrder(r *request) (any, *apiError) {
	o, perr := parseOrder(r.p, -1)
	if perr != nil {
		return nil, perr
	}
	ack, err := s.port(r).PlaceOrder(context.Background(), o)
	if err != nil {
		return nil, simErr(err)
	}
	return toAckWire(ack), nil
}

// batchOrders places 1 to exchange.MaxBatchOrders orders of one symbol.
// The list arrives as the JSON text of an array of objects. A list that
// breaks a batch rule (exchange.ValidateBatch) or holds an item that cannot
// be read is refused whole, as the client and the simulator refuse it;
// otherwise each item is placed or refused on its own by the simulator.
func (s *Server) batchOrders(r *request) (any, *apiError) {
	text, perr := r.p.required("batchOrders")
	if perr != nil {
		return nil, perr
	}
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(text), &raws); err != nil {
		return nil, badParam(exchange.CodeParameterError, "parameter batchOrders: not a JSON array: %v", err)
	}
	if err := exchange.CheckBatchSize(len(raws)); err != nil {
		return nil, simErr(err)
	}
	orders := make([]exchange.NewOrder, len(raws))
	for i, raw := range raws {
		ip := &params{vals: map[string]string{}}
		if _, perr := ip.fromJSON(bytes.TrimSpace(raw)); perr != nil {
			return nil, badParam(perr.code, "parameter batchOrders[%d]: %s", i, perr.msg)
		}
		if orders[i], perr = parseOrder(ip, i); perr != nil {
			return nil, perr
		}
	}
	if err := exchange.ValidateBatch(orders); err != nil {
		return nil, simErr(err)
	}
	res, err := s.port(r).PlaceBatch(context.Background(), orders)
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]batchItemWire, len(res))
	for i, br := range res {
		if br.Ack == nil {
			out[i] = batchItemWire{NewClientOrderID: br.ClientOrderID, Code: br.Code, Msg: br.Msg}
			continue
		}
		l := int64(-1)
		out[i] = batchItemWire{Symbol: br.Ack.Symbol, OrderID: br.Ack.OrderID, OrderListID: &l, NewClientOrderID: br.Ack.ClientOrderID}
	}
	return out, nil
}

// orderRef reads symbol and orderId or origClientOrderId (700004 when
// neither is sent).
func orderRef(p *params) (symbol, orderID, clientID string, err *apiError) {
	if symbol, err = p.required("symbol"); err != nil {
		return
	}
	orderID, clientID = p.str("orderId"), p.str("origClientOrderId")
	if orderID == "" && clientID == "" {
		err = badParam(exchange.CodeOrderIDMissing, "Param 'origClientOrderId' or 'orderId' must be sent, but both were empty/null!")
	}
	return
}

func (s *Server) cancelOrder(r *request) (any, *apiError) {
	sym, id, cid, perr := orderRef(r.p)
	if perr != nil {
		return nil, perr
	}
	o, err := s.port(r).CancelOrder(context.Background(), exchange.CancelOrderRequest{Symbol: sym, OrderID: id, OrigClientOrderID: cid,
		NewClientOrderID: r.p.str("newClientOrderId")})
	if err != nil {
		return nil, simErr(err)
	}
	return toCancelWire(o, false), nil
}

func (s *Server) cancelOpenOrders(r *request) (any, *apiError) {
	sym, perr := r.p.required("symbol")
	if perr != nil {
		return nil, perr
	}
	os, err := s.port(r).CancelOpenOrders(context.Background(), sym)
	if err != nil {
		return nil, simErr(err)
	}
	out := make([]cancelWire, len(os))
	for i, o := range os {
		out[i] = toCancelWire(o, true)
	}
	return out, nil
}

func (s *Server) queryOrder(r *request) (any, *apiError) {
	sym, id, cid, perr := orderRef(r.p)
	if perr != nil {
		return nil, perr
	}
	o, err := s.port(r).QueryOrder(context.Background(), exchange.QueryOrderRequest{Symbol: sym, OrderID: id, OrigClientOrderID: cid})
	if err != nil {
		return nil, simErr(err)
	}
	return queryOrderWire(o), nil
}

func ordersWire(os []exchange.Order) []orderWire { return wires(os, toOrderWire) }

func (s *Server) openOrders(r *request) (any, *apiError) {
	sym := r.p.str("symbol")
	if sym != "" && !s.x.HasSymbol(sym) {
		return nil, badParam(exchange.CodeBadSymbol, "bad symbol %q", sym)
	}
	os, err := s.port(r).OpenOrders(context.Background(), sym)
	if err != nil {
		return nil, simErr(err)
	}
	return ordersWire(os), nil
}

func (s *Server) allOrders(r *request) (any, *apiError) {
	q, perr := parseListQuery(r.p, 500, 1000)
	if perr != nil {
		return nil, perr
	}
	if !s.x.HasSymbol(q.symbol) {
		return nil, badParam(exchange.CodeBadSymbol, "bad symbol %q", q.symbol)
	}
	os, err := s.port(r).AllOrders(context.Background(), exchange.AllOrdersRequest{Symbol: q.symbol, Start: q.start, End: q.end, Limit: q.limit})
	if err != nil {
		return nil, simErr(err)
	}
	return ordersWire(os), nil
}

func (s *Server) account(r *request) (any, *apiError) {
	a, err := s.port(r).Account(context.Background())
	if err != nil {
		return nil, simErr(err)
	}
	return toAccountWire(a), nil
}

func (s *Server) myTrades(r *request) (any, *apiError) {
	q, perr := parseListQuery(r.p, 100, 100)
	if perr != nil {
		return nil, perr
	}
	if !s.x.HasSymbol(q.symbol) {
		return nil, badParam(exchange.CodeBadSymbol, "bad symbol %q", q.symbol)
	}
	ts, err := s.port(r).MyTrades(context.Background(), exchange.MyTradesRequest{Symbol: q.symbol, OrderID: r.p.str("orderId"),
		Start: q.start, End: q.end, Limit: q.limit})
	if err != nil {
		return nil, simErr(err)
	}
	return wires(ts, toTradeWire), nil
}

func tokWire(now time.Time, on bool) envelopeWire {
	return envelope(now, struct {
		Enable bool `json:"tokDeductEnable"`
	}{on})
}

func (s *Server) setTokDeduct(r *request) (any, *apiError) {
	on, present, perr := r.p.bool("tokDeductEnable")
	if perr != nil {
		return nil, perr
	}
	if !present {
		return nil, badParam(exchange.CodeParameterNull, "parameter tokDeductEnable cannot be null")
	}
	got, err := s.port(r).SetTokDeduct(context.Background(), on)
	if err != nil {
		return nil, simErr(err)
	}
	return tokWire(r.now, got), nil
}

func (s *Server) getTokDeduct(r *request) (any, *apiError) {
	on, err := s.port(r).TokDeduct(context.Background())
	if err != nil {
		return nil, simErr(err)
	}
	return tokWire(r.now, on), nil
}

func (s *Server) tradeFee(r *request) (any, *apiError) {
	sym, perr := r.p.required("symbol")
	if perr != nil {
		return nil, perr
	}
	f, err := s.port(r).TradeFee(context.Background(), sym)
	if err != nil {
		return nil, simErr(err)
	}
	return envelope(r.now, struct {
		Maker json.Number `json:"makerCommission"`
		Taker json.Number `json:"takerCommission"`
	}{number(f.MakerCommission), number(f.TakerCommission)}), nil
}

// uidList parses a comma-separated list of UIDs.
func uidList(p *params) ([]string, *apiError) {
	v, err := p.required("uid")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, u := range strings.Split(v, ",") {
		if u = strings.TrimSpace(u); u == "" {
			return nil, badParam(exchange.CodeParameterError, "parameter uid: empty entry in %q", v)
		}
		out = append(out, u)
	}
	return out, nil
}
