package strategy

import (
	"context"
	"log/slog"
	"sort"

	"github.com/spotbot/spotbot/exchange"
)

// Sync brings tracked orders up to date: from the port's events when it
// reports them (the simulator), otherwise by querying each open order and,
// when its executed quantity grew, its trades. Orders whose send had an
// unknown outcome are looked up by client order id; one the exchange does
// not know was never placed. Each fill reaches the strategy exactly once.
func (r *Runtime) Sync(ctx context.Context) error {
	r.ctx = ctx
	if r.es != nil {
		if r.hint == nil || r.hint.MayHaveEvents() {
			r.drain()
		}
		if !r.anyUnknown() {
			return nil
		}
	}
	return r.poll(ctx)
}

// eventHint is an optional capability of an exchange.EventSource (the
// simulator has it): MayHaveEvents false means DrainEvents would return
// nothing, known without the lock a drain takes. A backtest syncs every
// bar and has events on few of them.
type eventHint interface {
	MayHaveEvents() bool
}

// drain applies the port's events.
func (r *Runtime) drain() {
	r.events = r.es.DrainEvents(r.events[:0])
	for i := range r.events {
		ev := &r.events[i]
		t := r.find(ev.Order.ClientOrderID)
		if t == nil {
			continue // not ours (another client of the account; find has scanned the finished list for it)
		}
		t.unknown = false
		for _, tr := range ev.Trades {
			r.applyTrade(t, tr)
		}
		r.applyOrder(t, ev.Order)
	}
	for i := range r.events {
		r.events[i] = exchange.OrderEvent{}
	}
}

func (r *Runtime) anyUnknown() bool {
	for _, t := range r.open {
		if t.unknown {
			return true
		}
	}
	return false
}

// poll queries open orders in placement order (deterministic).
func (r *Runtime) poll(ctx context.Context) error {
	events := r.es != nil
	open := append([]*tracked(nil), r.open...)
	var firstErr error
	for _, t := range open {
		if events && !t.unknown {
			continue
		}
		o, err := r.opts.Trader.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: t.order.Symbol, OrigClientOrderID: t.order.ClientOrderID})
		if err != nil {
			if t.unknown && exchange.HasCode(err, exchange.CodeUnknownOrder) {
				t.inst.log.Info("order with unknown outcome was never placed", slog.String("client_order_id", t.order.ClientOrderID))
				r.forget(t, err)
				continue
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if t.unknown {
			t.unknown = false
			r.stats.Placed++
			if err := r.opts.Journal.RecordAck(ctx, t.order.ClientOrderID, o.OrderID, r.opts.Clock.Now()); err != nil {
				t.inst.log.Error("recording acknowledgement failed", slog.Any("err", err))
			}
		}
		if exchange.CmpDecimal(o.ExecutedQty, t.order.ExecutedQty) > 0 {
			trades, err := r.opts.Trader.MyTrades(ctx, exchange.MyTradesRequest{Symbol: o.Symbol, OrderID: o.OrderID})
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			sort.SliceStable(trades, func(i, j int) bool { return trades[i].Time.Before(trades[j].Time) })
			for _, tr := range trades {
				if tr.OrderID == o.OrderID {
					r.applyTrade(t, tr)
				}
			}
		}
		r.applyOrder(t, o)
	}
	return firstErr
}

// applyOrder moves a tracked order forward to the state o reports. Status
// never moves back and executed quantity never decreases, whatever order
// replies arrive in. The quantities are compared with exchange.CmpDecimal:
// decimal's GreaterThan rescales a copy (two allocations) when the
// exponents differ, as a first fill's against zero always do.
func (r *Runtime) applyOrder(t *tracked, o exchange.Order) {
	if t.final && o.Status.Rank() <= t.order.Status.Rank() {
		return
	}
	changed := false
	if t.order.OrderID == "" && o.OrderID != "" {
		t.order.OrderID = o.OrderID
		changed = true
	}
	if o.Status.Rank() > t.order.Status.Rank() {
		t.order.Status = o.Status
		changed = true
	}
	if exchange.CmpDecimal(o.ExecutedQty, t.order.ExecutedQty) > 0 {
		t.order.ExecutedQty = o.ExecutedQty
		changed = true
	}
	if exchange.CmpDecimal(o.CummulativeQuoteQty, t.order.CumQuoteQty) > 0 {
		t.order.CumQuoteQty = o.CummulativeQuoteQty
	}
	if o.CancelReason != "" {
		t.order.CancelReason = o.CancelReason
	}
	if !changed {
		return
	}
	if err := r.opts.Journal.RecordOrder(r.ctx, t.inst.id, o); err != nil {
		t.inst.log.Error("recording order state failed", slog.String("client_order_id", t.order.ClientOrderID), slog.Any("err", err))
	}
	if t.order.Status.Final() {
		t.final = true
		r.dropOpen(t)
	}
	r.stale = true
	if t.inst.updates != nil {
		in := t.inst
		ord := t.order
		in.call(func() error { return in.updates.OnOrder(in, ord) })
	} else {
		t.inst.dirty = true
		if t.inst.stopped == nil {
			t.inst.saveState()
		}
	}
}

// applyTrade records a fill once and delivers it.
func (r *Runtime) applyTrade(t *tracked, tr exchange.OwnTrade) {
	if t.trades.has(tr.ID) {
		return
	}
	inserted, err := r.opts.Journal.RecordFill(r.ctx, t.inst.id, t.order.ClientOrderID, tr)
	if err != nil {
		t.inst.log.Error("recording fill failed", slog.String("client_order_id", t.order.ClientOrderID), slog.Any("err", err))
		return // not marked seen: retried on the next sync
	}
	t.trades.add(tr.ID)
	if !inserted {
		return // delivered before a restart
	}
	r.stats.Fills++
	r.stale = true
	f := Fill{ClientOrderID: t.order.ClientOrderID, OrderID: tr.OrderID, TradeID: tr.ID, Symbol: tr.Symbol,
		Side: t.order.Side, Price: tr.Price, Qty: tr.Qty, QuoteQty: tr.QuoteQty, Commission: tr.Commission,
		CommissionAsset: tr.CommissionAsset, Maker: tr.IsMaker, SelfTrade: tr.IsSelfTrade, Time: tr.Time}
	if info, ok := r.rule(tr.Symbol); ok {
		t.inst.position(tr.Symbol).apply(f, info.BaseAsset, info.QuoteAsset, &r.posMath)
		t.inst.exitFill(f, info)
	}
	if debugOn(t.inst.log) {
		t.inst.log.Debug("fill", slog.String("symbol", tr.Symbol), slog.String("client_order_id", f.ClientOrderID),
			slog.Any("price", tr.Price), slog.Any("qty", tr.Qty))
	}
	if t.inst.fills != nil {
		in := t.inst
		in.call(func() error { return in.fills.OnFill(in, f) })
	} else {
		t.inst.dirty = true
	}
}

// debugOn says whether log writes debug records. Logger.Debug checks this
// too, but only after its arguments were boxed into a slice on the heap:
// several allocations per order and fill that a backtest never prints.
func debugOn(log *slog.Logger) bool {
	return log.Enabled(context.Background(), slog.LevelDebug)
}
