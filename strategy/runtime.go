package strategy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/risk"
)

// Clock is the runtime's source of time.
type Clock interface {
	Now() time.Time
}

// MissedRuns says what happens to schedule occurrences that fell due while
// the runtime was not running (or more than Options.ScheduleGrace ago).
type MissedRuns uint8

const (
	// SkipMissed drops missed occurrences.
	SkipMissed MissedRuns = iota
	// RunMissedOnce runs one catch-up run for all missed occurrences.
	RunMissedOnce
)

// Options configure a Runtime. Trader, Gate, Journal and Clock are required.
type Options struct {
	Trader  exchange.Trader
	Gate    *risk.Gate
	Journal Journal
	Clock   Clock
	Logger  *slog.Logger
	// HistorySize is how many closed bars of each feed are kept for
	// Context.Klines (default 500).
	HistorySize int
	// BaseInterval, when set, is the interval bars are fed at; instances
	// asking for a higher interval get bars aggregated from it.
	BaseInterval exchange.Interval
	// MergeGaps, with BaseInterval, builds a higher bar across missing
	// base bars until a base bar completes a period, instead of closing
	// it at the period's end (data.resample_gaps: merge).
	MergeGaps bool
	// MissedRuns and ScheduleGrace govern late schedule occurrences: an
	// occurrence older than the grace (default 1 minute) when the runtime
	// sees it is missed.
	MissedRuns    MissedRuns
	ScheduleGrace time.Duration
	// STPGroup says the account has a self-trade prevention group, so
	// orders may carry an stpMode.
	STPGroup bool
	// Valuation is the asset equity is measured in for the kill switch
	// (e.g. "USDT"); empty disables equity tracking.
	Valuation string
	// Events, when set, reports the port's order updates and fills (the
	// simulator's Port has it); Sync then drains it instead of querying
	// each open order. It is passed explicitly, not found on Trader,
	// because ports get wrapped (a guard, a counting port) and a type
	// assertion does not see through a wrapper. When it also has
	// MayHaveEvents, a Sync with nothing queued skips the drain.
	Events exchange.EventSource
	// Balances, when set, is the cheap read of the account's balances the
	// runtime refreshes after fills (the simulator's AppendBalances)
	// instead of Trader.Account; passed explicitly as Events is. When it
	// is also a CompactBalanceReader (the simulator's Port), the runtime
	// reads the balances compact and builds the decimals of those read.
	Balances BalanceReader
	// Locks, when set, records the protections' locks (the store).
	Locks LockRecorder
}

// BalanceReader appends an account's balances (every asset with a free or
// locked amount, as Account lists them) to dst and returns the slice.
type BalanceReader interface {
	AppendBalances(dst []exchange.Balance) ([]exchange.Balance, error)
}

