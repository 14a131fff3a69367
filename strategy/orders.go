package strategy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

// tracked is an order the runtime follows to a final status.
type tracked struct {
	inst    *instance
	order   Order
	unknown bool // sending it had an unknown outcome: resolve by query
	final   bool
	trades  tradeIDs // applied
}

// tradeIDs is a set of trade ids. Most orders fill in one trade, so the
// first id is held inline and only a second one makes a map.
type tradeIDs struct {
	first string
	n     int
	rest  map[string]struct{}
}

func (s *tradeIDs) has(id string) bool {
	if s.n == 0 {
		return false
	}
	if s.first == id {
		return true
	}
	_, ok := s.rest[id]
	return ok
}

func (s *tradeIDs) add(id string) {
	switch {
	case s.n == 0:
		s.first = id
	case s.rest == nil:
		s.rest = map[string]struct{}{id: {}}
	default:
		s.rest[id] = struct{}{}
	}
	s.n++
}

// gateView is the runtime's state as the risk gate sees it.
type gateView Runtime

func (v *gateView) Symbol(s string) (*exchange.SymbolInfo, bool) {
	info, ok := (*Runtime)(v).rule(s)
	return info, ok
}
func (v *gateView) LastPrice(s string) decimal.Decimal {
	p, _ := (*Runtime)(v).lastPrice(s)
	return p
}

// LastPriceFixed implements risk.FixedLastPricer: a bar's close whose
// decimal nobody has asked for is compared as it is.
func (v *gateView) LastPriceFixed(s string) (exchange.Fixed, bool) {
	if lp := v.last[s]; lp != nil && lp.fixed && !lp.hasDec {
		return lp.fix, true
	}
	return exchange.Fixed{}, false
}
func (v *gateView) Free(asset string) decimal.Decimal { return (*Runtime)(v).balance(asset).Free }

// FreeFixed implements risk.FixedFreer.
func (v *gateView) FreeFixed(asset string) (exchange.Fixed, bool) {
	return (*Runtime)(v).freeFixed(asset)
}
func (v *gateView) OpenOrders() int   { return len(v.open) }
func (v *gateView) HasSTPGroup() bool { return v.opts.STPGroup }
func (v *gateView) Position(s string) decimal.Decimal {
	total := decimal.Zero
	for _, in := range v.insts {
		if h, ok := in.positions[s]; ok {
			total = total.Add(h.qty())
		}
	}
	return total
}

// Place implements Context.
func (in *instance) Place(o exchange.NewOrder) (Order, error) { return in.place(o, false) }

// place places o; an operator's order (a force exit) passes a pause.
func (in *instance) place(o exchange.NewOrder, operator bool) (Order, error) {
	return in.placeFor(o, operator, "")
}

// placeFor places o with the reason the runtime placed it (an exit's),
// recorded with the intent.
func (in *instance) placeFor(o exchange.NewOrder, operator bool, reason string) (Order, error) {
	r := in.rt
	if err := in.canTrade(operator); err != nil {
		return Order{Err: err}, err
	}
	if o.NewClientOrderID == "" {
		o.NewClientOrderID = r.nextClientID(in)
	}
	ord := orderOf(o)
	ord.Reason = reason
	if err := in.locked(o); err != nil {
		r.refused(err)
		ord.Err = err
		in.log.Info("order refused by a protection lock", slog.String("symbol", o.Symbol), slog.String("client_order_id", o.NewClientOrderID), slog.Any("err", err))
		return ord, err
	}
	if err := r.opts.Gate.Check(r.ctx, o, (*gateView)(r)); err != nil {
		r.refused(err)
		ord.Err = err
		in.log.Info("order refused by risk gate", slog.String("symbol", o.Symbol), slog.String("client_order_id", o.NewClientOrderID), slog.Any("err", err))
		return ord, err
	}
	t, err := r.record(in, o, reason)
	if err != nil {
		ord.Err = err
		return ord, err
	}
	ack, err := r.opts.Trader.PlaceOrder(r.ctx, o)
	return r.afterSend(t, ack.OrderID, err)
}

