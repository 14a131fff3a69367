package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategy"
)

// Options configure a Bot. Config, Registry, Store and Clock are required;
// Client is required in live and paper modes.
type Options struct {
	// Config is the validated configuration; its mode picks the port.
	Config *config.Config
	// Registry builds the strategy instances.
	Registry *strategy.Registry
	// Store is the journal: orders, fills, strategy state, runs. The
	// caller opens and closes it.
	Store *store.Store
	// Clock is the wall clock (exchange.SystemClock in the command; tests
	// inject a clock that drives simulated time).
	Clock exchange.Clock
	// Logger receives the bot's logs (discarded when nil).
	Logger *slog.Logger
	// Client is the REST client: signed in live mode (it is the trading
	// port), used for public market data only in paper mode.
	Client *exchange.Client
	// Replay, in paper-replay mode, replaces the data of data.source:
	// each symbol's bars at data.interval, in time order.
	Replay map[string][]exchange.Kline
	// Notify, when set, receives the operator's notifications (start,
	// stop, fills, bans, kill switch, ...; daemon/notify.go).
	Notify Notifier
	// Reload, when set, re-reads and validates the configuration file the
	// bot was started with, for the control API's reload action.
	Reload func() (*config.Config, error)
}

// Bot is one trading session: build it with New, run it with Run, watch
// it with Status.
type Bot struct {
	opts  Options
	cfg   *config.Config
	log   *slog.Logger
	clock exchange.Clock

	client *exchange.Client
	budget *exchange.Budget
	guard  *guard
	gate   *risk.Gate
	rt     *strategy.Runtime
	jr     *journal
	x      *sim.Exchange // paper modes
	rclock *sharedClock  // paper-replay: the runtime's clock

	insts   map[string]bool
	feeds   []strategy.Feed
	symbols []string
	fill    session.Fill
	replay  *replayData
	poll    *session.Poll // live and paper: the market-data feed
	// paperSince is when the paper wallet started (positions are rebuilt
	// from the fills since); paperSaved the runtime's placed and fill
	// counts at the last save of the paper account.
	paperSince time.Time
	paperAt    time.Time // the restored account's save time; zero for a new wallet
	paperSaved [2]int
	// seqStart is where the replay session's client-id sequence starts.
	seqStart int64

	external []*externalOrder
	notes    *notices // nil without Options.Notify

	// ctl carries the control API's actions to the loop; wake ends the
	// polling loop's wait so they apply at once.
	ctl  chan *controlReq
	wake chan struct{}

	ran          bool
	rtStarted    bool
	budgetLoaded bool   // the store records this process as running
	stat         Status // the loop's working copy, published to status

	mu     sync.Mutex
	status Status
}

