package obs

import (
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/daemon"
)

const ns = "spotbot"

// collector turns one fresh Status into metrics on each scrape. The bot's
// own counters are the single source: nothing here counts, so /metrics and
// /status can never disagree. Values are float64 because the exposition
// format is; the exact decimals stay in /status.
type collector struct {
	status func() daemon.Status
	quote  string
	build  BuildInfo

	buildInfo, spotQty, budgetRatio *prometheus.Desc

	up, placed, refused, unknown, fills, apiErrors, jobRuns *prometheus.Desc
	bars, polls, retries, gaps, reconciled                  *prometheus.Desc
	budgetUsed, budgetMax, budgetWindow                     *prometheus.Desc
	equity, balance, realized, unrealized, positionQty      *prometheus.Desc
	strategyPnL, strategyRunning, openOrders                *prometheus.Desc
	lastKline, clockOffset, clockSynced, blocked, killed    *prometheus.Desc
	locked                                                  *prometheus.Desc
	blockedBy, bannedUntil, started                         *prometheus.Desc
}

func newCollector(status func() daemon.Status, quote string, build BuildInfo) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(ns+"_"+name, help, labels, nil)
	}
	return &collector{
		status: status, quote: quote, build: build,
		buildInfo:       d("build_info", "1, labelled with the binary's version, VCS revision and Go version.", "version", "revision", "goversion"),
		spotQty:         d("spot_position_quantity", "The account's holding of an asset other than the quote asset (free and locked), from its balances; never negative.", "asset"),
		budgetRatio:     d("rate_budget_use_ratio", "Share of a rate-budget pool's limit used in the current window (used / max).", "pool"),
		up:              d("phase", "1 for the bot's current phase (starting, running, stopping, stopped).", "phase"),
		placed:          d("orders_placed_total", "Orders the exchange accepted."),
		refused:         d("orders_refused_total", "Orders refused, by rule: a risk or exchange rule, exchange:<code>, clock-offset, shutdown.", "reason"),
		unknown:         d("orders_unknown_total", "Orders whose send had an unknown outcome (resolved by client order id)."),
		fills:           d("fills_total", "Fills delivered to strategies."),
		apiErrors:       d("api_errors_total", "Failed exchange calls, by error code (API code, http-<status>, rate-limit, unknown-outcome, transport).", "code"),
		jobRuns:         d("job_runs_total", "Scheduled job runs, by outcome (ok, error).", "outcome"),
		bars:            d("bars_total", "Closed bars delivered to strategies (warm-up included)."),
		polls:           d("polls_total", "Market-data polls that brought new bars (warm-up included)."),
		retries:         d("poll_retries_total", "Market-data polls that found the due bar not served yet."),
		gaps:            d("gaps_total", "Missing bars detected in polled market data."),
		reconciled:      d("reconciled_total", "What the start-up reconciliation did, by action.", "action"),
		budgetUsed:      d("rate_budget_used", "Weight or count used in the current window of a rate-budget pool.", "pool"),
		budgetMax:       d("rate_budget_max", "Limit of a rate-budget pool per window.", "pool"),
		budgetWindow:    d("rate_budget_window_seconds", "Window length of a rate-budget pool.", "pool"),
		equity:          d("equity", "Account equity in the quote asset: balances (free and locked) at the last close of <asset><quote>; assets without a price are left out.", "quote"),
		balance:         d("balance", "Account balance of an asset (free and locked).", "asset"),
		realized:        d("realized_pnl", "Realised profit of an instance's position, in the symbol's quote asset.", "instance", "symbol"),
		unrealized:      d("unrealized_pnl", "Unrealised profit of an instance's position at the last close, in the symbol's quote asset.", "instance", "symbol"),
		positionQty:     d("position_quantity", "Base quantity an instance holds in a symbol.", "instance", "symbol"),
		strategyPnL:     d("strategy_pnl", "An instance's realised plus unrealised profit over its symbols quoted in the quote asset.", "instance", "quote"),
		strategyRunning: d("strategy_running", "1 while a strategy instance runs, 0 once it stopped.", "instance", "strategy"),
		openOrders:      d("open_orders", "Orders the runtime follows that are not final, by instance.", "instance"),
		lastKline:       d("last_kline_close_time_seconds", "Close time of the last closed kline delivered on a feed (Unix seconds).", "symbol", "interval"),
		clockOffset:     d("clock_offset_seconds", "Exchange clock minus local clock, as last synced."),
		clockSynced:     d("clock_synced_time_seconds", "When the clock was last synced (Unix seconds; 0 when never)."),
		blocked:         d("trading_blocked", "1 while new orders are refused (clock offset, IP ban, store lost, shutdown), else 0."),
		blockedBy:       d("trading_blocked_by", "1 for the rule that blocks new orders (clock-offset, ip-banned, store, shutdown); absent while trading is allowed.", "rule"),
		bannedUntil:     d("ip_banned_until_seconds", "When the exchange's ban of the bot's address (HTTP 418) ends (Unix seconds); 0 when not banned."),
		killed:          d("kill_switch_tripped", "1 once the risk gate's kill switch tripped, else 0."),
		locked:          d("protection_lock_until_seconds", "When a protection's lock of an instance's symbol ends (Unix seconds); absent when not locked.", "instance", "symbol", "reason"),
		started:         d("start_time_seconds", "When the bot started (Unix seconds, bot clock)."),
	}
}

