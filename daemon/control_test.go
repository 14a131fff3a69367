package daemon

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/strategies"
)

// gateClock holds the replay's pacing wait until the test lets a step
// pass, so the test decides between which steps a control action lands
// and reads the status only while the loop is parked.
type gateClock struct {
	now  time.Time
	at   chan struct{} // the loop is parked in a wait
	gate chan struct{} // the test lets it go on
	stop chan struct{} // closed at the end: waits no longer park
}

func (c *gateClock) Now() time.Time { return c.now }

func (c *gateClock) After(time.Duration) <-chan time.Time {
	select {
	case c.at <- struct{}{}:
	case <-c.stop:
		return nil // the bot's context is over too
	}
	select {
	case <-c.gate:
	case <-c.stop:
		return nil
	}
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// controlHarness runs configs/paper.yaml in paper-replay mode, one paced
// step at a time.
type controlHarness struct {
	t      *testing.T
	bot    *Bot
	clock  *gateClock
	parked bool
}

func newControlHarness(t *testing.T, reload func() (*config.Config, error)) *controlHarness {
	t.Helper()
	c := loadExample(t, "paper.yaml")
	c.Data.Speed = 3600
	clk := &gateClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), at: make(chan struct{}), gate: make(chan struct{}),
		stop: make(chan struct{})}
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: memStore(t), Clock: clk, Reload: reload})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- bot.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		close(clk.stop)
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return &controlHarness{t: t, bot: bot, clock: clk}
}

// park waits for the loop to park in its pacing wait.
func (h *controlHarness) park() {
	if !h.parked {
		<-h.clock.at
		h.parked = true
	}
}

// steps lets n paced steps pass and waits for the loop to park again.
func (h *controlHarness) steps(n int) {
	for range n {
		h.park()
		h.clock.gate <- struct{}{}
		h.parked = false
	}
	h.park()
}

// do asks for a and lets the loop take it at its next step.
func (h *controlHarness) do(a Action) (ActionResult, error) {
	h.park()
	type out struct {
		res ActionResult
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := h.bot.Control(context.Background(), a)
		ch <- out{res, err}
	}()
	for len(h.bot.ctl) == 0 {
		select {
		case o := <-ch: // refused before it was queued
			return o.res, o.err
		default:
			runtime.Gosched()
		}
	}
	h.steps(1)
	o := <-ch
	return o.res, o.err
}

