package daemon

import (
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Status is a read-only snapshot of a running bot, for the observability
// listener (/status, /metrics, /readyz) and for tests. Bot.Status returns a
// copy that shares nothing with the bot, so a caller may keep or change it.
type Status struct {
	// Mode is the configured mode: live, paper or paper-replay.
	Mode string `json:"mode"`
	// Phase is where the bot is: starting, running, stopping or stopped.
	Phase string `json:"phase"`
	// Started is when Run began (the bot's clock).
	Started time.Time `json:"started"`
	// Updated is when the snapshot was last refreshed (the bot's clock).
	Updated time.Time `json:"updated"`
	// FirstPoll is when the first market-data poll finished; zero before.
	FirstPoll time.Time `json:"first_poll"`
	// Strategies are the strategy instances, in configuration order.
	Strategies []StrategyStatus `json:"strategies"`
	// Positions are the instances' positions with a non-zero quantity or
	// realised profit, by instance and symbol.
	Positions []PositionStatus `json:"positions"`
	// OpenOrders are the orders the runtime follows, in placement order.
	OpenOrders []OrderStatus `json:"open_orders"`
	// Balances are the account's balances as last loaded, by asset.
	Balances []exchange.Balance `json:"balances"`
	// LastKlines is the last closed kline delivered per feed.
	LastKlines []FeedKline `json:"last_klines"`
	// ClockOffset is the server clock minus the local clock, as last
	// synced (zero in paper-replay mode).
	ClockOffset time.Duration `json:"clock_offset"`
	// ClockSynced is when the clock was last synced; zero when never.
	ClockSynced time.Time `json:"clock_synced"`
	// Blocked says why trading is blocked (clock offset beyond
	// exchange.max_clock_offset, the exchange's ban, shutting down) as
	// "<rule>: <reason>"; empty while allowed. BlockedRule is the rule
	// alone (RuleClockOffset, RuleIPBanned, RuleShutdown, RuleStore).
	Blocked     string `json:"blocked,omitempty"`
	BlockedRule string `json:"blocked_rule,omitempty"`
	// BannedUntil is when the exchange's ban of the bot's address (HTTP
	// 418) ends; zero when it is not banned. Every request waits for it.
	BannedUntil time.Time `json:"banned_until,omitzero"`
	// KillSwitch is why the risk gate's kill switch tripped; empty if not.
	KillSwitch string `json:"kill_switch,omitempty"`
	// Locks are the protections' locks in force, by instance and symbol.
	Locks []LockStatus `json:"locks"`
	// Counters are what the bot did since it started.
	Counters Counters `json:"counters"`
	// Budget is the use of each rate-budget pool of the REST client, when
	// the mode uses one.
	Budget []BudgetUsage `json:"budget,omitempty"`
	// LastError is the last error of a poll, sync or reconciliation step;
	// empty when the last of each succeeded.
	LastError string `json:"last_error,omitempty"`
}

// LockStatus is a symbol a protection locked for an instance: its buys
// are refused until Until.
type LockStatus struct {
	Instance string    `json:"instance"`
	Symbol   string    `json:"symbol"`
	Reason   string    `json:"reason"`
	From     time.Time `json:"from"`
	Until    time.Time `json:"until"`
}

// StrategyStatus is one strategy instance.
type StrategyStatus struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Stopped is why the instance stopped; empty while it runs.
	Stopped string `json:"stopped,omitempty"`
}

// PositionStatus is an instance's position in a symbol.
type PositionStatus struct {
	Instance string `json:"instance"`
	strategy.Position
}

// OrderStatus is an order the runtime follows.
type OrderStatus struct {
	Instance string `json:"instance"`
	strategy.Order
}

// FeedKline is the last closed kline of a feed.
type FeedKline struct {
	Symbol   string            `json:"symbol"`
	Interval exchange.Interval `json:"interval"`
	exchange.Kline
}