// New builds a bot: the port of the configured mode, the risk gate, the
// runtime and its strategy instances. Nothing is sent before Run.
func New(opts Options) (*Bot, error) {
	c := opts.Config
	switch {
	case c == nil:
		return nil, errors.New("daemon: a configuration is required")
	case opts.Registry == nil:
		return nil, errors.New("daemon: a strategy registry is required")
	case opts.Store == nil:
		return nil, errors.New("daemon: a store is required")
	case opts.Clock == nil:
		return nil, errors.New("daemon: a clock is required")
	case len(c.Strategies) == 0:
		return nil, errors.New("daemon: strategies: none configured")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	fill, err := session.FillFromConfig(c.Sim)
	if err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	b := &Bot{opts: opts, cfg: c, log: opts.Logger, clock: opts.Clock, client: opts.Client, insts: map[string]bool{}, fill: fill,
		ctl: make(chan *controlReq, controlQueue), wake: make(chan struct{}, 1)}
	b.stat = Status{Mode: c.Mode, Phase: PhaseStarting, Counters: Counters{OrdersRefused: map[string]int{},
		APIErrors: map[string]int{}, JobRuns: map[string]int{}}}
	b.symbols = strategy.SymbolsOf(c.Strategies)
	var port exchange.Trader
	var rtClock strategy.Clock = opts.Clock
	var base exchange.Interval
	var events exchange.EventSource
	switch c.Mode {
	case config.ModeLive:
		if opts.Client == nil {
			return nil, errors.New("daemon: live mode needs a REST client")
		}
		port = opts.Client
		b.budget = opts.Client.Budget()
	case config.ModePaper:
		if opts.Client == nil {
			return nil, errors.New("daemon: paper mode needs a REST client for market data")
		}
		b.budget = opts.Client.Budget()
		// The simulator is built at Run, with the exchange's rules.
	case config.ModePaperReplay:
		if b.replay, err = loadReplay(c, opts.Replay, b.symbols); err != nil {
			return nil, err
		}
		if b.x, err = b.newSim(b.replay.start, b.replay.rules); err != nil {
			return nil, err
		}
		port, events = b.x.Master(), b.x.Master()
		b.rclock = newSharedClock(b.replay.start)
		rtClock = b.rclock
		// Log records carry the replay's time, so a log reads as the
		// session it replays.
		b.log = slog.New(simTimeHandler{h: b.log.Handler(), now: b.rclock.Now})
		base = b.replay.iv
	default:
		return nil, fmt.Errorf("daemon: mode: %q is not a trading mode (live, paper or paper-replay)", c.Mode)
	}
	// In paper mode the simulator is built at Run, with the exchange's
	// rules; the guard learns its port then.
	b.guard = newGuard(port, events, c.Simulated(), b.budget, b.log)
	var gopts []risk.Option
	if !c.Simulated() {
		gopts = append(gopts, risk.WithBudget(b.budget, risk.BudgetWait))
	}
	b.jr = newJournal(opts.Store, b.log, c.Simulated())
	// Schedules are checked at each wake-up: every poll.orders at least
	// in the polling modes, at each bar's close in a replay (as in a
	// backtest); an occurrence seen that late is on time, not missed.
	grace := max(time.Minute, 2*c.Poll.Orders)
	if base != "" {
		grace = base.Duration()
	}
	var locks strategy.LockRecorder
	if opts.Store != nil {
		locks = opts.Store
	}
	b.rt, b.gate, err = session.NewRuntime(session.Options{Instances: c.Strategies, Registry: opts.Registry, Port: b.guard,
		Events: b.guard.eventSource(), Journal: b.jr, Clock: rtClock, Logger: b.log, Risk: c.Risk, Gate: gopts, Fill: b.fill,
		Quote: c.Account.Quote, BaseInterval: base, MergeGaps: c.Data.MergeGaps(), ScheduleGrace: grace, Locks: locks})
	if err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	for _, sc := range c.Strategies {
		b.insts[sc.ID] = true
	}
	b.feeds = b.rt.Feeds()
	if b.replay != nil {
		for _, f := range b.feeds {
			if _, ok := b.replay.data[f.Symbol]; !ok {
				return nil, fmt.Errorf("daemon: no replay data for %s", f.Symbol)
			}
		}
	}
	if err := b.setupNotices(); err != nil {
		return nil, err
	}
	b.refresh()
	return b, nil
}

// Run trades until ctx ends (or, in paper-replay mode, the data does),
// then shuts down: no new orders, open orders cancelled when
// daemon.cancel_on_shutdown is set, a last order sync, within
// daemon.shutdown_timeout. It returns nil after a graceful end and the
// error that stopped the bot otherwise.
func (b *Bot) Run(ctx context.Context) error {
	if b.ran {
		return errors.New("daemon: a Bot runs once")
	}
	b.ran = true
	b.stat.Started = b.clock.Now()
	b.log.Info("bot starting", slog.String("mode", b.cfg.Mode), slog.Int("strategies", len(b.cfg.Strategies)),
		slog.Any("symbols", b.symbols))
	var err error
	switch b.cfg.Mode {
	case config.ModePaperReplay:
		err = b.runReplay(ctx)
	default:
		if err = b.startPolling(ctx); err == nil {
			err = b.loop(ctx)
		}
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		err = nil
	}
	if serr := b.shutdown(ctx); err == nil {
		err = serr
	}
	return err
}

// shutdown stops trading, optionally cancels the open orders, syncs a last
// time and records the balances, within daemon.shutdown_timeout.
func (b *Bot) shutdown(ctx context.Context) error {
	b.stat.Phase = PhaseStopping
	b.refresh()
	b.guard.block(RuleShutdown, "the bot is shutting down")
	b.log.Info("bot stopping", slog.Bool("cancel_open_orders", b.cfg.Daemon.CancelOnShutdown))
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.Daemon.ShutdownTimeout)
	defer cancel()
	var errs []error
	if b.started() {
		if b.cfg.Daemon.CancelOnShutdown {
			for _, o := range b.rt.OpenOrders() {
				_, err := b.guard.CancelOrder(sctx, exchange.CancelOrderRequest{Symbol: o.Symbol, OrigClientOrderID: o.ClientOrderID})
				if err != nil && !exchange.HasCode(err, exchange.CodeUnknownOrder) {
					errs = append(errs, fmt.Errorf("cancelling %s: %w", o.ClientOrderID, err))
				}
			}
		}
		if err := b.rt.Sync(sctx); err != nil {
			errs = append(errs, fmt.Errorf("last order sync: %w", err))
		}
		b.recordBalances(sctx)
		b.savePaper(sctx)
	}
	if b.budgetLoaded {
		// After the last request: the next start paces itself by it.
		b.saveBudget(sctx, false)
	}
	b.stat.Phase = PhaseStopped
	b.refresh()
	if err := errors.Join(errs...); err != nil {
		b.log.Error("bot stopped with errors", slog.Any("err", err))
		return fmt.Errorf("daemon: shutdown: %w", err)
	}
	b.log.Info("bot stopped", slog.Int("orders_placed", b.stat.Counters.OrdersPlaced), slog.Int("fills", b.stat.Counters.Fills),
		slog.Int("open_orders", len(b.stat.OpenOrders)))
	return nil
}

// started reports whether the runtime loaded its rules (Start succeeded).
func (b *Bot) started() bool { return b.rtStarted }

