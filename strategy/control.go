package strategy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

// RulePaused is the rule of orders refused while an operator has paused
// the instance that places them.
const RulePaused = "paused"

// Reloader is the optional capability of a strategy whose parameters can
// be replaced while it runs. Reload gets the instance's params section of
// the configuration, decodes and validates it, and applies it; an error
// leaves the strategy as it was.
type Reloader interface {
	Reload(params map[string]any) error
}

// ErrNotReloadable refuses a reload of a strategy without Reloader.
var ErrNotReloadable = errors.New("the strategy cannot reload its parameters (it has no Reload method)")

// Pause makes the runtime refuse the instance's new orders, under rule
// RulePaused, until Resume; its bars, fills and schedules are still
// delivered. It reports whether the instance was running before.
func (r *Runtime) Pause(instance string) (bool, error) {
	in, err := r.lookup(instance)
	if err != nil {
		return false, err
	}
	was := in.paused
	in.paused = true
	return !was, nil
}

// Resume lets a paused instance place orders again. It reports whether
// the instance was paused.
func (r *Runtime) Resume(instance string) (bool, error) {
	in, err := r.lookup(instance)
	if err != nil {
		return false, err
	}
	was := in.paused
	in.paused = false
	return was, nil
}

// Paused reports whether the instance is paused.
func (r *Runtime) Paused(instance string) bool {
	in := r.instance(instance)
	return in != nil && in.paused
}

// CancelOpen cancels every open order of the instance, stopped or not, and
// returns the client order ids cancelled (or already final on the
// exchange). Errors of single orders are joined; the others are still
// cancelled.
func (r *Runtime) CancelOpen(ctx context.Context, instance string) ([]string, error) {
	in, err := r.lookup(instance)
	if err != nil {
		return nil, err
	}
	r.ctx = ctx
	var ids []string
	for _, t := range r.open {
		if t.inst == in && !t.final {
			ids = append(ids, t.order.ClientOrderID)
		}
	}
	done := make([]string, 0, len(ids))
	var errs []error
	for _, id := range ids {
		t := r.find(id)
		o, err := r.opts.Trader.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: t.order.Symbol, OrigClientOrderID: id})
		switch {
		case err == nil:
			r.stale = true
			r.applyOrder(t, o)
		case exchange.HasCode(err, exchange.CodeUnknownOrder):
			// Already final on the exchange: Sync brings its state.
		default:
			errs = append(errs, fmt.Errorf("%s: %w", id, err))
			continue
		}
		done = append(done, id)
	}
	in.log.Info("open orders cancelled by the operator", slog.Any("client_order_ids", done))
	return done, errors.Join(errs...)
}

// ForceExit sells the instance's position in symbol at market, through
// the risk gate, paused or not: the quantity held by its fills, floored
// to the symbol's precision and capped by the free balance of the base
// asset. The order is the one placed (or refused).
func (r *Runtime) ForceExit(ctx context.Context, instance, symbol string) (Order, error) {
	in, err := r.lookup(instance)
	if err != nil {
		return Order{}, err
	}
	r.ctx = ctx
	p := in.held(symbol)
	if p == nil {
		return Order{}, fmt.Errorf("strategy %s: no position in %s", in.id, symbol)
	}
	info, _ := r.rule(symbol)
	if info == nil {
		return Order{}, fmt.Errorf("strategy %s: no rules for %s", in.id, symbol)
	}
	qty := p.qty()
	if free := r.balance(info.BaseAsset).Free; free.LessThan(qty) {
		qty = free
	}
	qty = info.FloorQty(qty)
	if !qty.IsPositive() {
		return Order{}, fmt.Errorf("strategy %s: no %s to sell (position %s)", in.id, symbol, p.qty())
	}
	o := exchange.NewOrder{Symbol: symbol, Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: qty}
	ord, err := in.place(o, true)
	in.log.Info("force exit", slog.String("symbol", symbol), slog.String("quantity", qty.String()),
		slog.String("client_order_id", ord.ClientOrderID), slog.Any("err", err))
	return ord, err
}

// Reload replaces the instance's parameters with params when its strategy
// is a Reloader; the runtime's copy of the instance's configuration is
// updated only when the strategy accepts them.
func (r *Runtime) Reload(instance string, params map[string]any) error {
	in, err := r.lookup(instance)
	if err != nil {
		return err
	}
	rl, ok := in.s.(Reloader)
	if !ok {
		return fmt.Errorf("strategy %s (%s): %w", in.id, in.cfg.Name, ErrNotReloadable)
	}
	if err := rl.Reload(params); err != nil {
		return fmt.Errorf("strategy %s: reload: %w", in.id, err)
	}
	in.cfg.Params = params
	in.log.Info("parameters reloaded")
	return nil
}

// lookup finds an instance or says which exist.
func (r *Runtime) lookup(id string) (*instance, error) {
	if in := r.instance(id); in != nil {
		return in, nil
	}
	ids := make([]string, 0, len(r.insts))
	for _, x := range r.insts {
		ids = append(ids, x.id)
	}
	return nil, fmt.Errorf("strategy: no instance %q (instances: %v)", id, ids)
}

// pausedRefusal is the refusal of a paused instance's order.
func (in *instance) pausedRefusal() error {
	err := &risk.Rejection{Rule: RulePaused, Reason: "instance " + in.id + " is paused by the operator"}
	in.rt.refused(err)
	return err
}
