package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategy"
)

// The operator actions of the control API.
const (
	ActionPause     = "pause"
	ActionResume    = "resume"
	ActionCancel    = "cancel"     // cancel the instance's open orders
	ActionForceExit = "force-exit" // sell its position at market
	ActionRun       = "run"        // run one of its jobs now
	ActionReload    = "reload"     // re-read its parameters from the configuration file
)

// Action is an operator's request for one instance.
type Action struct {
	Name     string
	Instance string
	// Symbol, for a force exit, is the position to sell; empty picks the
	// instance's only symbol.
	Symbol string
	// Job, for a run, names the schedule; empty picks the only one.
	Job string
	// Source is where the action came from: empty for the control API,
	// "telegram" for a Telegram command. It is logged and, when not
	// empty, noted in the recorded details.
	Source string
}

// ActionResult is what an action did.
type ActionResult struct {
	Details string
	// Orders are the client order ids the action placed or cancelled.
	Orders []string
}

// ErrUnknownAction refuses an action name the bot does not know.
var ErrUnknownAction = errors.New("unknown action (pause, resume, cancel, force-exit, run, reload)")

// ErrUnknownInstance refuses an action on an instance not configured.
var ErrUnknownInstance = errors.New("no such instance")

// controlReq is an action waiting for the loop's goroutine, which alone
// touches the runtime.
type controlReq struct {
	ctx  context.Context
	a    Action
	done chan controlResp // buffered: the loop never waits on it
}

type controlResp struct {
	res ActionResult
	err error
}

// controlQueue bounds the actions waiting for the loop.
const controlQueue = 16

