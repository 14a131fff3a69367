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

// statusNames, typeNames, sideNames and stpNames are the one mapping
// between the bytes and the exchange's words, both ways (read only).
var statusNames = [...]exchange.OrderStatus{statusNew: exchange.StatusNew, statusPartiallyFilled: exchange.StatusPartiallyFilled,
	statusFilled: exchange.StatusFilled, statusCanceled: exchange.StatusCanceled, statusPartiallyCanceled: exchange.StatusPartiallyCanceled}

func (s orderStatus) exchange() exchange.OrderStatus { return statusNames[s] }

// orderType is exchange.OrderType in a byte.
type orderType uint8

const (
	typeLimit orderType = iota
	typeMarket
	typeLimitMaker
	typeIOC
	typeFOK
)

var typeNames = [...]exchange.OrderType{typeLimit: exchange.TypeLimit, typeMarket: exchange.TypeMarket,
	typeLimitMaker: exchange.TypeLimitMaker, typeIOC: exchange.TypeImmediateOrCancel, typeFOK: exchange.TypeFillOrKill}

func (t orderType) exchange() exchange.OrderType { return typeNames[t] }

// orderSide is exchange.Side in a byte.
type orderSide uint8

const (
	sideBuy orderSide = iota
	sideSell
)

var sideNames = [...]exchange.Side{sideBuy: exchange.SideBuy, sideSell: exchange.SideSell}

func (s orderSide) exchange() exchange.Side { return sideNames[s] }

// stpMode is exchange.STPMode in a byte.
type stpMode uint8

const (
	stpNone stpMode = iota
	stpCancelMaker
	stpCancelTaker
	stpCancelBoth
)

var stpNames = [...]exchange.STPMode{stpNone: exchange.STPNone, stpCancelMaker: exchange.STPCancelMaker,
	stpCancelTaker: exchange.STPCancelTaker, stpCancelBoth: exchange.STPCancelBoth}

func (m stpMode) exchange() exchange.STPMode { return stpNames[m] }

// byteOf is the byte whose name is v in names.
func byteOf[B ~uint8, T comparable](names []T, v T) (B, bool) {
	for i, n := range names {
		if n == v {
			return B(i), true
		}
	}
	return 0, false
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
		ok  bool
	)
	if ot, ok = byteOf[orderType](typeNames[:], t); !ok {
		return 0, 0, 0, 0, fmt.Errorf("order type %q is not one the exchange knows", exchange.Clip(string(t)))
	}
	if osd, ok = byteOf[orderSide](sideNames[:], s); !ok {
		return 0, 0, 0, 0, fmt.Errorf("order side %q is not BUY or SELL", exchange.Clip(string(s)))
	}
	if om, ok = byteOf[stpMode](stpNames[:], m); !ok {
		return 0, 0, 0, 0, fmt.Errorf("STP mode %q is not one the exchange knows", exchange.Clip(string(m)))
	}
	if ost, ok = byteOf[orderStatus](statusNames[:], st); !ok {
		return 0, 0, 0, 0, fmt.Errorf("order status %q is not one the exchange knows", exchange.Clip(string(st)))
	}
	return ot, osd, om, ost, nil
}