// Runtime drives strategy instances: it delivers closed bars and schedule
// ticks, sends their orders through the risk gate to the trading port,
// records everything in the journal and follows each order to a final
// status. A Runtime is driven by one goroutine (the backtester's loop or
// the daemon's event loop); it is not safe for concurrent use.
//
// Events at one instant are handled in this order, which drivers follow by
// calling Sync, then OnBar for each bar, then Tick: order updates and fills
// first (so a strategy sees its fills before the bar that follows them),
// then bars sorted by symbol and interval, each delivered to instances in
// the order they were added, then schedule runs in instance order and, for
// one instance, in the order its Schedules() lists them.
type Runtime struct {
	opts  Options
	log   *slog.Logger
	ctx   context.Context // the context of the current driver call
	insts []*instance
	feeds map[Feed]*feedState
	cur   *feedState // the feed of the previous OnBar: usually the next one's too
	// aggFeeds are the base feeds with higher feeds aggregated from them,
	// sorted by symbol and interval; listed at the first Advance.
	aggFeeds  []*feedState
	aggListed bool
	rules     map[string]*exchange.SymbolInfo
	// ruleSym's rules are ruleInfo (nil when none is remembered): the
	// symbol asked last, found again without the map (rule).
	ruleSym  string
	ruleInfo *exchange.SymbolInfo
	last     map[string]*lastPx // present once a price was seen
	bal      map[string]exchange.Balance
	balBuf   []exchange.Balance // Options.Balances' reused reply
	// compact is set when Options.Balances is a CompactBalanceReader:
	// bal is then filled from it only for what lists every balance.
	compact *compactBalances
	stale   bool // balances need a refresh
	// valued are the holdings equity is valued with, listed from bal
	// when valuedOK; terms is scratch for the sum.
	valued []valuedAsset
	// quiet is where an equity changes nothing in the gate, taken after
	// each observation the runtime gives it (and by quietPrices when the
	// gate has changed since).
	quiet risk.Quiet
	// valuedSymbols are the valued assets' symbols in the valuation
	// asset, by asset.
	valuedSymbols map[string]string
	valuedOK      bool
	terms         []equityTerm
	// orders are the open orders by client order id, once more than
	// openIndexAt were open at a time (nil before: find scans open); find
	// reaches the finished too.
	orders map[string]*tracked
	// trackedBlock is where new tracked orders are allocated from.
	trackedBlock []tracked
	// forgotten are tracked orders dropped from finished, for newTracked
	// to reuse.
	forgotten []*tracked
	posMath   posMath              // reused by every fill's position update
	open      []*tracked           // not final, in placement order
	finished  []*tracked           // final orders, oldest first (see keptFinished)
	es        exchange.EventSource // Options.Events
	hint      eventHint            // the EventSource's, when it has one
	events    []exchange.OrderEvent
	seq       int64
	ids       strings.Builder // the text of the latest client order ids (nextClientID)
	stats     Stats
	killed    bool
	runLasts  []*lastPx    // observeRun's feeds' last prices, reused
	skippers  bool         // some instance is a Skipper
	scheduled bool         // some instance has schedules
	skipFeeds []*feedState // SkipAll's, reused
}

// feedState is everything a bar of one feed touches, found with one map
// look-up per bar instead of one per table.
type feedState struct {
	feed Feed
	hist *history
	subs []*instance
	aggs []*derived // feeds aggregated from this one (a base feed)
	// exitSubs are the instances whose exits this feed's bars check.
	exitSubs []*instance
	last     *lastPx // the symbol's entry in Runtime.last; nil before its first bar
	// bar is the Bar handed to the subscribers, its symbol and interval
	// set once: each bar copies only its kline in.
	bar Bar
}

// derived is a feed built by aggregating a base feed.
type derived struct {
	st  *feedState
	agg aggregator
	out [2]exchange.FixedKline
}

// Stats counts what the runtime did.
type Stats struct {
	Bars     int
	Placed   int
	Refused  map[string]int // by risk rule, or "exchange:<code>"
	Fills    int
	Unknown  int // orders whose send had an unknown outcome
	Stopped  int // instances stopped by an error or panic
	Runs     int
	RunFails int
	Locks    int // protection locks set
}

