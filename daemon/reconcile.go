package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategy"
)

// externalOrder is an order the bot follows for the store alone: adopted
// from the exchange or left by an instance no longer configured.
type externalOrder struct {
	instance string
	cid      string
	orderID  string
	symbol   string
	executed decimal.Decimal // quantity whose fills are recorded
	status   exchange.OrderStatus
	unknown  bool // never confirmed by the exchange
}

// closeLeftovers ends, in the store, the orders a simulated session left
// open: the simulator that held them is gone with its process, and each
// session starts over from account.balances.
func (b *Bot) closeLeftovers(ctx context.Context) error {
	open, err := b.opts.Store.OpenOrders(ctx, "")
	if err != nil {
		return fmt.Errorf("daemon: reconciliation: %w", err)
	}
	for _, o := range open {
		var err error
		if o.Intent == store.IntentAcknowledged {
			err = b.opts.Store.RecordOrder(ctx, o.Instance, exchange.Order{Symbol: o.Symbol, OrderID: o.OrderID,
				ClientOrderID: o.ClientOrderID, Status: exchange.StatusCanceled, ExecutedQty: o.ExecutedQty,
				CummulativeQuoteQty: o.CumQuoteQty, CancelReason: "SESSION_ENDED", Side: o.Side, Type: o.Type,
				Price: o.Price, OrigQty: o.Quantity, UpdateTime: b.clock.Now()})
		} else {
			err = b.opts.Store.RecordRefused(ctx, o.ClientOrderID, errors.New("the simulated session ended before the order was confirmed"))
		}
		if err != nil {
			return fmt.Errorf("daemon: reconciliation: closing %s: %w", o.ClientOrderID, err)
		}
		b.stat.Counters.Reconciled.Closed++
	}
	if n := len(open); n > 0 {
		b.log.Info("closed orders left open by an earlier simulated session", slog.Int("orders", n))
	}
	return nil
}

// reconcile brings the store and the runtime up to date with the exchange
// at start (live mode), after the runtime's Start: positions are rebuilt
// from the recorded fills, every non-final order of the store is followed
// again (the first Sync queries it by client order id, imports the fills
// missed while the bot was down and delivers them), and exchange orders the
// store does not know are adopted or cancelled (daemon.unknown_orders).
func (b *Bot) reconcile(ctx context.Context) error {
	st := b.opts.Store
	fills, err := st.FillsSince(ctx, b.paperSince) // zero live: every fill
	if err != nil {
		return fmt.Errorf("daemon: reconciliation: %w", err)
	}
	recorded := map[string]decimal.Decimal{}
	for _, f := range fills {
		recorded[f.ClientOrderID] = recorded[f.ClientOrderID].Add(f.Qty)
		if !b.insts[f.Instance] {
			continue
		}
		sf := strategy.Fill{ClientOrderID: f.ClientOrderID, OrderID: f.OrderID, TradeID: f.TradeID, Symbol: f.Symbol, Side: f.Side,
			Price: f.Price, Qty: f.Qty, QuoteQty: f.QuoteQty, Commission: f.Commission, CommissionAsset: f.CommissionAsset,
			Maker: f.Maker, SelfTrade: f.SelfTrade, Time: f.Time}
		if err := b.rt.RestoreFill(f.Instance, sf); err != nil {
			b.log.Warn("restoring a position failed", slog.String("instance", f.Instance), slog.Any("err", err))
		}
	}
	open, err := st.OpenOrders(ctx, "")
	if err != nil {
		return fmt.Errorf("daemon: reconciliation: %w", err)
	}
	rc := &b.stat.Counters.Reconciled
	for _, o := range open {
		rc.Checked++
		unconfirmed := o.Intent == store.IntentRecorded || o.Intent == store.IntentSent || o.Intent == store.IntentUnknown
		if b.insts[o.Instance] {
			if err := b.rt.Adopt(o.Instance, orderOf(o), recorded[o.ClientOrderID], unconfirmed); err != nil {
				return fmt.Errorf("daemon: reconciliation: %w", err)
			}
			continue
		}
		b.external = append(b.external, &externalOrder{instance: o.Instance, cid: o.ClientOrderID, orderID: o.OrderID,
			symbol: o.Symbol, executed: recorded[o.ClientOrderID], status: o.Status, unknown: unconfirmed})
	}
	for _, sym := range b.symbols {
		ex, err := b.guard.OpenOrders(ctx, sym)
		if err != nil {
			return fmt.Errorf("daemon: reconciliation: open orders of %s: %w", sym, err)
		}
		for _, eo := range ex {
			if eo.ClientOrderID != "" {
				if _, found, err := st.Order(ctx, eo.ClientOrderID); err != nil {
					return fmt.Errorf("daemon: reconciliation: %w", err)
				} else if found {
					continue
				}
			}
			if err := b.unknownOrder(ctx, eo); err != nil {
				return err
			}
		}
	}
	b.followExternal(ctx)
	if rc.Checked+rc.Adopted+rc.Cancelled > 0 {
		b.log.Info("reconciliation", slog.Int("store_open_orders", rc.Checked), slog.Int("adopted", rc.Adopted),
			slog.Int("cancelled", rc.Cancelled))
	}
	return nil
}