func TestControlActions(t *testing.T) {
	t.Parallel()
	reloads := 0
	h := newControlHarness(t, func() (*config.Config, error) {
		reloads++
		c := loadExample(t, "paper.yaml")
		c.Strategies[0].Params["fast"] = 12
		if reloads == 2 {
			c.Strategies[0].Symbols = []string{"ETHUSDT"}
		}
		return c, nil
	})
	h.steps(300)
	st := h.bot.opts.Store
	var want []string
	check := func(a Action, details string, errText string) ActionResult {
		t.Helper()
		res, err := h.do(a)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if res.Details != details || got != errText {
			t.Fatalf("%s %s: %q, %v; want %q, %q", a.Name, a.Instance, res.Details, err, details, errText)
		}
		return res
	}
	record := func(a Action, ok bool, details string) {
		want = append(want, fmt.Sprintf("%s %s %s %v %s", a.Name, a.Instance, a.Symbol+a.Job, ok, details))
	}

	// A force exit sells the position at market; it fills at the next
	// bar's open.
	if p := positionOf(h.bot.Status(), "btc-cross"); p.Qty.String() != "0.29023663" {
		t.Fatalf("btc-cross holds %s", p.Qty)
	}
	exit := Action{Name: ActionForceExit, Instance: "btc-cross"}
	res := check(exit, "SELL MARKET 0.290236 BTCUSDT: NEW", "")
	if len(res.Orders) != 1 || res.Orders[0] != "btc-cross-ki51deo0-1o" {
		t.Fatalf("exit orders %v", res.Orders)
	}
	record(exit, true, "SELL MARKET 0.290236 BTCUSDT: NEW; orders: btc-cross-ki51deo0-1o")
	h.steps(1)
	if p := positionOf(h.bot.Status(), "btc-cross"); p.Qty.String() != "0.00000063" || p.Realized.String() != "732.8432671355877229337027" {
		t.Errorf("after the exit btc-cross holds %s, realised %s", p.Qty, p.Realized)
	}
	check(exit, "", "strategy btc-cross: no BTCUSDT to sell (position 0.00000063)")
	record(exit, false, "strategy btc-cross: no BTCUSDT to sell (position 0.00000063)")

	// Paused, the grid still gets its bars; its orders are cancelled
	// and none is laid again until it resumes.
	pause := Action{Name: ActionPause, Instance: "eth-grid"}
	check(pause, "paused", "")
	record(pause, true, "paused")
	check(pause, "already paused", "")
	record(pause, true, "already paused")
	// A Telegram command takes the same path; the record notes its source.
	tgPause := Action{Name: ActionPause, Instance: "eth-grid", Source: "telegram"}
	check(tgPause, "already paused", "")
	record(tgPause, true, "already paused (via telegram)")
	var open []string
	for _, o := range h.bot.Status().OpenOrders {
		open = append(open, o.ClientOrderID)
	}
	cancel := Action{Name: ActionCancel, Instance: "eth-grid"}
	res = check(cancel, "9 orders cancelled", "")
	if got, want := strings.Join(res.Orders, ","), strings.Join(open, ","); got != want || len(open) != 9 {
		t.Errorf("cancelled %s, open were %s", got, want)
	}
	record(cancel, true, "9 orders cancelled; orders: "+strings.Join(open, ", "))
	bars := h.bot.Status().Counters.Bars
	h.steps(100)
	s := h.bot.Status()
	if len(s.OpenOrders) != 0 || s.Counters.Bars != bars+200 {
		t.Errorf("paused: %d open orders, %d bars delivered", len(s.OpenOrders), s.Counters.Bars-bars)
	}
	resume := Action{Name: ActionResume, Instance: "eth-grid"}
	check(resume, "resumed", "")
	record(resume, true, "resumed")
	check(resume, "was not paused", "")
	record(resume, true, "was not paused")

	run := Action{Name: ActionRun, Instance: "btc-cross"}
	check(run, "", "strategy btc-cross: smacross has no schedule")
	record(run, false, "strategy btc-cross: smacross has no schedule")
	reload := Action{Name: ActionReload, Instance: "btc-cross"}
	check(reload, "", "strategy btc-cross (smacross): the strategy cannot reload its parameters (it has no Reload method)")
	record(reload, false, "strategy btc-cross (smacross): the strategy cannot reload its parameters (it has no Reload method)")
	check(reload, "", "reload: instance btc-cross: only params can be reloaded; restart the bot to change its strategy, symbols, interval or schedule")
	record(reload, false, "reload: instance btc-cross: only params can be reloaded; restart the bot to change its strategy, symbols, interval or schedule")

	// Refused before they reach the loop: not recorded.
	check(Action{Name: "explode", Instance: "btc-cross"}, "", `daemon: action "explode": unknown action (pause, resume, cancel, force-exit, run, reload)`)
	check(Action{Name: ActionPause, Instance: "nosuch"}, "", `daemon: instance "nosuch": no such instance`)

	rows, err := st.ControlActions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		if !r.At.Equal(h.clock.now) {
			t.Errorf("row %d at %s", r.ID, r.At)
		}
		got = append(got, fmt.Sprintf("%s %s %s %v %s", r.Action, r.Instance, r.Args, r.OK, r.Details))
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("recorded\n%s\nwant\n%s", g, w)
	}
}

func positionOf(s Status, instance string) PositionStatus {
	for _, p := range s.Positions {
		if p.Instance == instance {
			return p
		}
	}
	return PositionStatus{}
}