// canTrade says whether the instance may send orders now. An order the
// kill switch refuses is counted like any risk refusal; a stopped or
// warming-up instance has no order to count.
func (in *instance) canTrade(operator bool) error {
	switch {
	case in.paused && !operator:
		return in.pausedRefusal()
	case in.stopped != nil:
		return ErrStopped
	case in.warming:
		return ErrWarmingUp
	case in.skipping:
		return ErrSkipping
	case in.rt.killed:
		err := &risk.Rejection{Rule: risk.RuleKillSwitch, Reason: in.rt.opts.Gate.Killed()}
		in.rt.refused(err)
		return err
	}
	return nil
}

func orderOf(o exchange.NewOrder) Order {
	return Order{ClientOrderID: o.NewClientOrderID, Symbol: o.Symbol, Side: o.Side, Type: o.Type,
		Price: o.Price, Quantity: o.Quantity, QuoteOrderQty: o.QuoteOrderQty}
}

// record writes the intent to the journal and starts tracking it, before
// anything is sent.
func (r *Runtime) record(in *instance, o exchange.NewOrder, reason string) (*tracked, error) {
	created, err := r.opts.Journal.RecordIntent(r.ctx, Intent{Instance: in.id, ClientOrderID: o.NewClientOrderID, Order: o, At: r.opts.Clock.Now(), Reason: reason})
	if err != nil {
		return nil, fmt.Errorf("strategy: recording order %s: %w", o.NewClientOrderID, err)
	}
	if !created {
		return nil, fmt.Errorf("strategy: client order id %s already used", o.NewClientOrderID)
	}
	t := r.newTracked()
	*t = tracked{inst: in, order: orderOf(o)}
	t.order.Reason = reason
	if in.runOrders != nil {
		in.runOrders = append(in.runOrders, o.NewClientOrderID)
	}
	r.addOpen(t)
	return t, nil
}

// openIndexAt is how many open orders find scans before the runtime
// indexes them by client order id (Runtime.orders): a backtest has one or
// two open at a time, and a map of them cost a hash, an insert and a
// delete per order.
const openIndexAt = 16

// addOpen makes t an open order.
func (r *Runtime) addOpen(t *tracked) {
	r.open = append(r.open, t)
	switch {
	case r.orders != nil:
		r.orders[t.order.ClientOrderID] = t
	case len(r.open) > openIndexAt:
		r.orders = make(map[string]*tracked, 2*len(r.open))
		for _, o := range r.open {
			r.orders[o.order.ClientOrderID] = o
		}
	}
}

// newTracked returns a tracked order for record to fill in: one the
// runtime has forgotten (dropOpen) if there is one, else a new one from a
// block. Blocks start at 8 orders and double up to 64. Reusing the
// forgotten keeps a long run's orders in the same 10,000 to 20,000
// records instead of a fresh one each (about 11 bytes a bar of a
// million-bar backtest's garbage, session 34).
func (r *Runtime) newTracked() *tracked {
	if n := len(r.forgotten); n > 0 {
		t := r.forgotten[n-1]
		r.forgotten[n-1] = nil
		r.forgotten = r.forgotten[:n-1]
		return t
	}
	if len(r.trackedBlock) == cap(r.trackedBlock) {
		r.trackedBlock = make([]tracked, 0, min(64, max(8, 2*cap(r.trackedBlock))))
	}
	r.trackedBlock = r.trackedBlock[:len(r.trackedBlock)+1]
	return &r.trackedBlock[len(r.trackedBlock)-1]
}

