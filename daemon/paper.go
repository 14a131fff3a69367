package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/store"
)

// PaperKey keys, among the strategy states of the store, the paper
// account a paper bot continues from at its next start; instance ids
// cannot contain '#'. Deleting it (bot paper reset) starts the wallet over.
const PaperKey = "#paper-account"

// savedPaper is the stored paper account.
type savedPaper struct {
	// Since is when this paper wallet started (simulated exchange time,
	// milliseconds): positions are rebuilt from the fills since then, not
	// from those of an earlier wallet in the same store.
	Since int64 `json:"since_ms"`
	// At is the simulated exchange's time at the save: the bars closed by
	// then were fed to it already.
	At      int64            `json:"at_ms"`
	Account sim.AccountState `json:"account"`
}

// persistentPaper says the session keeps its wallet across restarts:
// paper mode (a replay starts over with its data).
func (b *Bot) persistentPaper() bool { return b.cfg.Mode == config.ModePaper }

// restorePaper loads the saved paper account into the new simulator and
// reports whether there was one. Without one, this session starts a new
// wallet from account.balances.
func (b *Bot) restorePaper(ctx context.Context) (bool, error) {
	data, ok, err := b.opts.Store.LoadState(ctx, PaperKey)
	if err != nil {
		return false, fmt.Errorf("daemon: %w", err)
	}
	if !ok {
		b.paperSince = b.x.Now()
		b.log.Info("paper account: a new wallet from account.balances")
		return false, nil
	}
	var s savedPaper
	if err := json.Unmarshal(data, &s); err != nil {
		return false, fmt.Errorf("daemon: store: the saved paper account is not readable (bot paper reset starts over): %w", err)
	}
	if err := b.x.ImportAccount(b.x.MasterUID(), s.Account); err != nil {
		return false, fmt.Errorf("daemon: restoring the paper account (bot paper reset starts over): %w", err)
	}
	b.paperSince = time.UnixMilli(s.Since).UTC()
	b.paperAt = time.UnixMilli(s.At).UTC()
	// The account is the one the strategies saved their state with.
	b.jr.fresh = false
	b.log.Info("paper account restored", slog.Int("balances", len(s.Account.Balances)), slog.Int("open_orders", len(s.Account.Orders)),
		slog.Time("wallet_since", b.paperSince))
	return true, nil
}

// savePaper stores the paper account, when the session keeps it.
func (b *Bot) savePaper(ctx context.Context) {
	if !b.persistentPaper() || b.x == nil || !b.rtStarted {
		return
	}
	acct, err := b.x.ExportAccount(b.x.MasterUID())
	if err != nil {
		b.fail("saving the paper account", err)
		return
	}
	data, err := json.Marshal(savedPaper{Since: b.paperSince.UnixMilli(), At: b.x.Now().UnixMilli(), Account: acct})
	if err == nil {
		err = b.opts.Store.SaveState(context.WithoutCancel(ctx), PaperKey, data)
	}
	if err != nil {
		b.fail("saving the paper account", err)
		return
	}
	st := b.rt.Stats()
	b.paperSaved = [2]int{st.Placed, st.Fills}
}

// savePaperIfChanged saves the paper account after orders were placed or
// filled since the last save, so a killed bot loses at most one step.
func (b *Bot) savePaperIfChanged(ctx context.Context) {
	if !b.persistentPaper() || !b.rtStarted {
		return
	}
	if st := b.rt.Stats(); [2]int{st.Placed, st.Fills} != b.paperSaved {
		b.savePaper(ctx)
	}
}

// ResetPaper forgets the saved paper account of st: the next paper start
// begins a new wallet from account.balances (closing the orders the old
// one left open in the store). It reports whether there was one.
func ResetPaper(ctx context.Context, st *store.Store) (bool, error) {
	_, ok, err := st.LoadState(ctx, PaperKey)
	if err != nil || !ok {
		return false, err
	}
	return true, st.DeleteState(ctx, PaperKey)
}

// warmPrice gives the simulator the price of a warm-up bar it is not fed
// (a restored account saw it already), so it has a last price to trade at.
func (b *Bot) warmPrice(bar *session.Bar) {
	if !bar.Warm || bar.Sim || b.x == nil || b.paperAt.IsZero() || b.poll.SimIntervals[bar.Feed.Symbol] != bar.Feed.Interval {
		return
	}
	if err := b.x.SetLastPrice(bar.Feed.Symbol, bar.K.Close.Decimal()); err != nil {
		b.fail("paper account: last price", err)
	}
}