// unknownOrder handles an exchange order the store does not know.
func (b *Bot) unknownOrder(ctx context.Context, eo exchange.Order) error {
	rc := &b.stat.Counters.Reconciled
	owner := b.owner(eo.ClientOrderID)
	log := b.log.With(slog.String("instance", owner), slog.String("symbol", eo.Symbol), slog.String("client_order_id", eo.ClientOrderID),
		slog.String("order_id", eo.OrderID))
	if b.cfg.Daemon.UnknownOrders == config.UnknownCancel {
		reply, err := b.guard.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: eo.Symbol, OrderID: eo.OrderID})
		if err != nil && !exchange.HasCode(err, exchange.CodeUnknownOrder) {
			return fmt.Errorf("daemon: reconciliation: cancelling unknown order %s of %s: %w", eo.OrderID, eo.Symbol, err)
		}
		if err == nil {
			eo = reply
		}
		if err := b.opts.Store.RecordOrder(ctx, owner, eo); err != nil {
			return fmt.Errorf("daemon: reconciliation: %w", err)
		}
		rc.Cancelled++
		log.Warn("cancelled an open order unknown to the store (daemon.unknown_orders: cancel)")
		// Fills it had before the cancel belong in the store too.
		if eo.ExecutedQty.IsPositive() {
			b.external = append(b.external, &externalOrder{instance: owner, cid: eo.ClientOrderID, orderID: eo.OrderID,
				symbol: eo.Symbol, status: eo.Status})
		}
		return nil
	}
	// Adopt: record it first, so a crash now leaves it known.
	if err := b.opts.Store.RecordOrder(ctx, owner, eo); err != nil {
		return fmt.Errorf("daemon: reconciliation: %w", err)
	}
	rc.Adopted++
	if b.insts[owner] {
		so := exchangeOrderOf(eo)
		if err := b.rt.Adopt(owner, so, decimal.Zero, false); err != nil {
			return fmt.Errorf("daemon: reconciliation: %w", err)
		}
		log.Info("adopted an open order unknown to the store into its instance")
		return nil
	}
	b.external = append(b.external, &externalOrder{instance: owner, cid: eo.ClientOrderID, orderID: eo.OrderID,
		symbol: eo.Symbol, status: eo.Status})
	log.Info("adopted an open order unknown to the store; following it for the store")
	return nil
}

// owner is the configured instance whose client ids look like cid
// ("<instance>-..."), or "".
func (b *Bot) owner(cid string) string {
	best := ""
	for id := range b.insts {
		if strings.HasPrefix(cid, id+"-") && len(id) > len(best) {
			best = id
		}
	}
	return best
}

// followExternal brings the orders followed for the store alone up to
// date: status, and the fills the exchange reports beyond those recorded.
// Final ones are dropped.
func (b *Bot) followExternal(ctx context.Context) {
	kept := b.external[:0]
	for _, e := range b.external {
		q := exchange.QueryOrderRequest{Symbol: e.symbol, OrderID: e.orderID}
		if e.orderID == "" {
			q = exchange.QueryOrderRequest{Symbol: e.symbol, OrigClientOrderID: e.cid}
		}
		o, err := b.guard.QueryOrder(ctx, q)
		if err != nil {
			if exchange.HasCode(err, exchange.CodeUnknownOrder) {
				if e.unknown {
					if err := b.opts.Store.RecordRefused(ctx, e.cid, err); err != nil {
						b.fail("recording a refusal", err)
					}
				} else {
					b.log.Warn("order unknown to the exchange; no longer followed", slog.String("instance", e.instance),
						slog.String("symbol", e.symbol), slog.String("client_order_id", e.cid))
				}
				continue
			}
			b.fail("querying order "+e.cid, err)
			kept = append(kept, e)
			continue
		}
		changed := o.Status != e.status || o.ExecutedQty.GreaterThan(e.executed)
		if o.ExecutedQty.GreaterThan(e.executed) {
			trades, err := b.guard.MyTrades(ctx, exchange.MyTradesRequest{Symbol: o.Symbol, OrderID: o.OrderID})
			if err != nil {
				b.fail("loading trades of "+e.cid, err)
				kept = append(kept, e)
				continue
			}
			for _, t := range trades {
				if t.OrderID != o.OrderID {
					continue
				}
				inserted, err := b.jr.RecordFill(ctx, e.instance, o.ClientOrderID, t)
				if err != nil {
					b.fail("recording a fill", err)
					continue
				}
				if inserted {
					b.stat.Counters.Reconciled.Fills++
				}
			}
			e.executed = o.ExecutedQty
		}
		if changed {
			if err := b.jr.RecordOrder(ctx, e.instance, o); err != nil {
				b.fail("recording an order", err)
			}
			e.status = o.Status
			b.stat.Counters.Reconciled.Updated++
		}
		if !o.Status.Final() {
			kept = append(kept, e)
		}
	}
	clear(b.external[len(kept):])
	b.external = kept
}
