package daemon

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/notify"
)

// Notifier receives the bot's events for the operator (a *notify.Notifier
// in the command). Notify is called from the loop's goroutine and from the
// guard's callers; it must not block.
type Notifier interface {
	Notify(notify.Event)
}

// refusalBurst is how many new refusals make a notice: one refused order
// is routine (a risk limit doing its job), a run of them is not. One
// notice a refusalQuiet at most: it says how many came since the last.
const (
	refusalBurst = 5
	refusalQuiet = time.Minute
)

// notices turns changes of the bot's state into notifications. The fields
// are the loop's: they are compared at each refresh, on its goroutine.
type notices struct {
	to       Notifier
	summary  cron.Schedule // nil: no daily summary
	next     time.Time     // the next summary
	phase    string
	killed   string
	refused  int       // refusals already told
	toldAt   time.Time // when refusals were last told
	runs     map[string]int
	reported bool // the reconciliation
}

// setupNotices wires the notifier to the journal's fills and the guard's
// bans; the rest comes from the status at each refresh.
func (b *Bot) setupNotices() error {
	to := b.opts.Notify
	if to == nil {
		return nil
	}
	b.notes = &notices{to: to, phase: PhaseStarting, runs: map[string]int{}}
	if spec := b.cfg.Notify.DailySummary; spec != "" {
		s, err := cron.ParseStandard(spec)
		if err != nil {
			return fmt.Errorf("daemon: notify.daily_summary: %w", err)
		}
		b.notes.summary = s
	}
	b.jr.onFill = func(instance, cid string, t exchange.OwnTrade) {
		side := exchange.SideSell
		if t.IsBuyer {
			side = exchange.SideBuy
		}
		b.notify(notify.KindFill, instance, fmt.Sprintf("%s %s %s at %s", side, t.Qty, t.Symbol, t.Price), map[string]string{
			"symbol": t.Symbol, "side": string(side), "price": t.Price.String(), "qty": t.Qty.String(),
			"fee": t.Commission.String() + " " + t.CommissionAsset, "client_order_id": cid, "trade_id": t.ID})
	}
	b.guard.onBan = func(until time.Time) {
		if until.IsZero() {
			b.notify(notify.KindBan, "", "the exchange's IP ban is over; trading resumes", nil)
			return
		}
		b.notify(notify.KindBan, "", "trading paused: the exchange banned this IP (HTTP 418) until "+until.UTC().Format(time.RFC3339),
			map[string]string{"until": until.UTC().Format(time.RFC3339)})
	}
	return nil
}

func (b *Bot) notify(kind notify.Kind, instance, text string, fields map[string]string) {
	b.notes.to.Notify(notify.Event{Kind: kind, Instance: instance, Text: text, Fields: fields, Time: b.clock.Now()})
}

// noticeChanges compares the fresh status with what was told: start and
// stop, the reconciliation, the kill switch, bursts of refusals, job
// results and the daily summary.
func (b *Bot) noticeChanges(s *Status) {
	n := b.notes
	if n == nil {
		return
	}
	if s.Phase != n.phase {
		switch s.Phase {
		case PhaseRunning:
			b.notify(notify.KindStart, "", "trading started ("+b.cfg.Mode+")", map[string]string{
				"mode": b.cfg.Mode, "strategies": strconv.Itoa(len(b.cfg.Strategies)), "symbols": strings.Join(b.symbols, ",")})
		case PhaseStopped:
			fields := counterFields(s)
			if s.LastError != "" {
				fields["last_error"] = s.LastError
			}
			b.notify(notify.KindStop, "", "bot stopped", fields)
		}
		n.phase = s.Phase
	}
	if !n.reported && s.Phase == PhaseRunning {
		n.reported = true
		if rc := s.Counters.Reconciled; rc != (Reconciled{}) {
			b.notify(notify.KindReconcile, "", fmt.Sprintf("reconciled: %d checked, %d updated, %d fills imported, %d adopted, %d cancelled, %d closed",
				rc.Checked, rc.Updated, rc.Fills, rc.Adopted, rc.Cancelled, rc.Closed), nil)
		}
	}
	if s.KillSwitch != "" && n.killed == "" {
		b.notify(notify.KindKillSwitch, "", "kill switch tripped: "+s.KillSwitch, map[string]string{"reason": s.KillSwitch})
	}
	n.killed = s.KillSwitch
	total := 0
	for rule, c := range s.Counters.OrdersRefused {
		if rule != RuleShutdown {
			total += c
		}
	}
	if now := b.clock.Now(); total-n.refused >= refusalBurst && (n.toldAt.IsZero() || now.Sub(n.toldAt) >= refusalQuiet) {
		n.toldAt = now
		fields := map[string]string{}
		for _, rule := range slices.Sorted(maps.Keys(s.Counters.OrdersRefused)) {
			fields[rule] = strconv.Itoa(s.Counters.OrdersRefused[rule])
		}
		b.notify(notify.KindRefusals, "", fmt.Sprintf("%d orders refused since the last notice (%d in all)", total-n.refused, total), fields)
		n.refused = total
	}
	for _, outcome := range []string{"ok", "error"} {
		if d := s.Counters.JobRuns[outcome] - n.runs[outcome]; d > 0 && s.Phase == PhaseRunning {
			b.notify(notify.KindJob, "", fmt.Sprintf("%d schedule run(s) ended %s", d, outcome), map[string]string{"outcome": outcome})
		}
		n.runs[outcome] = s.Counters.JobRuns[outcome]
	}
	if n.summary != nil {
		now := b.clock.Now()
		if n.next.IsZero() {
			n.next = n.summary.Next(now)
		} else if !now.Before(n.next) {
			n.next = n.summary.Next(now)
			b.notify(notify.KindSummary, "", fmt.Sprintf("summary: %d fills, %d orders placed, %d open orders, %d positions",
				s.Counters.Fills, s.Counters.OrdersPlaced, len(s.OpenOrders), len(s.Positions)), counterFields(s))
		}
	}
}

func counterFields(s *Status) map[string]string {
	return map[string]string{"fills": strconv.Itoa(s.Counters.Fills), "orders_placed": strconv.Itoa(s.Counters.OrdersPlaced),
		"open_orders": strconv.Itoa(len(s.OpenOrders))}
}