// Describe implements prometheus.Collector.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.buildInfo, c.spotQty, c.budgetRatio, c.up, c.placed, c.refused, c.unknown, c.fills, c.apiErrors, c.jobRuns,
		c.bars, c.polls, c.retries, c.gaps, c.reconciled, c.budgetUsed, c.budgetMax, c.budgetWindow, c.equity, c.balance,
		c.realized, c.unrealized, c.positionQty, c.strategyPnL, c.strategyRunning, c.openOrders, c.lastKline,
		c.clockOffset, c.clockSynced, c.blocked, c.blockedBy, c.bannedUntil, c.killed, c.locked, c.started} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.status()
	counter := func(d *prometheus.Desc, v int, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(c.buildInfo, 1, c.build.Version, c.build.Revision, c.build.GoVersion)
	for _, p := range []string{daemon.PhaseStarting, daemon.PhaseRunning, daemon.PhaseStopping, daemon.PhaseStopped} {
		gauge(c.up, boolf(s.Phase == p), p)
	}
	if !s.Started.IsZero() {
		gauge(c.started, unixSeconds(s.Started.UnixMilli()))
	}
	k := s.Counters
	counter(c.placed, k.OrdersPlaced)
	counter(c.unknown, k.OrdersUnknown)
	counter(c.fills, k.Fills)
	counter(c.bars, k.Bars)
	counter(c.polls, k.Polls)
	counter(c.retries, k.Retries)
	counter(c.gaps, k.Gaps)
	// Every known reason and kind is present from the start, at zero, so
	// that rate() and alerts over one work before it first happens.
	for _, kv := range sorted(withZeros(k.OrdersRefused, daemon.RefusalReasons())) {
		counter(c.refused, kv.v, kv.k)
	}
	for _, kv := range sorted(withZeros(k.APIErrors, daemon.APIErrorKinds())) {
		counter(c.apiErrors, kv.v, kv.k)
	}
	// Both outcomes always appear, so a rate() over errors works before
	// the first failure.
	runs := map[string]int{"ok": 0, "error": 0}
	for o, n := range k.JobRuns {
		runs[o] = n
	}
	for _, kv := range sorted(runs) {
		counter(c.jobRuns, kv.v, kv.k)
	}
	r := k.Reconciled
	for _, a := range []struct {
		name string
		n    int
	}{{"checked", r.Checked}, {"updated", r.Updated}, {"fills", r.Fills}, {"adopted", r.Adopted}, {"cancelled", r.Cancelled}, {"closed", r.Closed}} {
		counter(c.reconciled, a.n, a.name)
	}
	for _, b := range s.Budget {
		gauge(c.budgetUsed, float64(b.Used), b.Pool)
		gauge(c.budgetMax, float64(b.Max), b.Pool)
		gauge(c.budgetWindow, b.Window.Seconds(), b.Pool)
		if b.Max > 0 {
			gauge(c.budgetRatio, float64(b.Used)/float64(b.Max), b.Pool)
		}
	}
	c.collectMoney(ch, s, gauge)
	for _, st := range s.Strategies {
		gauge(c.strategyRunning, boolf(st.Stopped == ""), st.ID, st.Name)
	}
	open := map[string]int{}
	for _, st := range s.Strategies {
		open[st.ID] = 0
	}
	for _, o := range s.OpenOrders {
		open[o.Instance]++
	}
	for _, kv := range sorted(open) {
		gauge(c.openOrders, float64(kv.v), kv.k)
	}
	for _, f := range s.LastKlines {
		gauge(c.lastKline, unixSeconds(f.CloseTime.UnixMilli()), f.Symbol, string(f.Interval))
	}
	gauge(c.clockOffset, s.ClockOffset.Seconds())
	synced := 0.0
	if !s.ClockSynced.IsZero() {
		synced = unixSeconds(s.ClockSynced.UnixMilli())
	}
	gauge(c.clockSynced, synced)
	gauge(c.blocked, boolf(s.Blocked != ""))
	if s.BlockedRule != "" {
		gauge(c.blockedBy, 1, s.BlockedRule)
	}
	banned := 0.0
	if !s.BannedUntil.IsZero() {
		banned = unixSeconds(s.BannedUntil.UnixMilli())
	}
	gauge(c.bannedUntil, banned)
	gauge(c.killed, boolf(s.KillSwitch != ""))
	for _, l := range s.Locks {
		gauge(c.locked, unixSeconds(l.Until.UnixMilli()), l.Instance, l.Symbol, l.Reason)
	}
}