// New returns a runtime.
func New(opts Options) (*Runtime, error) {
	switch {
	case opts.Trader == nil:
		return nil, errors.New("strategy: runtime needs a Trader")
	case opts.Gate == nil:
		return nil, errors.New("strategy: runtime needs a risk Gate")
	case opts.Journal == nil:
		return nil, errors.New("strategy: runtime needs a Journal")
	case opts.Clock == nil:
		return nil, errors.New("strategy: runtime needs a Clock")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.HistorySize <= 0 {
		opts.HistorySize = 500
	}
	if opts.ScheduleGrace <= 0 {
		opts.ScheduleGrace = time.Minute
	}
	if opts.BaseInterval != "" && !opts.BaseInterval.Valid() {
		return nil, fmt.Errorf("strategy: base interval %q is not a wire interval", opts.BaseInterval)
	}
	r := &Runtime{
		opts: opts, log: opts.Logger, ctx: context.Background(),
		feeds: map[Feed]*feedState{},
		rules: map[string]*exchange.SymbolInfo{}, last: map[string]*lastPx{},
		bal: map[string]exchange.Balance{}, stale: true,
		stats: Stats{Refused: map[string]int{}},
	}
	if cr, ok := opts.Balances.(CompactBalanceReader); ok {
		r.compact = &compactBalances{reader: cr}
	}
	if opts.Events != nil {
		r.es = opts.Events
		r.hint, _ = opts.Events.(eventHint)
	}
	return r, nil
}

// Add registers an instance built from cfg. Instances must be added before
// Start.
func (r *Runtime) Add(cfg Config, s Strategy) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("strategy %s: %w", cfg.ID, err)
	}
	for _, in := range r.insts {
		if in.id == cfg.ID {
			return fmt.Errorf("strategy: duplicate instance id %q", cfg.ID)
		}
	}
	feeds, err := cfg.Feeds()
	if err != nil && len(cfg.Symbols) > 0 {
		return fmt.Errorf("strategy %s: %w", cfg.ID, err)
	}
	in := &instance{rt: r, id: cfg.ID, cfg: cfg, s: s, feeds: feeds, positions: map[string]*heldPos{},
		log: r.log.With(slog.String("instance", cfg.ID))}
	in.fills, _ = s.(FillHandler)
	in.updates, _ = s.(OrderHandler)
	in.skipper, _ = s.(Skipper)
	r.insts = append(r.insts, in)
	for _, f := range feeds {
		r.subscribe(f, in)
	}
	if err := r.setupExits(in); err != nil {
		return fmt.Errorf("strategy %s: %w", cfg.ID, err)
	}
	if err := r.setupProtections(in); err != nil {
		return fmt.Errorf("strategy %s: %w", cfg.ID, err)
	}
	if sch, ok := s.(Scheduler); ok {
		for _, sc := range sch.Schedules() {
			cs, err := parseSchedule(sc.Spec)
			if err != nil {
				return fmt.Errorf("strategy %s: schedule %q: %w", cfg.ID, sc.Name, err)
			}
			in.schedules = append(in.schedules, &schedule{Schedule: sc, cron: cs})
		}
	}
	r.skippers = r.skippers || in.skipper != nil
	r.scheduled = r.scheduled || len(in.schedules) > 0
	return nil
}

func (r *Runtime) subscribe(f Feed, in *instance) {
	st := r.aggregated(f)
	st.subs = append(st.subs, in)
}

// aggregated returns the state of feed f, creating it, and makes sure it
// is built from the base interval when one is set and f is another.
func (r *Runtime) aggregated(f Feed) *feedState {
	st := r.feedState(f)
	base := r.opts.BaseInterval
	if base == "" || f.Interval == base {
		return st
	}
	bs := r.feedState(Feed{Symbol: f.Symbol, Interval: base})
	for _, d := range bs.aggs {
		if d.st == st {
			return st
		}
	}
	bs.aggs = append(bs.aggs, &derived{st: st, agg: aggregator{iv: f.Interval, merge: r.opts.MergeGaps}})
	return st
}

// feedState returns the state of a feed, creating it.
func (r *Runtime) feedState(f Feed) *feedState {
	st := r.feeds[f]
	if st == nil {
		st = &feedState{feed: f, hist: newHistory(r.opts.HistorySize)}
		r.feeds[f] = st
	}
	return st
}

// rule returns a symbol's rules: a strategy, the gate and the fills ask
// for the same symbol's again and again.
func (r *Runtime) rule(symbol string) (*exchange.SymbolInfo, bool) {
	if r.ruleInfo != nil && r.ruleSym == symbol {
		return r.ruleInfo, true
	}
	info, ok := r.rules[symbol]
	if ok {
		r.ruleSym, r.ruleInfo = symbol, info
	}
	return info, ok
}

// lastEntry returns a symbol's last price entry, creating it.
func (r *Runtime) lastEntry(symbol string) *lastPx {
	lp := r.last[symbol]
	if lp == nil {
		lp = new(lastPx)
		r.last[symbol] = lp
	}
	return lp
}

// setLast records the last price of a symbol.
func (r *Runtime) setLast(symbol string, p decimal.Decimal) *lastPx {
	lp := r.lastEntry(symbol)
	lp.setDecimal(p)
	return lp
}

// lastPrice returns the last price of a symbol and whether one was seen.
func (r *Runtime) lastPrice(symbol string) (decimal.Decimal, bool) {
	if lp := r.last[symbol]; lp != nil {
		return lp.decimal(), true
	}
	return decimal.Decimal{}, false
}

