package sim

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// order is the engine's record of an order: what it was placed with, kept
// as given (exact decimals, shared with the request, never copied), and
// what changed since. The exchange.Order a caller sees (an acknowledgement,
// a query, an event) is built from it when asked for (view): the record
// holds no field the exchange never sets (stop price, iceberg quantity,
// order list), the symbol is its market's, and the type, side, STP mode
// and status are a byte each: 256 bytes, where an exchange.Order with the
// engine's own fields beside it took 464. Order records are what placing
// an order allocates (see orderSlab).
type order struct {
	acct *account
	m    *market
	seq  int64  // the order number (its id in decimal) and time priority
	cid  string // client order id
	oid  string // order id (the tail of cid when the exchange generated cid)
	// price, qty and quoteQty are the request's (zero when not given).
	price, qty, quoteQty decimal.Decimal
	executed, cumQuote   decimal.Decimal
	left                 decimal.Decimal // base quantity still to fill (quote for a quote-sized market buy)
	// lock is what the order holds locked, in lockBal (balances are never
	// replaced; lockBal.asset names the asset).
	lockBal *balance
	lock    amount
	at, upd time.Time // placed, last changed
	status  orderStatus
	typ     orderType
	side    orderSide
	stp     stpMode
	// stpCancel says the order was cancelled by self-trade prevention.
	stpCancel bool
	// pending orders wait for the next kline (NextOpen).
	pending bool
	byQuote bool // a MARKET BUY sized by quoteOrderQty
	// autoID says the client order id is the generated sim-<order id>:
	// such an order is found through its number, not the open map.
	autoID bool
	// eventDue says the order changed since its last report (its trades
	// not yet reported wait in Exchange.unreported).
	eventDue bool
}

func (o *order) final() bool { return o.status.final() }

func (o *order) buy() bool { return o.side == sideBuy }

// view is the order as the exchange reports it now.
func (o *order) view() exchange.Order {
	var v exchange.Order
	o.viewAt(&v, o.state())
	return v
}

// orderState is what changes in an order over its life: an event keeps
// the state the order had when it happened.
type orderState struct {
	executed, cumQuote decimal.Decimal
	upd                time.Time
	status             orderStatus
	stpCancel          bool
}

func (o *order) state() orderState {
	return orderState{executed: o.executed, cumQuote: o.cumQuote, upd: o.upd, status: o.status, stpCancel: o.stpCancel}
}

// viewAt writes into v the order as it was in state s. It sets every
// field, one by one: v may hold an earlier event (a reused slice), and a
// whole-struct copy into the heap costs a bulk write barrier while the
// collector runs.
func (o *order) viewAt(v *exchange.Order, s orderState) {
	v.Symbol = o.m.info.Symbol
	v.OrderID = o.oid
	v.OrderListID = -1
	v.ClientOrderID = o.cid
	v.OrigClientOrderID = ""
	v.Price = o.price
	v.OrigQty = o.qty
	v.ExecutedQty = s.executed
	v.CummulativeQuoteQty = s.cumQuote
	v.OrigQuoteOrderQty = o.quoteQty
	v.Status = s.status.exchange()
	v.TimeInForce = o.typ.exchange().TimeInForce()
	v.Type = o.typ.exchange()
	v.Side = o.side.exchange()
	v.StopPrice = decimal.Decimal{}
	v.IcebergQty = decimal.Decimal{}
	v.Time = o.at
	v.UpdateTime = s.upd
	v.IsWorking = !s.status.final()
	v.STPMode = o.stp.exchange()
	v.CancelReason = ""
	if s.stpCancel {
		v.CancelReason = exchange.CancelReasonSTP
	}
}

// event is an order event as an account's queue holds it until drained:
// the order and its state then, turned into an exchange.OrderEvent only
// when read.
type event struct {
	o      *order
	state  orderState
	trades []exchange.OwnTrade
}

// into writes the event into d (every field: see viewAt).
func (e *event) into(d *exchange.OrderEvent) {
	e.o.viewAt(&d.Order, e.state)
	d.Trades = e.trades
}

// orderStatus is exchange.OrderStatus in a byte; the final ones last.
type orderStatus uint8