// Counters count events since the bot started.
type Counters struct {
	// Bars is the number of closed bars delivered (warm-up included).
	Bars int `json:"bars"`
	// OrdersPlaced counts orders the exchange accepted.
	OrdersPlaced int `json:"orders_placed"`
	// OrdersRefused counts refused orders by rule: a risk rule
	// (risk.Rule..., exchange.Rule...), "exchange:<code>" for an exchange
	// refusal, "clock-offset" while trading is blocked.
	OrdersRefused map[string]int `json:"orders_refused"`
	// OrdersUnknown counts orders whose send had an unknown outcome.
	OrdersUnknown int `json:"orders_unknown"`
	// Fills counts fills delivered to strategies.
	Fills int `json:"fills"`
	// APIErrors counts failed exchange calls by error code: the API code
	// as text ("-2013"), "http-<status>" for an error without a code,
	// "rate-limit", "unknown-outcome", or "transport".
	APIErrors map[string]int `json:"api_errors"`
	// JobRuns counts schedule runs by outcome: "ok" or "error".
	JobRuns map[string]int `json:"job_runs"`
	// Polls counts market-data polls that brought new bars (the warm-up
	// included); Retries those that found the due bar not served yet;
	// Gaps the bars found missing between served ones.
	Polls   int `json:"polls"`
	Retries int `json:"retries"`
	Gaps    int `json:"gaps"`
	// Reconciled counts what the start-up reconciliation did: orders
	// checked, fills imported, exchange orders adopted or cancelled.
	Reconciled Reconciled `json:"reconciled"`
}

// Reconciled is what the reconciliation did: at start (Checked, Adopted,
// Cancelled, Closed) and, for orders followed for the store alone (adopted
// without an instance, or of an instance no longer configured), at start
// and at each order poll (Updated: state changes recorded; Fills: fills
// imported).
type Reconciled struct {
	Checked   int `json:"checked"`
	Updated   int `json:"updated"`
	Fills     int `json:"fills"`
	Adopted   int `json:"adopted"`
	Cancelled int `json:"cancelled"`
	Closed    int `json:"closed"` // simulated sessions: leftover orders closed
}

// BudgetUsage is one rate-budget pool.
type BudgetUsage struct {
	Pool   string        `json:"pool"`
	Used   int           `json:"used"`
	Max    int           `json:"max"`
	Window time.Duration `json:"window"`
}

// Status returns a snapshot of the bot. It is safe to call from any
// goroutine at any time, also before Run and after it returned; the
// snapshot is refreshed by the bot's loop after every event it handles.
func (b *Bot) Status() Status {
	b.mu.Lock()
	s := b.status.clone()
	b.mu.Unlock()
	// The loop may be waiting out a ban, without refreshing: the block is
	// read now.
	b.guard.status(&s)
	if b.budget != nil {
		for _, u := range b.budget.Usage() {
			s.Budget = append(s.Budget, BudgetUsage{Pool: u.Pool.String(), Used: u.Used, Max: u.Max, Window: u.Window})
		}
	}
	return s
}

// Phases of a bot.
const (
	PhaseStarting = "starting"
	PhaseRunning  = "running"
	PhaseStopping = "stopping"
	PhaseStopped  = "stopped"
)

// clone returns a deep copy of s.
func (s Status) clone() Status {
	out := s
	out.Strategies = append([]StrategyStatus(nil), s.Strategies...)
	out.Positions = append([]PositionStatus(nil), s.Positions...)
	out.OpenOrders = append([]OrderStatus(nil), s.OpenOrders...)
	out.Balances = append([]exchange.Balance(nil), s.Balances...)
	out.LastKlines = append([]FeedKline(nil), s.LastKlines...)
	out.Budget = append([]BudgetUsage(nil), s.Budget...)
	out.Locks = append([]LockStatus(nil), s.Locks...)
	out.Counters.OrdersRefused = cloneMap(s.Counters.OrdersRefused)
	out.Counters.APIErrors = cloneMap(s.Counters.APIErrors)
	out.Counters.JobRuns = cloneMap(s.Counters.JobRuns)
	return out
}

func cloneMap(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