// lastPx is a symbol's last price: a bar's close stays compact until its
// decimal is asked for (an order, an exit, the kill switch's equity past
// int64), which a backtest's bars mostly never are; a polled price is
// kept as the decimal it came as.
type lastPx struct {
	fix    exchange.Fixed
	dec    decimal.Decimal
	fixed  bool // fix holds the price
	hasDec bool // dec holds the price
}

func (p *lastPx) setFixed(f exchange.Fixed) { p.fix, p.fixed, p.hasDec = f, true, false }

func (p *lastPx) setDecimal(d decimal.Decimal) { p.dec, p.hasDec, p.fixed = d, true, false }

// decimal is the price as a decimal, built once per price.
func (p *lastPx) decimal() decimal.Decimal {
	if !p.hasDec {
		p.dec, p.hasDec = p.fix.Decimal(), true
	}
	return p.dec
}

// Feeds returns the feeds the driver must deliver (base feeds when a base
// interval is set), sorted by symbol and interval.
func (r *Runtime) Feeds() []Feed {
	var out []Feed
	for f := range r.feeds {
		if r.opts.BaseInterval != "" && f.Interval != r.opts.BaseInterval {
			continue
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Symbol != out[j].Symbol {
			return out[i].Symbol < out[j].Symbol
		}
		return out[i].Interval < out[j].Interval
	})
	return out
}

// WarmUp returns the number of bars of history the instances need, each
// counted in bars of the instance's own interval: the largest WarmUp()
// among them. A driver fetching history per feed asks for this many bars
// of each feed.
func (r *Runtime) WarmUp() int {
	n := 0
	for _, in := range r.insts {
		if w, ok := in.s.(WarmUpper); ok && w.WarmUp() > n {
			n = w.WarmUp()
		}
	}
	return n
}

// WarmUpBars returns how many bars of the base interval cover every
// instance's warm-up: an instance on 4h wanting 30 bars needs 120 bars of
// a 1h base. Without a base interval it is WarmUp.
func (r *Runtime) WarmUpBars() int {
	base := r.opts.BaseInterval
	if base == "" {
		return r.WarmUp()
	}
	n := 0
	for _, in := range r.insts {
		w, ok := in.s.(WarmUpper)
		if !ok || w.WarmUp() <= 0 {
			continue
		}
		for _, f := range in.feeds {
			if need := w.WarmUp() * baseBarsPer(f.Interval, base); need > n {
				n = need
			}
		}
	}
	return n
}

// baseBarsPer is how many bars of base make one bar of iv (at least 1).
func baseBarsPer(iv, base exchange.Interval) int {
	if bd := base.Duration(); bd > 0 && iv.Duration() > bd {
		return int((iv.Duration() + bd - 1) / bd)
	}
	return 1
}

// Start loads symbol rules and balances, restores persisted strategy state
// and arms the schedules at the clock's time. Warm-up bars may be delivered
// with DeliverWarmUp after Start and before the first OnBar.
func (r *Runtime) Start(ctx context.Context) error {
	r.ctx = ctx
	info, err := r.opts.Trader.ExchangeInfo(ctx)
	if err != nil {
		return fmt.Errorf("strategy: loading symbol rules: %w", err)
	}
	r.ruleInfo = nil
	for i := range info.Symbols {
		s := info.Symbols[i]
		r.rules[s.Symbol] = &s
	}
	for _, in := range r.insts {
		for _, f := range in.feeds {
			if _, ok := r.rules[f.Symbol]; !ok {
				return fmt.Errorf("strategy %s: symbol %s is not listed by the exchange", in.id, f.Symbol)
			}
		}
	}
	if err := r.refreshBalances(); err != nil {
		return err
	}
	now := r.opts.Clock.Now()
	for _, in := range r.insts {
		if st, ok := in.s.(Stateful); ok {
			data, found, err := r.opts.Journal.LoadState(ctx, in.id)
			if err != nil {
				return fmt.Errorf("strategy %s: loading state: %w", in.id, err)
			}
			if found {
				if err := st.UnmarshalState(data); err != nil {
					return fmt.Errorf("strategy %s: restoring state: %w", in.id, err)
				}
			}
		}
		for _, sc := range in.schedules {
			sc.next = sc.cron.Next(now.Add(-time.Nanosecond))
		}
	}
	return nil
}

