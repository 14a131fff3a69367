package simserver

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// Limits configures the server's rate limits.
type Limits struct {
	// Budgets are the pools enforced (default: exchange.DefaultLimits()).
	Budgets []exchange.Limit
	// BanAfter is how many refused requests within BanWindow get an IP
	// banned (default 5 within 1 minute).
	BanAfter  int
	BanWindow time.Duration
	// FirstBan is the first ban's length (default 2 minutes); each further
	// ban doubles it, up to MaxBan (default 3 days).
	FirstBan time.Duration
	MaxBan   time.Duration
	// TimeScale multiplies every ban duration and window, so tests can run
	// the ban ladder in milliseconds (default 1).
	TimeScale float64
	// Off disables all limits (for throughput benchmarks).
	Off bool
}

func (l *Limits) defaults() {
	if l.Budgets == nil {
		l.Budgets = exchange.DefaultLimits()
	}
	if l.BanAfter == 0 {
		l.BanAfter = 5
	}
	if l.BanWindow == 0 {
		l.BanWindow = time.Minute
	}
	if l.FirstBan == 0 {
		l.FirstBan = 2 * time.Minute
	}
	if l.MaxBan == 0 {
		l.MaxBan = 72 * time.Hour
	}
	if l.TimeScale == 0 {
		l.TimeScale = 1
	}
}

func (l *Limits) scale(d time.Duration) time.Duration { return time.Duration(float64(d) * l.TimeScale) }

// limiter enforces the budgets: IP weight per address for keyless
// endpoints, and the UID pools per account for keyed ones, counted
// separately. A request over a budget is refused with 429 and not counted;
// repeated refusals ban the address with 418.
type limiter struct {
	cfg   Limits
	clock exchange.Clock

	mu      sync.Mutex
	ip      map[string]*exchange.Budget
	uid     map[string]*exchange.Budget
	strikes map[string][]time.Time
	bans    map[string]ban
}

type ban struct {
	until time.Time
	count int // bans so far, for the doubling ladder
}

func newLimiter(cfg Limits, clock exchange.Clock) *limiter {
	cfg.defaults()
	return &limiter{cfg: cfg, clock: clock, ip: map[string]*exchange.Budget{}, uid: map[string]*exchange.Budget{},
		strikes: map[string][]time.Time{}, bans: map[string]ban{}}
}

// budget returns the budget of one address or account, limited to pools.
func (l *limiter) budget(m map[string]*exchange.Budget, who string, pools ...exchange.Pool) *exchange.Budget {
	if b, ok := m[who]; ok {
		return b
	}
	var limits []exchange.Limit
	for _, lim := range l.cfg.Budgets {
		for _, p := range pools {
			if lim.Pool == p {
				limits = append(limits, lim)
			}
		}
	}
	b, err := exchange.NewBudget(l.clock, exchange.BudgetFailFast, 0, limits)
	if err != nil {
		panic(fmt.Sprintf("simserver: invalid budgets: %v", err)) // validated in New
	}
	m[who] = b
	return b
}

// banned answers 418 while ip is banned. The server asks first, before
// reading the body or authenticating: a banned address is refused whatever
// it sends.
func (l *limiter) banned(ip string) *apiError {
	if l.cfg.Off {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bannedLocked(ip, l.clock.Now())
}

func (l *limiter) bannedLocked(ip string, now time.Time) *apiError {
	if b, ok := l.bans[ip]; ok && now.Before(b.until) {
		return &apiError{status: 418, code: exchange.CodeTooManyRequests, msg: "IP banned until " + b.until.UTC().Format(time.RFC3339),
			retryAfter: b.until.Sub(now)}
	}
	return nil
}

// failedAuth draws a request whose authentication failed from the IP
// budget of its address, at the endpoint's weight: a caller guessing keys
// or signatures spends the budget an anonymous caller has, then draws 429s
// and a ban. It returns that refusal, or nil when the budget had room (the
// authentication error then stands).
func (l *limiter) failedAuth(ep *exchange.Endpoint, ip string) *apiError {
	if l.cfg.Off {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if e := l.bannedLocked(ip, now); e != nil {
		return e
	}
	w := max(ep.Weight, 1)
	err := l.budget(l.ip, ip, exchange.PoolIP).Acquire(context.Background(), ep.ID, []exchange.Draw{{Pool: exchange.PoolIP, Amount: w}})
	if err == nil {
		return nil
	}
	rl, ok := err.(*exchange.RateLimitError)
	if !ok {
		return &apiError{status: 500, code: exchange.CodeInternalError, msg: err.Error()}
	}
	return l.strike(ip, now, rl)
}

// admit counts a request of ep from ip (and uid, for keyed endpoints).
func (l *limiter) admit(ep *exchange.Endpoint, ip, uid string) *apiError {
	if l.cfg.Off {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if e := l.bannedLocked(ip, now); e != nil {
		return e
	}
	var b *exchange.Budget
	if ep.Security == exchange.Public {
		b = l.budget(l.ip, ip, exchange.PoolIP)
	} else {
		b = l.budget(l.uid, uid, exchange.PoolUID, exchange.PoolOrder, exchange.PoolBatch, exchange.PoolAccount)
	}
	err := b.Acquire(context.Background(), ep.ID, ep.Draws) // fail fast: never waits
	if err == nil {
		return nil
	}
	rl, ok := err.(*exchange.RateLimitError)
	if !ok {
		return &apiError{status: 500, code: exchange.CodeInternalError, msg: err.Error()}
	}
	return l.strike(ip, now, rl)
}

// strike records a refused request and bans the address after too many.
func (l *limiter) strike(ip string, now time.Time, rl *exchange.RateLimitError) *apiError {
	win := l.cfg.scale(l.cfg.BanWindow)
	s := l.strikes[ip][:0]
	for _, t := range l.strikes[ip] {
		if now.Sub(t) < win {
			s = append(s, t)
		}
	}
	s = append(s, now)
	l.strikes[ip] = s
	if len(s) >= l.cfg.BanAfter {
		prev := l.bans[ip]
		d := l.cfg.FirstBan << prev.count
		if d > l.cfg.MaxBan || d <= 0 {
			d = l.cfg.MaxBan
		}
		d = l.cfg.scale(d)
		l.bans[ip] = ban{until: now.Add(d), count: prev.count + 1}
		delete(l.strikes, ip)
		return &apiError{status: 418, code: exchange.CodeTooManyRequests, msg: "IP banned for repeated rate-limit violations", retryAfter: d}
	}
	return &apiError{status: 429, code: exchange.CodeTooManyRequests, msg: "too many requests (" + rl.Pool.String() + " budget)", retryAfter: rl.RetryAfter}
}

// retryAfterHeader renders a wait as whole seconds, rounded up, at least 1.
func retryAfterHeader(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.FormatInt(s, 10)
}
