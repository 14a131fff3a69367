package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategy"
)

// journal is the runtime's journal: the store, with one log line per order
// event (instance, symbol and client order id on each), so an operator
// follows every order at info level. In a simulated session (fresh) the
// account starts over from account.balances, so strategy state saved by an
// earlier session is not restored: it would describe another account.
type journal struct {
	*store.Store
	log   *slog.Logger
	fresh bool
	// session prefixes trade ids in a simulated session: every session's
	// simulator numbers its trades from 1, and the store keeps fills
	// unique by symbol and trade id.
	session string
	// symbols remembers each order's instance and symbol, for the lines of
	// events that carry only a client order id.
	orders map[string]orderRef
	// onFill, when set, is told each fill recorded for the first time.
	onFill func(instance, cid string, t exchange.OwnTrade)
}

type orderRef struct{ instance, symbol string }

// Journal writes outlive the context's cancellation: a shutdown signal
// that arrives while the runtime syncs must not leave a fill, a status or
// an intent unrecorded (an intent refused by a cancelled write stopped its
// strategy instance, and a final status lost left the store behind the
// exchange until the next start). The store's own busy timeout bounds them.
func durable(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

var _ strategy.Journal = (*journal)(nil)

func newJournal(st *store.Store, log *slog.Logger, fresh bool) *journal {
	return &journal{Store: st, log: log, fresh: fresh, orders: map[string]orderRef{}}
}

func (j *journal) attrs(cid string) []any {
	ref := j.orders[cid]
	return []any{slog.String("instance", ref.instance), slog.String("symbol", ref.symbol), slog.String("client_order_id", cid)}
}

// RecordIntent records and logs an order about to be sent.
func (j *journal) RecordIntent(ctx context.Context, in strategy.Intent) (bool, error) {
	ctx = durable(ctx)
	created, err := j.Store.RecordIntent(ctx, in)
	if err == nil && created {
		j.orders[in.ClientOrderID] = orderRef{in.Instance, in.Order.Symbol}
		o := in.Order
		args := append(j.attrs(in.ClientOrderID), slog.String("side", string(o.Side)), slog.String("type", string(o.Type)))
		if !o.Price.IsZero() {
			args = append(args, slog.String("price", o.Price.String()))
		}
		if !o.Quantity.IsZero() {
			args = append(args, slog.String("qty", o.Quantity.String()))
		}
		if !o.QuoteOrderQty.IsZero() {
			args = append(args, slog.String("quote_qty", o.QuoteOrderQty.String()))
		}
		j.log.Info("order", args...)
	}
	return created, err
}

// RecordAck records and logs an acknowledgement.
func (j *journal) RecordAck(ctx context.Context, cid, orderID string, at time.Time) error {
	ctx = durable(ctx)
	err := j.Store.RecordAck(ctx, cid, orderID, at)
	j.log.Debug("order acknowledged", append(j.attrs(cid), slog.String("order_id", orderID))...)
	return err
}

// RecordRefused records and logs a refusal.
func (j *journal) RecordRefused(ctx context.Context, cid string, cause error) error {
	ctx = durable(ctx)
	err := j.Store.RecordRefused(ctx, cid, cause)
	j.log.Info("order refused", append(j.attrs(cid), slog.Any("cause", cause))...)
	delete(j.orders, cid)
	return err
}

// RecordOrder records and logs an order's new state.
func (j *journal) RecordOrder(ctx context.Context, instance string, o exchange.Order) error {
	ctx = durable(ctx)
	err := j.Store.RecordOrder(ctx, instance, o)
	if o.Status.Final() {
		args := []any{slog.String("instance", instance), slog.String("symbol", o.Symbol), slog.String("client_order_id", o.ClientOrderID),
			slog.String("status", string(o.Status)), slog.String("executed_qty", o.ExecutedQty.String())}
		if o.CancelReason != "" {
			args = append(args, slog.String("cancel_reason", o.CancelReason))
		}
		j.log.Info("order done", args...)
		delete(j.orders, o.ClientOrderID)
	}
	return err
}

// RecordFill records and logs a fill the first time it is seen.
func (j *journal) RecordFill(ctx context.Context, instance, cid string, t exchange.OwnTrade) (bool, error) {
	ctx = durable(ctx)
	if j.session != "" {
		t.ID = j.session + t.ID
	}
	inserted, err := j.Store.RecordFill(ctx, instance, cid, t)
	if err == nil && inserted {
		side := exchange.SideSell
		if t.IsBuyer {
			side = exchange.SideBuy
		}
		j.log.Info("fill", slog.String("instance", instance), slog.String("symbol", t.Symbol), slog.String("client_order_id", cid),
			slog.String("side", string(side)), slog.String("price", t.Price.String()), slog.String("qty", t.Qty.String()),
			slog.String("fee", t.Commission.String()+" "+t.CommissionAsset), slog.String("trade_id", t.ID))
		if j.onFill != nil {
			j.onFill(instance, cid, t)
		}
	}
	return inserted, err
}

// RecordUnknown records an unknown outcome.
func (j *journal) RecordUnknown(ctx context.Context, cid string, cause error) error {
	return j.Store.RecordUnknown(durable(ctx), cid, cause)
}

// SaveState saves a strategy instance's state.
func (j *journal) SaveState(ctx context.Context, instance string, state []byte) error {
	return j.Store.SaveState(durable(ctx), instance, state)
}

// RecordRun records a schedule's run.
func (j *journal) RecordRun(ctx context.Context, run strategy.Run) error {
	return j.Store.RecordRun(durable(ctx), run)
}

// LoadState restores strategy state, except in a fresh (simulated) session.
func (j *journal) LoadState(ctx context.Context, instance string) ([]byte, bool, error) {
	if j.fresh {
		return nil, false, nil
	}
	return j.Store.LoadState(ctx, instance)
}