// Begin calls Start on every instance that implements Starter; call it
// after warm-up, before the first live bar. A symbol with no bar seen yet
// (no warm-up) takes its last price from the exchange's latest kline, so a
// Starter laying out orders knows where the market is.
func (r *Runtime) Begin(ctx context.Context) {
	r.ctx = ctx
	for _, f := range r.Feeds() {
		if _, ok := r.last[f.Symbol]; ok {
			continue
		}
		ks, err := r.opts.Trader.Klines(ctx, exchange.KlinesRequest{Symbol: f.Symbol, Interval: f.Interval, Limit: 1})
		if err != nil {
			r.log.Warn("no last price before start", slog.String("symbol", f.Symbol), slog.Any("err", err))
			continue
		}
		if len(ks) > 0 {
			r.setLast(f.Symbol, ks[len(ks)-1].Close)
		}
	}
	for _, in := range r.insts {
		if st, ok := in.s.(Starter); ok {
			in.call(func() error { return st.Start(in) })
		}
	}
}

// DeliverWarmUp delivers history bars of a feed with WarmingUp true; orders
// are refused during warm-up. A bar whose prices do not fit a Fixed
// (exchange.FixedKlineOf) ends the delivery with the error; the bars
// before it were delivered.
func (r *Runtime) DeliverWarmUp(ctx context.Context, f Feed, bars []exchange.Kline) error {
	r.ctx = ctx
	r.setWarming(true)
	defer r.setWarming(false)
	for i := range bars {
		if err := r.OnBar(ctx, f, bars[i]); err != nil {
			return err
		}
	}
	return nil
}

// DeliverWarmUpRef is DeliverWarmUp for one compact bar the caller holds.
func (r *Runtime) DeliverWarmUpRef(ctx context.Context, f Feed, k *exchange.FixedKline, src BarSource) {
	r.setWarming(true)
	r.OnBarRef(ctx, f, k, src)
	r.setWarming(false)
}

// BarSource says where a compact bar was read from: bar Pos of Series (a
// replay's), or nowhere (Series nil). The feed's history then reads its
// bars from the series instead of copying each.
type BarSource struct {
	Series *marketdata.Series
	Pos    int
}

// OnBar delivers one closed bar of a feed to the instances subscribed to it,
// and the bars of higher intervals it completes. The kline is taken as
// exchange.FixedKlineOf gives it; a price that does not fit a Fixed is
// that function's error, and the bar is not delivered.
func (r *Runtime) OnBar(ctx context.Context, f Feed, k exchange.Kline) error {
	fk, err := exchange.FixedKlineOf(&k)
	if err != nil {
		return fmt.Errorf("strategy: %s %s: %w", f.Symbol, f.Interval, err)
	}
	r.OnBarRef(ctx, f, &fk, BarSource{})
	return nil
}

// OnBarRef is OnBar for a compact bar the caller holds: the runtime copies
// it into the feed's history and the strategies' Bar, not on the way
// there (a replay hands over its bars so, a million a run), and builds no
// decimal for it unless something asks for one.
func (r *Runtime) OnBarRef(ctx context.Context, f Feed, k *exchange.FixedKline, src BarSource) {
	r.ctx = ctx
	r.stats.Bars++
	st := r.cur
	if st == nil || st.feed != f {
		if st = r.feeds[f]; st == nil {
			r.lastEntry(f.Symbol).setFixed(k.Close) // a feed nobody subscribed to
			r.observe()
			return
		}
		r.cur = st
	}
	if st.last == nil {
		st.last = r.lastEntry(f.Symbol)
	}
	st.last.setFixed(k.Close)
	st.hist.pushFrom(src.Series, src.Pos, k)
	r.deliver(st, k)
	for _, d := range st.aggs {
		n := d.agg.add(k, f.Interval, &d.out)
		for i := 0; i < n; i++ {
			d.st.hist.push(&d.out[i])
			r.deliver(d.st, &d.out[i])
		}
	}
	r.observe()
}