// collectMoney emits balances, equity and positions, valued at the last
// close of each symbol's feed.
func (c *collector) collectMoney(ch chan<- prometheus.Metric, s daemon.Status, gauge func(*prometheus.Desc, float64, ...string)) {
	last := lastCloses(s.LastKlines)
	equity := decimal.Zero
	for _, b := range s.Balances {
		amt := b.Free.Add(b.Locked)
		gauge(c.balance, amt.InexactFloat64(), b.Asset)
		if b.Asset != c.quote {
			// A spot account cannot be short: what it holds is the
			// position, whatever the instances' own books say.
			gauge(c.spotQty, decimal.Max(amt, decimal.Zero).InexactFloat64(), b.Asset)
		}
		switch p, ok := last[b.Asset+c.quote]; {
		case b.Asset == c.quote:
			equity = equity.Add(amt)
		case ok:
			equity = equity.Add(amt.Mul(p))
		}
	}
	if len(s.Balances) > 0 {
		gauge(c.equity, equity.InexactFloat64(), c.quote)
	}
	pnl := map[string]decimal.Decimal{}
	for _, st := range s.Strategies {
		pnl[st.ID] = decimal.Zero
	}
	for _, p := range s.Positions {
		gauge(c.realized, p.Realized.InexactFloat64(), p.Instance, p.Symbol)
		gauge(c.positionQty, p.Qty.InexactFloat64(), p.Instance, p.Symbol)
		total := p.Realized
		if price, ok := last[p.Symbol]; ok {
			u := price.Sub(p.AvgPrice).Mul(p.Qty)
			gauge(c.unrealized, u.InexactFloat64(), p.Instance, p.Symbol)
			total = total.Add(u)
		}
		if strings.HasSuffix(p.Symbol, c.quote) {
			pnl[p.Instance] = pnl[p.Instance].Add(total)
		}
	}
	ids := make([]string, 0, len(pnl))
	for id := range pnl {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		gauge(c.strategyPnL, pnl[id].InexactFloat64(), id, c.quote)
	}
}

// lastCloses returns each symbol's latest close over its feeds.
func lastCloses(feeds []daemon.FeedKline) map[string]decimal.Decimal {
	out := map[string]decimal.Decimal{}
	at := map[string]int64{}
	for _, f := range feeds {
		ms := f.CloseTime.UnixMilli()
		if t, ok := at[f.Symbol]; !ok || ms > t {
			out[f.Symbol], at[f.Symbol] = f.Close, ms
		}
	}
	return out
}

// withZeros returns counts with every known label present, at zero when
// it has not happened.
func withZeros(counts map[string]int, known []string) map[string]int {
	out := make(map[string]int, len(counts)+len(known))
	for _, k := range known {
		out[k] = 0
	}
	for k, v := range counts {
		out[k] = v
	}
	return out
}

type kv struct {
	k string
	v int
}

func sorted(m map[string]int) []kv {
	out := make([]kv, 0, len(m))
	for k, v := range m {
		out = append(out, kv{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].k < out[j].k })
	return out
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// unixSeconds converts milliseconds exactly enough for a timestamp gauge.
func unixSeconds(ms int64) float64 { return float64(ms) / 1000 }