const (
	statusNew orderStatus = iota
	statusPartiallyFilled
	statusFilled
	statusCanceled
	statusPartiallyCanceled
)

func (s orderStatus) final() bool { return s >= statusFilled }

func (s orderStatus) exchange() exchange.OrderStatus {
	switch s {
	case statusNew:
		return exchange.StatusNew
	case statusPartiallyFilled:
		return exchange.StatusPartiallyFilled
	case statusFilled:
		return exchange.StatusFilled
	case statusCanceled:
		return exchange.StatusCanceled
	}
	return exchange.StatusPartiallyCanceled
}

// orderType is exchange.OrderType in a byte.
type orderType uint8

const (
	typeLimit orderType = iota
	typeMarket
	typeLimitMaker
	typeIOC
	typeFOK
)

func (t orderType) exchange() exchange.OrderType {
	switch t {
	case typeLimit:
		return exchange.TypeLimit
	case typeMarket:
		return exchange.TypeMarket
	case typeLimitMaker:
		return exchange.TypeLimitMaker
	case typeIOC:
		return exchange.TypeImmediateOrCancel
	}
	return exchange.TypeFillOrKill
}

// orderSide is exchange.Side in a byte.
type orderSide uint8

const (
	sideBuy orderSide = iota
	sideSell
)

func (s orderSide) exchange() exchange.Side {
	if s == sideBuy {
		return exchange.SideBuy
	}
	return exchange.SideSell
}

// stpMode is exchange.STPMode in a byte.
type stpMode uint8

const (
	stpNone stpMode = iota
	stpCancelMaker
	stpCancelTaker
	stpCancelBoth
)

func (m stpMode) exchange() exchange.STPMode {
	switch m {
	case stpCancelMaker:
		return exchange.STPCancelMaker
	case stpCancelTaker:
		return exchange.STPCancelTaker
	case stpCancelBoth:
		return exchange.STPCancelBoth
	}
	return exchange.STPNone
}

// kinds turns an order's type, side, STP mode and status into bytes, or
// says which one the exchange does not know (an order restored from a
// damaged state; a new order has passed NewOrder.Validate).
func kinds(t exchange.OrderType, s exchange.Side, m exchange.STPMode, st exchange.OrderStatus) (orderType, orderSide, stpMode, orderStatus, error) {
	var (
		ot  orderType
		osd orderSide
		om  stpMode
		ost orderStatus
	)
	switch t {
	case exchange.TypeLimit:
		ot = typeLimit
	case exchange.TypeMarket:
		ot = typeMarket
	case exchange.TypeLimitMaker:
		ot = typeLimitMaker
	case exchange.TypeImmediateOrCancel:
		ot = typeIOC
	case exchange.TypeFillOrKill:
		ot = typeFOK
	default:
		return 0, 0, 0, 0, fmt.Errorf("order type %q is not one the exchange knows", exchange.Clip(string(t)))
	}
	switch s {
	case exchange.SideBuy:
		osd = sideBuy
	case exchange.SideSell:
		osd = sideSell
	default:
		return 0, 0, 0, 0, fmt.Errorf("order side %q is not BUY or SELL", exchange.Clip(string(s)))
	}
	switch m {
	case exchange.STPNone:
		om = stpNone
	case exchange.STPCancelMaker:
		om = stpCancelMaker
	case exchange.STPCancelTaker:
		om = stpCancelTaker
	case exchange.STPCancelBoth:
		om = stpCancelBoth
	default:
		return 0, 0, 0, 0, fmt.Errorf("STP mode %q is not one the exchange knows", exchange.Clip(string(m)))
	}
	switch st {
	case exchange.StatusNew:
		ost = statusNew
	case exchange.StatusPartiallyFilled:
		ost = statusPartiallyFilled
	case exchange.StatusFilled:
		ost = statusFilled
	case exchange.StatusCanceled:
		ost = statusCanceled
	case exchange.StatusPartiallyCanceled:
		ost = statusPartiallyCanceled
	default:
		return 0, 0, 0, 0, fmt.Errorf("order status %q is not one the exchange knows", exchange.Clip(string(st)))
	}
	return ot, osd, om, ost, nil
}