// Advance delivers the bars of higher intervals that a gap in the base
// series left open and whose period ended at or before t: a driver calls
// it with the open time of the next base bars before anything of that
// instant reaches the exchange, so an order placed on such a bar meets
// the market as it was at the bar's last base bar (a market order set to
// fill at the close fills at that bar's close, not the next bar's). The
// bars arrive as warm-up when warm is set.
func (r *Runtime) Advance(ctx context.Context, t time.Time, warm bool) {
	if r.aggListed && len(r.aggFeeds) == 0 {
		return // no higher interval: the common case, every bar
	}
	r.advance(ctx, t, warm)
}

func (r *Runtime) advance(ctx context.Context, t time.Time, warm bool) {
	r.ctx = ctx
	if !r.aggListed {
		r.aggListed = true
		for _, f := range r.Feeds() {
			if st := r.feeds[f]; r.opts.BaseInterval != "" && len(st.aggs) > 0 {
				r.aggFeeds = append(r.aggFeeds, st)
			}
		}
	}
	var bars []pendingBar
	for _, st := range r.aggFeeds {
		for _, d := range st.aggs {
			if k, ok := d.agg.closeBefore(t); ok {
				bars = append(bars, pendingBar{d.st, k})
			}
		}
	}
	if len(bars) == 0 {
		return
	}
	if warm {
		r.setWarming(true)
		defer r.setWarming(false)
	}
	for i := range bars {
		bars[i].st.hist.push(&bars[i].k)
		r.deliver(bars[i].st, &bars[i].k)
	}
	r.observe()
}

type pendingBar struct {
	st *feedState
	k  exchange.FixedKline
}

func (r *Runtime) setWarming(on bool) {
	for _, in := range r.insts {
		in.warming = on
	}
}

// observe feeds the kill switch when equity is tracked.
func (r *Runtime) observe() {
	if r.opts.Valuation != "" && !r.killed {
		r.observeEquity()
	}
}

// deliver takes the kline by pointer: it is copied into the bar only, not
// on every call on the way. The caller has put it in the feed's history.
func (r *Runtime) deliver(st *feedState, k *exchange.FixedKline) {
	if len(st.exitSubs) > 0 {
		r.checkBar(st, k)
	}
	if len(st.subs) == 0 {
		return
	}
	bar := &st.bar
	if bar.Symbol != st.feed.Symbol || bar.Interval != st.feed.Interval {
		bar.Symbol, bar.Interval = st.feed.Symbol, st.feed.Interval
	}
	bar.FixedKline = *k
	for _, in := range st.subs {
		in.updateATR(bar)
		in.onKline(bar)
	}
}

// Tick runs the schedules due at or before now.
func (r *Runtime) Tick(ctx context.Context, now time.Time) {
	r.ctx = ctx
	for _, in := range r.insts {
		for _, sc := range in.schedules {
			r.runDue(in, sc, now)
		}
	}
}

// Instances reports each instance's id and, for a stopped one, why.
func (r *Runtime) Instances() []InstanceStatus {
	out := make([]InstanceStatus, 0, len(r.insts))
	for _, in := range r.insts {
		st := InstanceStatus{ID: in.id, Name: in.cfg.Name}
		if in.stopped != nil {
			st.Stopped = in.stopped.Error()
		}
		out = append(out, st)
	}
	return out
}

// InstanceStatus describes one instance.
type InstanceStatus struct {
	ID      string
	Name    string
	Stopped string // why the instance stopped; empty while running
}

// Stats returns a copy of the runtime's counters.
func (r *Runtime) Stats() Stats {
	s := r.stats
	s.Refused = make(map[string]int, len(r.stats.Refused))
	for k, v := range r.stats.Refused {
		s.Refused[k] = v
	}
	return s
}

// Position returns an instance's position in a symbol.
func (r *Runtime) Position(instance, symbol string) Position {
	for _, in := range r.insts {
		if in.id == instance {
			return in.Position(symbol)
		}
	}
	return Position{Symbol: symbol}
}

