package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// AccountState is what an account holds that a later exchange continues
// from (a paper bot's restart): its balances, its open orders and the
// exchange's id counters, so restored and new orders and trades never
// share an id. Final orders and past trades are not kept: the caller's
// store has them.
type AccountState struct {
	Balances []exchange.Balance `json:"balances"` // free and locked, as the account endpoint reports them
	Orders   []OpenOrderState   `json:"orders"`   // in placement order
	OrderSeq int64              `json:"order_seq"`
	TradeSeq int64              `json:"trade_seq"`
}

// OpenOrderState is an open order with what the exchange holds for it.
type OpenOrderState struct {
	Order exchange.Order
	// Left is the quantity still to fill (the quote amount for a market
	// buy sized by quote); LockAsset and Lock what it holds locked.
	Left      decimal.Decimal
	LockAsset string
	Lock      decimal.Decimal
	// Pending says a market-crossing order waits for the next kline.
	Pending bool
	ByQuote bool
}

// openOrderJSON is the stored form of an OpenOrderState: exact decimals,
// times in milliseconds (exchange.Order decodes the wire form only).
type openOrderJSON struct {
	Symbol        string               `json:"symbol"`
	OrderID       string               `json:"order_id"`
	ClientOrderID string               `json:"client_order_id"`
	Price         decimal.Decimal      `json:"price"`
	OrigQty       decimal.Decimal      `json:"orig_qty"`
	QuoteQty      decimal.Decimal      `json:"orig_quote_qty"`
	ExecutedQty   decimal.Decimal      `json:"executed_qty"`
	CumQuoteQty   decimal.Decimal      `json:"cum_quote_qty"`
	Status        exchange.OrderStatus `json:"status"`
	TimeInForce   string               `json:"time_in_force,omitempty"`
	Type          exchange.OrderType   `json:"type"`
	Side          exchange.Side        `json:"side"`
	STPMode       exchange.STPMode     `json:"stp_mode,omitempty"`
	TimeMS        int64                `json:"time_ms"`
	UpdateMS      int64                `json:"update_ms"`
	Left          decimal.Decimal      `json:"left"`
	LockAsset     string               `json:"lock_asset"`
	Lock          decimal.Decimal      `json:"lock"`
	Pending       bool                 `json:"pending,omitempty"`
	ByQuote       bool                 `json:"by_quote,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (s OpenOrderState) MarshalJSON() ([]byte, error) {
	o := s.Order
	return json.Marshal(openOrderJSON{Symbol: o.Symbol, OrderID: o.OrderID, ClientOrderID: o.ClientOrderID, Price: o.Price,
		OrigQty: o.OrigQty, QuoteQty: o.OrigQuoteOrderQty, ExecutedQty: o.ExecutedQty, CumQuoteQty: o.CummulativeQuoteQty,
		Status: o.Status, TimeInForce: o.TimeInForce, Type: o.Type, Side: o.Side, STPMode: o.STPMode,
		TimeMS: o.Time.UnixMilli(), UpdateMS: o.UpdateTime.UnixMilli(), Left: s.Left, LockAsset: s.LockAsset, Lock: s.Lock,
		Pending: s.Pending, ByQuote: s.ByQuote})
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *OpenOrderState) UnmarshalJSON(b []byte) error {
	var j openOrderJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = OpenOrderState{Order: exchange.Order{Symbol: j.Symbol, OrderID: j.OrderID, OrderListID: -1, ClientOrderID: j.ClientOrderID,
		Price: j.Price, OrigQty: j.OrigQty, OrigQuoteOrderQty: j.QuoteQty, ExecutedQty: j.ExecutedQty, CummulativeQuoteQty: j.CumQuoteQty,
		Status: j.Status, TimeInForce: j.TimeInForce, Type: j.Type, Side: j.Side, STPMode: j.STPMode,
		Time: time.UnixMilli(j.TimeMS).UTC(), UpdateTime: time.UnixMilli(j.UpdateMS).UTC(), IsWorking: true},
		Left: j.Left, LockAsset: j.LockAsset, Lock: j.Lock, Pending: j.Pending, ByQuote: j.ByQuote}
	return nil
}

// ExportAccount returns the state of account uid.
func (x *Exchange) ExportAccount(uid string) (AccountState, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	a, ok := x.accounts[uid]
	if !ok {
		return AccountState{}, fmt.Errorf("sim: no account %s", uid)
	}
	st := AccountState{OrderSeq: x.orderSeq, TradeSeq: x.tradeSeq, Balances: []exchange.Balance{}, Orders: []OpenOrderState{}}
	for _, b := range a.snapshot() {
		st.Balances = append(st.Balances, exchange.Balance{Asset: b.Asset, Free: b.Free, Locked: b.Locked})
	}
	for _, o := range a.history {
		if o.final() {
			continue
		}
		st.Orders = append(st.Orders, OpenOrderState{Order: o.view(), Left: o.left, LockAsset: o.lockBal.asset, Lock: o.lock.dec(),
			Pending: o.pending, ByQuote: o.byQuote})
	}
	return st, nil
}

// ImportAccount replaces the balances of account uid with st's and books
// st's open orders again, with their ids, quantities and locks, resting
// in price-time priority (a pending order waits for the next kline). The
// account must have no orders: it is meant for a new exchange.
func (x *Exchange) ImportAccount(uid string, st AccountState) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	a, ok := x.accounts[uid]
	switch {
	case !ok:
		return fmt.Errorf("sim: no account %s", uid)
	case len(a.history) > 0:
		return errors.New("sim: importing into an account that has orders")
	}
	recs := make([]order, len(st.Orders))
	ids := make(map[int64]bool, len(st.Orders))
	for i, s := range st.Orders {
		m, err := x.market(s.Order.Symbol)
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(s.Order.OrderID, 10, 64)
		if err != nil || n <= 0 || n > st.OrderSeq {
			return fmt.Errorf("sim: order id %q is not a number up to the order sequence %d", s.Order.OrderID, st.OrderSeq)
		}
		if s.Order.Status.Final() {
			return fmt.Errorf("sim: order %s is %s, not open", s.Order.OrderID, s.Order.Status)
		}
		if ids[n] {
			return fmt.Errorf("sim: order id %s appears twice", s.Order.OrderID)
		}
		ids[n] = true
		typ, side, stp, status, err := kinds(s.Order.Type, s.Order.Side, s.Order.STPMode, s.Order.Status)
		if err != nil {
			return fmt.Errorf("sim: order %s: %w", s.Order.OrderID, err)
		}
		o := s.Order
		recs[i] = order{m: m, seq: n, cid: o.ClientOrderID, oid: o.OrderID, price: o.Price, qty: o.OrigQty, quoteQty: o.OrigQuoteOrderQty,
			executed: o.ExecutedQty, cumQuote: o.CummulativeQuoteQty, left: s.Left, lock: amountOf(s.Lock), at: o.Time, upd: o.UpdateTime,
			status: status, typ: typ, side: side, stp: stp, pending: s.Pending, byQuote: s.ByQuote, autoID: o.ClientOrderID == "sim-"+o.OrderID}
		// The record keeps what an open order of the exchange has; an
		// order that says more (a stop price, a time in force not its
		// type's, not working) was not exported by an exchange.
		if !reflect.DeepEqual(recs[i].view(), o) {
			return fmt.Errorf("sim: order %s is not an open order as the exchange exports them (stop price, iceberg, order list, time in force or working flag)", s.Order.OrderID)
		}
	}
	a.clearBalances()
	for _, b := range st.Balances {
		bal := a.bal(b.Asset)
		bal.free, bal.locked = amountOf(b.Free), amountOf(b.Locked)
	}
	idx := make([]int, len(st.Orders))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return recs[idx[i]].seq < recs[idx[j]].seq })
	for _, i := range idx {
		o := x.nextOrder()
		*o = recs[i]
		x.takeOrder()
		o.acct, o.lockBal = a, a.bal(st.Orders[i].LockAsset)
		m := o.m
		if !o.autoID {
			a.open[o.cid] = o
		}
		a.history = append(a.history, o)
		if o.pending {
			m.pending = append(m.pending, o)
		} else {
			m.insert(o)
		}
	}
	x.orderSeq = max(x.orderSeq, st.OrderSeq)
	x.tradeSeq = max(x.tradeSeq, st.TradeSeq)
	return nil
}