// afterSend handles the result of sending an order.
func (r *Runtime) afterSend(t *tracked, orderID string, err error) (Order, error) {
	cid := t.order.ClientOrderID
	switch {
	case err == nil:
		r.stats.Placed++
		if t.order.OrderID == "" {
			t.order.OrderID = orderID
		}
		if t.order.Status == "" {
			t.order.Status = exchange.StatusNew
		}
		r.stale = true
		if jerr := r.opts.Journal.RecordAck(r.ctx, cid, orderID, r.opts.Clock.Now()); jerr != nil {
			t.inst.log.Error("recording acknowledgement failed", slog.String("client_order_id", cid), slog.Any("err", jerr))
		}
		if debugOn(t.inst.log) {
			t.inst.log.Debug("order placed", slog.String("symbol", t.order.Symbol), slog.String("client_order_id", cid), slog.String("order_id", orderID))
		}
		return t.order, nil
	case errors.Is(err, exchange.ErrUnknownOutcome) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		// It may exist: never resend; Sync looks it up by client id.
		r.stats.Unknown++
		t.unknown = true
		if jerr := r.opts.Journal.RecordUnknown(r.ctx, cid, err); jerr != nil {
			t.inst.log.Error("recording unknown outcome failed", slog.String("client_order_id", cid), slog.Any("err", jerr))
		}
		t.inst.log.Warn("order outcome unknown; will query", slog.String("symbol", t.order.Symbol), slog.String("client_order_id", cid), slog.Any("err", err))
		return t.order, nil
	default:
		r.refused(err)
		r.forget(t, err)
		t.order.Err = err
		msg := "order refused by exchange"
		if rej := (*risk.Rejection)(nil); errors.As(err, &rej) {
			msg = "order refused before sending" // by the port's own guard (clock offset, shutdown)
		}
		t.inst.log.Info(msg, slog.String("symbol", t.order.Symbol), slog.String("client_order_id", cid), slog.Any("err", err))
		return t.order, err
	}
}

func (r *Runtime) refused(err error) {
	var rej *risk.Rejection
	var api *exchange.APIError
	switch {
	case errors.As(err, &rej):
		r.stats.Refused[rej.Rule]++
	case errors.As(err, &api):
		r.stats.Refused[fmt.Sprintf("exchange:%d", api.Code)]++
	default:
		r.stats.Refused["error"]++
	}
}

// forget ends tracking of an order that was never placed.
func (r *Runtime) forget(t *tracked, cause error) {
	t.final = true
	r.dropOpen(t)
	if jerr := r.opts.Journal.RecordRefused(r.ctx, t.order.ClientOrderID, cause); jerr != nil {
		t.inst.log.Error("recording refusal failed", slog.String("client_order_id", t.order.ClientOrderID), slog.Any("err", jerr))
	}
}

// keptFinished is how many final orders the runtime remembers at least
// (at most twice as many): a daemon running for months would otherwise
// keep every order it ever placed. Cancel of a forgotten order answers
// that the instance has no such order.
const keptFinished = 10_000

// dropOpen ends t's life as an open order: it leaves the open list and
// map and joins the finished, the oldest of which are forgotten in bulk.
// The map holds open orders only, so it stays the size of the open list
// (a backtest's thousands of orders used to grow it, and every order
// paid for a lookup in a map of them); find reaches the finished. A
// backtest's runtime has no map at all (addOpen).
//
// An order not open (dropped before, and final again after a late
// report) is left where it is: it joins the finished once, as
// newTracked reuses the forgotten.
func (r *Runtime) dropOpen(t *tracked) {
	i := slices.Index(r.open, t)
	if i < 0 {
		return
	}
	r.open = slices.Delete(r.open, i, i+1)
	if r.orders != nil && r.orders[t.order.ClientOrderID] == t {
		delete(r.orders, t.order.ClientOrderID)
	}
	r.finished = append(r.finished, t)
	if len(r.finished) >= 2*keptFinished {
		// The open list, the map and this list are a tracked order's
		// only homes, so the oldest are no one's once they leave here.
		forget := len(r.finished) - keptFinished
		r.forgotten = append(r.forgotten, r.finished[:forget]...)
		n := copy(r.finished, r.finished[forget:])
		clear(r.finished[n:])
		r.finished = r.finished[:n]
	}
}