// nextClientID returns a client order id: the instance id, the clock in
// base-36 milliseconds and a per-runtime sequence. It is unique across
// restarts as long as the clock moves forward, and at most 32 characters.
//
// The ids are cut from one text, r.ids, written for many of them: a
// strings.Builder only appends, and a full one is replaced (Reset leaves
// the old text to the ids cut from it), so an id's bytes never change and
// one allocation serves about idTextLen/20 orders instead of one each.
func (r *Runtime) nextClientID(in *instance) string {
	r.seq++
	var num [2][13]byte // base 36 holds any int64 in 13 digits
	ms := strconv.AppendInt(num[0][:0], r.opts.Clock.Now().UnixMilli(), 36)
	seq := strconv.AppendInt(num[1][:0], r.seq, 36)
	n := len(in.id) + 1 + len(ms) + 1 + len(seq)
	if r.ids.Cap()-r.ids.Len() < n {
		r.ids.Reset()
		r.ids.Grow(max(idTextLen, n))
	}
	start := r.ids.Len()
	r.ids.WriteString(in.id)
	r.ids.WriteByte('-')
	r.ids.Write(ms)
	r.ids.WriteByte('-')
	r.ids.Write(seq)
	return r.ids.String()[start:]
}

// idTextLen is the size of the text client order ids are cut from.
const idTextLen = 1024

func (r *Runtime) refreshBalances() error {
	if r.compact != nil {
		if err := r.compact.refresh(); err != nil {
			return err
		}
		r.stale = false
		r.valuedOK = false
		return nil
	}
	bs := r.balBuf[:0]
	if br := r.opts.Balances; br != nil {
		var err error
		if bs, err = br.AppendBalances(bs); err != nil {
			return fmt.Errorf("strategy: loading balances: %w", err)
		}
		r.balBuf = bs
	} else {
		acct, err := r.opts.Trader.Account(r.ctx)
		if err != nil {
			return fmt.Errorf("strategy: loading balances: %w", err)
		}
		bs = acct.Balances
	}
	clear(r.bal)
	for _, b := range bs {
		r.bal[b.Asset] = b
	}
	r.stale = false
	r.valuedOK = false
	return nil
}

// refreshStale reloads the balances if they are stale, logging a
// failure, and reports whether they are fresh.
func (r *Runtime) refreshStale() bool {
	if !r.stale {
		return true
	}
	if err := r.refreshBalances(); err != nil {
		r.log.Warn("balance refresh failed", slog.Any("err", err))
		return false
	}
	return true
}

func (r *Runtime) balance(asset string) exchange.Balance {
	r.refreshStale()
	if r.compact != nil {
		if b := r.compact.balance(asset); b != nil {
			return *b
		}
	} else if b, ok := r.bal[asset]; ok {
		return b
	}
	return exchange.Balance{Asset: asset}
}

// balances returns every balance of the last read, by asset.
func (r *Runtime) balances() map[string]exchange.Balance {
	if r.compact != nil {
		r.compact.fillMap(r.bal)
	}
	return r.bal
}

// observeEquity values the account in the valuation asset at the last
// prices and feeds the kill switch; when it trips, every instance's open
// orders are cancelled.
func (r *Runtime) observeEquity() { r.observeEquityAt(r.opts.Clock.Now()) }

// observeEquityAt is observeEquity at time now.
func (r *Runtime) observeEquityAt(now time.Time) {
	// Refresh before the sum: a refresh inside it would clear the
	// holdings being summed.
	if !r.refreshStale() {
		return
	}
	var tripped bool
	if eq, ok := r.equityFixed(); ok {
		// Most bars' equity changes nothing in the gate (risk.Quiet):
		// those are left out without taking its lock.
		if r.opts.Gate.IsQuiet(&r.quiet, eq, now) {
			return
		}
		tripped = r.opts.Gate.ObserveFixed(eq, now)
		r.quiet = r.opts.Gate.Quiet()
	} else {
		tripped = r.opts.Gate.Observe(r.equityDecimal(), now)
	}
	if tripped {
		r.killed = true
		r.log.Error("kill switch tripped: cancelling open orders", slog.String("reason", r.opts.Gate.Killed()))
		for _, in := range r.insts {
			for _, f := range in.feeds {
				if err := in.CancelAll(f.Symbol); err != nil {
					r.log.Error("cancel on kill switch failed", slog.String("instance", in.id), slog.Any("err", err))
				}
			}
		}
	}
}
