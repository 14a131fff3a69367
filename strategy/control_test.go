package strategy

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/risk"
)

// reloadable keeps its last accepted parameters; "bad" is refused.
type reloadable struct {
	recorder
	params map[string]any
}

func (s *reloadable) Reload(p map[string]any) error {
	if _, bad := p["bad"]; bad {
		return errors.New("params: bad is not a parameter")
	}
	s.params = p
	return nil
}

func TestRuntimePauseRefusesNewOrdersOnly(t *testing.T) {
	t.Parallel()
	var placed []error
	s := &recorder{onBar: func(ctx Context, b Bar) error {
		_, err := ctx.Place(limitBuy(""))
		placed = append(placed, err)
		return nil
	}}
	h := newHarness(t, Options{}, s)
	ctx := t.Context()
	h.rt.Begin(ctx)
	if ok, err := h.rt.Pause("s0"); !ok || err != nil {
		t.Fatalf("Pause = %v, %v", ok, err)
	}
	if ok, err := h.rt.Pause("s0"); ok || err != nil {
		t.Fatalf("second Pause = %v, %v", ok, err)
	}
	h.rt.OnBar(ctx, feed1m, bar(0, "100"))
	var rej *risk.Rejection
	if len(placed) != 1 || !errors.As(placed[0], &rej) || rej.Error() != "risk: paused: instance s0 is paused by the operator" {
		t.Fatalf("placed while paused: %v", placed)
	}
	if !h.rt.Paused("s0") || h.ft.places != 0 || h.rt.Stats().Refused[RulePaused] != 1 {
		t.Errorf("paused %v places %d refused %v", h.rt.Paused("s0"), h.ft.places, h.rt.Stats().Refused)
	}
	if ok, err := h.rt.Resume("s0"); !ok || err != nil {
		t.Fatalf("Resume = %v, %v", ok, err)
	}
	h.clock.t = t0.Add(time.Minute)
	h.rt.OnBar(ctx, feed1m, bar(1, "101"))
	if len(placed) != 2 || placed[1] != nil || h.ft.places != 1 || len(s.seen) != 2 {
		t.Errorf("after resume: placed %v, places %d, bars %d", placed, h.ft.places, len(s.seen))
	}
	if _, err := h.rt.Pause("nosuch"); err == nil || err.Error() != `strategy: no instance "nosuch" (instances: [s0])` {
		t.Errorf("unknown instance: %v", err)
	}
}

func TestRuntimeOperatorCancelAndForceExit(t *testing.T) {
	t.Parallel()
	s := &recorder{}
	other := &recorder{}
	h := newHarness(t, Options{}, s, other)
	ctx := t.Context()
	in := h.rt.insts[0]
	for _, cid := range []string{"s0-a", "s0-b"} {
		if _, err := in.Place(limitBuy(cid)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.rt.insts[1].Place(limitBuy("s1-a")); err != nil {
		t.Fatal(err)
	}
	h.ft.fill("s0-a", "0.5", "100", t0.Add(time.Minute))
	if err := h.rt.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ids, err := h.rt.CancelOpen(ctx, "s0")
	if err != nil || strings.Join(ids, ",") != "s0-b" {
		t.Fatalf("CancelOpen = %v, %v", ids, err)
	}
	if got := h.ft.orders["s0-b"].Status; got != exchange.StatusCanceled {
		t.Errorf("s0-b %s", got)
	}
	if got := h.ft.orders["s1-a"].Status; got != exchange.StatusNew {
		t.Errorf("the other instance's order %s", got)
	}
	if _, err := h.rt.Pause("s0"); err != nil {
		t.Fatal(err)
	}
	h.rt.Begin(ctx)
	h.rt.OnBar(ctx, feed1m, bar(0, "100")) // the gate needs a market price
	// Paused or not, the operator's exit goes through the gate and out.
	o, err := h.rt.ForceExit(ctx, "s0", "BTCUSDT")
	if err != nil || o.Side != exchange.SideSell || o.Type != exchange.TypeMarket || o.Quantity.String() != "0.5" ||
		o.ClientOrderID != "s0-lt7w16o0-1" {
		t.Fatalf("ForceExit = %+v, %v", o, err)
	}
	h.ft.fill(o.ClientOrderID, "0.5", "110", t0.Add(2*time.Minute))
	if err := h.rt.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if p := in.Position("BTCUSDT"); !p.Qty.IsZero() || p.Realized.String() != "5" {
		t.Errorf("position after the exit %+v", p)
	}
	if _, err := h.rt.ForceExit(ctx, "s0", "BTCUSDT"); err == nil || err.Error() != "strategy s0: no BTCUSDT to sell (position 0)" {
		t.Errorf("second exit: %v", err)
	}
	if _, err := h.rt.ForceExit(ctx, "s1", "BTCUSDT"); err == nil || err.Error() != "strategy s1: no position in BTCUSDT" {
		t.Errorf("exit without fills: %v", err)
	}
}

func TestRuntimeReload(t *testing.T) {
	t.Parallel()
	r := &reloadable{}
	h := newHarness(t, Options{}, r, &recorder{})
	if err := h.rt.Reload("s0", map[string]any{"fast": 5}); err != nil || r.params["fast"] != 5 || h.rt.insts[0].cfg.Params["fast"] != 5 {
		t.Fatalf("Reload = %v, params %v", err, r.params)
	}
	if err := h.rt.Reload("s0", map[string]any{"bad": 1}); err == nil || err.Error() != "strategy s0: reload: params: bad is not a parameter" || r.params["fast"] != 5 {
		t.Errorf("bad reload: %v, params %v", err, r.params)
	}
	if err := h.rt.Reload("s1", nil); !errors.Is(err, ErrNotReloadable) ||
		err.Error() != "strategy s1 (test): the strategy cannot reload its parameters (it has no Reload method)" {
		t.Errorf("not reloadable: %v", err)
	}
}