// recordBalances snapshots the account in the store.
func (b *Bot) recordBalances(ctx context.Context) {
	acct, err := b.guard.Account(ctx)
	if err != nil {
		b.log.Warn("loading balances failed", slog.Any("err", err))
		return
	}
	if _, err := b.opts.Store.RecordBalances(ctx, b.account(), b.clock.Now(), acct.Balances); err != nil {
		b.log.Warn("recording balances failed", slog.Any("err", err))
	}
}

// account names the account in balance snapshots: the mode.
func (b *Bot) account() string { return b.cfg.Mode }

// refresh publishes the loop's view as the status snapshot. It runs on the
// loop's goroutine, the only one touching the runtime.
func (b *Bot) refresh() {
	s := &b.stat
	s.Updated = b.clock.Now()
	if b.rt != nil && b.rtStarted {
		s.Strategies = s.Strategies[:0]
		for _, in := range b.rt.Instances() {
			s.Strategies = append(s.Strategies, StrategyStatus{ID: in.ID, Name: in.Name, Stopped: in.Stopped})
		}
		s.Positions = s.Positions[:0]
		pos := b.rt.Positions()
		for _, sc := range b.cfg.Strategies {
			for _, p := range pos[sc.ID] {
				if !p.Qty.IsZero() || !p.Realized.IsZero() {
					s.Positions = append(s.Positions, PositionStatus{Instance: sc.ID, Position: p})
				}
			}
		}
		s.OpenOrders = s.OpenOrders[:0]
		for _, o := range b.rt.OpenOrders() {
			s.OpenOrders = append(s.OpenOrders, OrderStatus{Instance: o.Instance, Order: o.Order})
		}
		s.Balances = b.rt.Balances()
		s.LastKlines = s.LastKlines[:0]
		for _, f := range b.feeds {
			if k, ok := b.rt.LastKline(f); ok {
				s.LastKlines = append(s.LastKlines, FeedKline{Symbol: f.Symbol, Interval: f.Interval, Kline: k})
			}
		}
		st := b.rt.Stats()
		s.Counters.Bars, s.Counters.OrdersPlaced, s.Counters.Fills, s.Counters.OrdersUnknown = st.Bars, st.Placed, st.Fills, st.Unknown
		s.Counters.OrdersRefused = st.Refused
		s.Counters.JobRuns = map[string]int{"ok": st.Runs - st.RunFails, "error": st.RunFails}
		s.Locks = s.Locks[:0]
		for _, l := range b.rt.Locks(b.runtimeNow()) {
			s.Locks = append(s.Locks, LockStatus{Instance: l.Instance, Symbol: l.Symbol, Reason: l.Reason, From: l.From, Until: l.Until})
		}
	} else if s.Strategies == nil {
		for _, sc := range b.cfg.Strategies {
			s.Strategies = append(s.Strategies, StrategyStatus{ID: sc.ID, Name: sc.Name})
		}
	}
	s.Counters.APIErrors = b.guard.apiErrors()
	b.guard.status(s)
	s.KillSwitch = b.gate.Killed()
	b.noticeChanges(s)
	b.mu.Lock()
	b.status = s.clone()
	b.mu.Unlock()
}

// fail records a step's error for the status and logs it.
func (b *Bot) fail(what string, err error) {
	b.stat.LastError = what + ": " + err.Error()
	b.log.Warn(what+" failed", slog.Any("err", err))
}

// newSim builds the simulated exchange of the paper modes, funded from
// account.balances, with the configuration's fill model.
func (b *Bot) newSim(start time.Time, rules []exchange.SymbolInfo) (*sim.Exchange, error) {
	// A paper bot runs for months: the exchange forgets what no endpoint
	// serves any more.
	x, err := session.NewSim(context.Background(), session.Venue{Fill: b.fill, Start: start, Rules: rules,
		Balances: b.cfg.Account.Balances, Retention: session.KeepMonth})
	if err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	return x, nil
}

// orderOf is a store order as the runtime sees it.
func orderOf(o store.Order) strategy.Order {
	return strategy.Order{ClientOrderID: o.ClientOrderID, OrderID: o.OrderID, Symbol: o.Symbol, Side: o.Side, Type: o.Type,
		Price: o.Price, Quantity: o.Quantity, QuoteOrderQty: o.QuoteQuantity, Status: o.Status, ExecutedQty: o.ExecutedQty,
		CumQuoteQty: o.CumQuoteQty, CancelReason: o.CancelReason}
}

// exchangeOrderOf is an exchange report as the runtime sees it.
func exchangeOrderOf(o exchange.Order) strategy.Order {
	return strategy.Order{ClientOrderID: o.ClientOrderID, OrderID: o.OrderID, Symbol: o.Symbol, Side: o.Side, Type: o.Type,
		Price: o.Price, Quantity: o.OrigQty, QuoteOrderQty: o.OrigQuoteOrderQty, Status: o.Status, ExecutedQty: o.ExecutedQty,
		CumQuoteQty: o.CummulativeQuoteQty, CancelReason: o.CancelReason}
}

// runtimeNow is the runtime's time: the replay's in paper-replay, else
// the bot's clock.
func (b *Bot) runtimeNow() time.Time {
	if b.rclock != nil {
		return b.rclock.Now()
	}
	return b.clock.Now()
}
