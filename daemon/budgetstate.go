package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// budgetKey is the reserved strategy-state key (no instance id contains
// '#') under which a bot leaves its REST client's rate-budget state for
// the next start over the same store.
const budgetKey = "#rate-budget"

// savedBudget is what a bot leaves in the store: Running from its start
// until it stops cleanly, when it saves its budget's draws with it.
type savedBudget struct {
	Running bool      `json:"running"`
	At      time.Time `json:"at"`
	exchange.BudgetState
}

// loadBudget runs before a live or paper bot's first request. The
// exchange counts requests per address and account over sliding windows,
// so the requests of the process that ran before this one still count: a
// fresh, empty budget would send a window's worth at once and draw 429s,
// and five of those within a minute ban the address. So the budget
// starts from what the last process left: its draws still in their
// windows and the server's pause, when it stopped cleanly; when it did
// not (killed, crashed, or still running), every pool is taken as full
// for one window. Then the store records this process as running.
func (b *Bot) loadBudget(ctx context.Context) {
	if b.budget == nil {
		return
	}
	raw, ok, err := b.opts.Store.LoadState(ctx, budgetKey)
	var prev savedBudget
	switch {
	case err != nil:
		b.fail("loading the rate-budget state", err)
		b.budget.SaturateAll()
	case !ok:
	case json.Unmarshal(raw, &prev) != nil:
		b.log.Warn("the stored rate-budget state is unreadable; taking every pool as full for one window")
		b.budget.SaturateAll()
	case prev.Running:
		// What it knew at its start still counts; what it drew since is
		// unknown but kept that within the limits, so the room left now
		// is all it can have used.
		b.log.Info("the last bot run did not stop cleanly (killed?); taking every rate-budget pool as full for one window",
			slog.Time("started", prev.At))
		if err := b.budget.Restore(prev.BudgetState); err != nil {
			b.fail("restoring the rate-budget state", err)
		}
		b.budget.SaturateAll()
	default:
		if err := b.budget.Restore(prev.BudgetState); err != nil {
			b.fail("restoring the rate-budget state", err)
			b.budget.SaturateAll()
		}
	}
	b.saveBudget(ctx, true)
}

// saveBudget records the budget's state with the draws still in their
// windows: at start (running), which a start after a kill builds on, and
// as the bot stops, after its last request.
func (b *Bot) saveBudget(ctx context.Context, running bool) {
	if b.budget == nil {
		return
	}
	s := savedBudget{Running: running, At: b.clock.Now(), BudgetState: b.budget.State()}
	raw, err := json.Marshal(s)
	if err == nil {
		err = b.opts.Store.SaveState(ctx, budgetKey, raw)
	}
	if err != nil {
		b.fail("saving the rate-budget state", err)
	}
}