// Control asks the bot's loop to apply a, at its next step, and waits for
// the outcome until ctx ends. Every action applied is recorded in the
// store (control_actions) and the log. An action whose ctx ended before
// the loop took it is not applied.
func (b *Bot) Control(ctx context.Context, a Action) (ActionResult, error) {
	switch a.Name {
	case ActionPause, ActionResume, ActionCancel, ActionForceExit, ActionRun, ActionReload:
	default:
		return ActionResult{}, fmt.Errorf("daemon: action %q: %w", a.Name, ErrUnknownAction)
	}
	if !b.insts[a.Instance] {
		return ActionResult{}, fmt.Errorf("daemon: instance %q: %w", a.Instance, ErrUnknownInstance)
	}
	req := &controlReq{ctx: ctx, a: a, done: make(chan controlResp, 1)}
	select {
	case b.ctl <- req:
	case <-ctx.Done():
		return ActionResult{}, fmt.Errorf("daemon: %s %s: not taken: %w", a.Name, a.Instance, ctx.Err())
	default:
		return ActionResult{}, fmt.Errorf("daemon: %s %s: %d actions are waiting already", a.Name, a.Instance, controlQueue)
	}
	if b.wake != nil {
		select {
		case b.wake <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
	select {
	case r := <-req.done:
		return r.res, r.err
	case <-ctx.Done():
		return ActionResult{}, fmt.Errorf("daemon: %s %s: the bot did not take it in time: %w", a.Name, a.Instance, ctx.Err())
	}
}

// applyControl applies the waiting actions; it runs on the loop's
// goroutine, between steps.
func (b *Bot) applyControl(ctx context.Context) {
	for {
		select {
		case req := <-b.ctl:
			if req.ctx.Err() != nil {
				b.log.Warn("control action dropped: its request ended before the bot took it",
					slog.String("action", req.a.Name), slog.String("instance", req.a.Instance))
				continue
			}
			res, err := b.apply(ctx, req.a)
			b.recordControl(ctx, req.a, res, err)
			req.done <- controlResp{res, err}
			b.refresh()
		default:
			return
		}
	}
}

// apply does one action.
func (b *Bot) apply(ctx context.Context, a Action) (ActionResult, error) {
	rt := b.rt
	switch a.Name {
	case ActionPause:
		changed, err := rt.Pause(a.Instance)
		return ActionResult{Details: pick(changed, "paused", "already paused")}, err
	case ActionResume:
		changed, err := rt.Resume(a.Instance)
		return ActionResult{Details: pick(changed, "resumed", "was not paused")}, err
	case ActionCancel:
		ids, err := rt.CancelOpen(ctx, a.Instance)
		return ActionResult{Details: fmt.Sprintf("%d orders cancelled", len(ids)), Orders: ids}, err
	case ActionForceExit:
		sym, err := b.exitSymbol(a)
		if err != nil {
			return ActionResult{}, err
		}
		o, err := rt.ForceExit(ctx, a.Instance, sym)
		if err != nil {
			return ActionResult{Orders: nonEmpty(o.ClientOrderID)}, err
		}
		return ActionResult{Details: fmt.Sprintf("%s %s %s %s: %s", o.Side, o.Type, o.Quantity, o.Symbol, o.Status),
			Orders: []string{o.ClientOrderID}}, nil
	case ActionRun:
		run, err := rt.RunNow(ctx, a.Instance, a.Job)
		if err != nil {
			return ActionResult{}, err
		}
		res := ActionResult{Details: "job " + run.Schedule + " ran", Orders: run.Orders}
		if run.Err != nil {
			return res, fmt.Errorf("job %s: %w", run.Schedule, run.Err)
		}
		return res, nil
	case ActionReload:
		return b.reload(a.Instance)
	}
	return ActionResult{}, ErrUnknownAction
}

// exitSymbol is the symbol of a force exit: the one asked for, which the
// instance must trade, or its only one.
func (b *Bot) exitSymbol(a Action) (string, error) {
	sc := b.instanceConfig(b.cfg, a.Instance)
	if a.Symbol == "" {
		if len(sc.Symbols) != 1 {
			return "", fmt.Errorf("instance %s trades %s: name the symbol", a.Instance, strings.Join(sc.Symbols, ", "))
		}
		return sc.Symbols[0], nil
	}
	for _, s := range sc.Symbols {
		if s == a.Symbol {
			return s, nil
		}
	}
	return "", fmt.Errorf("instance %s does not trade %s (symbols: %s)", a.Instance, a.Symbol, strings.Join(sc.Symbols, ", "))
}

// reload re-reads the configuration file, validated as at start, and
// gives the instance its new parameters. Anything else that changed
// (strategy, symbols, interval, schedule) needs a restart and refuses the
// reload.
func (b *Bot) reload(id string) (ActionResult, error) {
	if b.opts.Reload == nil {
		return ActionResult{}, errors.New("reload: the bot was not started from a configuration file")
	}
	c, err := b.opts.Reload()
	if err != nil {
		return ActionResult{}, fmt.Errorf("reload: %w", err)
	}
	old, now := b.instanceConfig(b.cfg, id), b.instanceConfig(c, id)
	switch {
	case now.ID == "":
		return ActionResult{}, fmt.Errorf("reload: instance %s is no longer configured; restart the bot to remove it", id)
	case now.Name != old.Name || now.Interval != old.Interval || now.Schedule != old.Schedule ||
		strings.Join(now.Symbols, ",") != strings.Join(old.Symbols, ","):
		return ActionResult{}, fmt.Errorf("reload: instance %s: only params can be reloaded; restart the bot to change its strategy, symbols, interval or schedule", id)
	}
	if err := b.rt.Reload(id, now.Params); err != nil {
		return ActionResult{}, err
	}
	for i := range b.cfg.Strategies {
		if b.cfg.Strategies[i].ID == id {
			b.cfg.Strategies[i].Params = now.Params
		}
	}
	return ActionResult{Details: "parameters reloaded"}, nil
}

// instanceConfig is c's instance id, or a zero Config.
func (b *Bot) instanceConfig(c *config.Config, id string) strategy.Config {
	for _, sc := range c.Strategies {
		if sc.ID == id {
			return sc
		}
	}
	return strategy.Config{}
}

// recordControl writes the action to the store and the log.
func (b *Bot) recordControl(ctx context.Context, a Action, res ActionResult, err error) {
	rec := store.ControlAction{At: b.clock.Now(), Action: a.Name, Instance: a.Instance, Args: a.Symbol + a.Job, OK: err == nil,
		Details: res.Details}
	if len(res.Orders) > 0 {
		rec.Details += "; orders: " + strings.Join(res.Orders, ", ")
	}
	if err != nil {
		rec.Details = err.Error()
	}
	source := a.Source
	if source == "" {
		source = "api"
	} else {
		rec.Details += " (via " + a.Source + ")"
	}
	if err != nil {
		b.log.Warn("control action failed", slog.String("action", a.Name), slog.String("instance", a.Instance),
			slog.String("args", rec.Args), slog.String("source", source), slog.Any("err", err))
	} else {
		b.log.Info("control action", slog.String("action", a.Name), slog.String("instance", a.Instance),
			slog.String("args", rec.Args), slog.String("source", source), slog.String("details", rec.Details))
	}
	if _, rerr := b.opts.Store.RecordControl(ctx, rec); rerr != nil {
		b.fail("recording a control action", rerr)
	}
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