// find returns the order with client id cid, open or among the finished
// the runtime remembers (searched newest first: an event or a cancel is
// almost always of an order that ended moments ago), or nil.
func (r *Runtime) find(cid string) *tracked {
	if r.orders != nil {
		if t, ok := r.orders[cid]; ok {
			return t
		}
	} else {
		for i := len(r.open) - 1; i >= 0; i-- { // newest first, as the map kept the last
			if t := r.open[i]; t.order.ClientOrderID == cid {
				return t
			}
		}
	}
	for i := len(r.finished) - 1; i >= 0; i-- {
		if t := r.finished[i]; t.order.ClientOrderID == cid {
			return t
		}
	}
	return nil
}

// PlaceBatch implements Context.
func (in *instance) PlaceBatch(orders []exchange.NewOrder) ([]Order, error) {
	r := in.rt
	if err := in.canTrade(false); err != nil {
		return nil, err
	}
	// The batch's shape (its size, one symbol, each order's fields) is
	// refused as a whole, with the error the exchange would give.
	if err := exchange.ValidateBatch(orders); err != nil {
		r.refused(err)
		return nil, err
	}
	out := make([]Order, len(orders))
	send := make([]exchange.NewOrder, 0, len(orders))
	idx := make([]int, 0, len(orders))
	ts := make([]*tracked, 0, len(orders))
	for i, o := range orders {
		if o.NewClientOrderID == "" {
			o.NewClientOrderID = r.nextClientID(in)
		}
		out[i] = orderOf(o)
		if err := r.opts.Gate.Check(r.ctx, o, (*gateView)(r)); err != nil {
			r.refused(err)
			out[i].Err = err
			continue
		}
		t, err := r.record(in, o, "")
		if err != nil {
			out[i].Err = err
			continue
		}
		send = append(send, o)
		idx = append(idx, i)
		ts = append(ts, t)
	}
	if len(send) == 0 {
		return out, nil
	}
	res, err := r.opts.Trader.PlaceBatch(r.ctx, send)
	if err == nil && len(res) != len(send) {
		err = &exchange.UnknownOutcomeError{Endpoint: exchange.EpBatchOrders.String(),
			Msg: fmt.Sprintf("reply has %d items for %d orders", len(res), len(send))}
	}
	for j, t := range ts {
		var oid string
		ierr := err
		if err == nil {
			if res[j].Ack != nil {
				oid = res[j].Ack.OrderID
			} else {
				ierr = res[j].Err()
			}
		}
		out[idx[j]], _ = r.afterSend(t, oid, ierr)
		if ierr != nil && !t.unknown {
			out[idx[j]].Err = ierr
		}
	}
	return out, nil
}

// Cancel implements Context.
func (in *instance) Cancel(clientOrderID string) error {
	r := in.rt
	if in.stopped != nil {
		return ErrStopped
	}
	t := r.find(clientOrderID)
	if t == nil || t.inst != in {
		return fmt.Errorf("strategy: no order %q of instance %s", clientOrderID, in.id)
	}
	if t.final {
		return nil
	}
	o, err := r.opts.Trader.CancelOrder(r.ctx, exchange.CancelOrderRequest{Symbol: t.order.Symbol, OrigClientOrderID: clientOrderID})
	if err != nil {
		if exchange.HasCode(err, exchange.CodeUnknownOrder) {
			// Already final on the exchange: Sync will bring its state.
			return nil
		}
		return err
	}
	r.stale = true
	r.applyOrder(t, o)
	return nil
}

// CancelAll implements Context: it cancels the instance's own open orders
// of the symbol one by one (other instances may share the symbol).
func (in *instance) CancelAll(symbol string) error {
	var errs []error
	for _, o := range in.OpenOrders(symbol) {
		if err := in.Cancel(o.ClientOrderID); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o.ClientOrderID, err))
		}
	}
	return errors.Join(errs...)
}

// IsRefusal reports whether err means an order was refused (by the risk
// gate or by the exchange) rather than that something broke. Strategies
// usually carry on after a refusal: the runtime has recorded and counted it.
func IsRefusal(err error) bool {
	var rej *risk.Rejection
	var api *exchange.APIError
	return errors.As(err, &rej) || errors.As(err, &api) || errors.Is(err, ErrWarmingUp)
}
