package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
)

// soakIntentsEnv sets the soak's number of order intents (default
// soakDefaultIntents, the figure, or soakRaceIntents under the
// race detector); raise it for a longer soak.
const (
	soakIntentsEnv     = "SPOTBOT_SOAK_INTENTS"
	soakDefaultIntents = 10000
	soakRaceIntents    = 3000
)

// The order endpoints' faults (issue 9): 5% answer 5XX after acting, 1%
// before acting, 2% drop the connection after acting, each with added
// latency.
var soakOrderFault = simserver.Fault{After5XX: 0.05, Before5XX: 0.01, DropAfter: 0.02, Latency: 200 * time.Microsecond}

// soakTimeline is when the storms and the clock jump happen, in simulated
// time after the bot starts: all within the first 11 hours, which even the
// race detector's shorter soak covers. Durations are the issue's, in the
// exchange's own time: a 10-second storm of 429s, a server clock 3 s
// ahead. The clock jump lasts 20 minutes, so the bot's clock sync (every
// 5 minutes) sees it, blocks trading (default max_clock_offset 2 s) and
// lifts the block after the jump back.
var (
	soakStormsAt   = []time.Duration{90 * time.Minute, 4 * time.Hour, 7*time.Hour + 30*time.Minute, 10 * time.Hour}
	soakStormLen   = 10 * time.Second
	soakJumpAt     = 5 * time.Hour
	soakJump       = 3 * time.Second
	soakJumpLength = 20 * time.Minute
)

// soakLevels is the number of levels of each soak grid.
const soakLevels = 60

// soakRestartPause is how long the bot is down before a restart: not at
// all. The server's rate windows still hold the stopped process's requests,
// so the new one may draw a 429; its client then resends after a whole
// window (exchange.WithRateLimitRetries, as bot run configures it) instead
// of overrunning into a ban.
const soakRestartPause = time.Duration(0)

// soakFaults is the fault set with the storm ending at storm and the
// server clock shifted by offset; seed makes each change's draws its own.
func soakFaults(seed uint64, storm time.Time, offset time.Duration) simserver.Faults {
	return simserver.Faults{Seed: seed, Storm429Until: storm, ClockOffset: offset,
		ByEndpoint: map[exchange.EndpointID]simserver.Fault{
			exchange.EpNewOrder: soakOrderFault, exchange.EpBatchOrders: soakOrderFault, exchange.EpCancelOrder: soakOrderFault}}
}

// TestFaultSoak runs the bot in live mode over HTTP against the simulated
// server with the order endpoints misbehaving (issue 9's fault mix) until
// it has recorded at least SPOTBOT_SOAK_INTENTS order intents (10,000 by
// default) from four grids and two crossovers. Then a restart with the
// faults gone reconciles, and the store must equal the exchange: no client
// id twice, every exchange order with its final status, every trade once,
// the balances derived from the store's fills equal to the exchange's, no
// 418 in the server's log, no instance stopped.
func TestFaultSoak(t *testing.T) {
	t.Parallel()
	target := soakDefaultIntents
	if soakRace {
		target = soakRaceIntents
		t.Logf("race detector on: %d intents by default (the issue's 10,000 take about 155 s under -race on 2 cores); "+
			"set %s=10000 for the full figure", target, soakIntentsEnv)
	}
	if v := os.Getenv(soakIntentsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: want a positive whole number", soakIntentsEnv, v)
		}
		target = n
	}
	if testing.Short() {
		target = min(target, 1000)
		t.Logf("-short: %d intents", target)
	}
	wall := time.Now()
	ctx := t.Context()
	ex := newSoakExchange(t, soakWarm+2000)
	c := soakConfig(t, ex.url, soakLevels, "")
	dbPath := filepath.Join(t.TempDir(), "soak.db")
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// The timeline, in simulated time from the start.
	t0 := ex.x.Now()
	ex.srv.SetFaults(soakFaults(1, time.Time{}, 0))
	seed := uint64(1)
	var events []soakEvent
	for _, at := range soakStormsAt {
		until := t0.Add(at + soakStormLen)
		events = append(events, soakEvent{t0.Add(at), func() { seed++; ex.srv.SetFaults(soakFaults(seed, until, 0)) }})
	}
	events = append(events,
		soakEvent{t0.Add(soakJumpAt), func() { seed++; ex.srv.SetFaults(soakFaults(seed, time.Time{}, soakJump)) }},
		soakEvent{t0.Add(soakJumpAt + soakJumpLength), func() { seed++; ex.srv.SetFaults(soakFaults(seed, time.Time{}, 0)) }})
	sort.Slice(events, func(i, j int) bool { return events[i].at.Before(events[j].at) })
	ex.clock.mu.Lock()
	ex.clock.events = events
	ex.clock.mu.Unlock()

	// Session 1: faults on, until the target number of intents.
	var logs bytes.Buffer
	tap := &soakTap{level: slog.LevelInfo, next: slog.NewTextHandler(&logs, nil)}
	bot := soakRun(t, ex, c, st, tap, func() bool { return tap.intents.Load() >= int64(target) })
	s1 := bot.Status()
	simEnd := ex.x.Now()
	if got := tap.intents.Load(); got < int64(target) {
		t.Fatalf("%d intents recorded before the data ran out; want %d", got, target)
	}
	fig1, probs := soakVerify(ctx, ex, dbPath, false)
	if len(probs) > 0 {
		t.Fatalf("after the faulty session:\n%s", soakJoin(probs))
	}

	// Session 2: the faults are over; the restart reconciles and stops.
	// It comes one rate window after the stop: a fresh client cannot know
	// the requests of the process before it, and restarting at once under
	// a full window draws 429s and then a ban (see docs/reliability.md).
	ex.srv.SetFaults(simserver.Faults{})
	ex.clock.mu.Lock()
	ex.clock.feed = false
	ex.clock.advance(ex.x.Now().Add(soakRestartPause))
	ex.clock.mu.Unlock()
	tap2 := &soakTap{level: slog.LevelInfo}
	bot2 := soakRun(t, ex, c, st, tap2, func() bool { return tap2.trading.Load() > 0 })
	s2 := bot2.Status()
	fig, probs := soakVerify(ctx, ex, dbPath, true)
	if len(probs) > 0 {
		t.Fatalf("after the reconciling restart:\n%s", soakJoin(probs))
	}
	soakCheckSnapshot(t, ex, st)
	if probs := soakGridFollowUps(fig, 2, soakLevels); len(probs) > 0 {
		t.Errorf("more than one order per fill:\n%s", soakJoin(probs))
	}
	for _, s := range []daemon.Status{s1, s2} {
		for _, in := range s.Strategies {
			if in.Stopped != "" {
				t.Errorf("instance %s stopped: %s", in.ID, in.Stopped)
			}
		}
	}
	if stopped := append(tap.stoppedInstances(), tap2.stoppedInstances()...); len(stopped) > 0 {
		t.Errorf("instances stopped: %v", stopped)
	}
	// Each fill reached its strategy exactly once over both sessions.
	if s1.Counters.Fills+s2.Counters.Fills != fig.Trades {
		t.Errorf("fills delivered %d + %d, exchange trades %d", s1.Counters.Fills, s2.Counters.Fills, fig.Trades)
	}
	if fig.Intents != fig1.Intents+int(tap2.intents.Load()) || fig1.Intents != int(tap.intents.Load()) {
		t.Errorf("store orders %d (session 1: %d), intents logged %d + %d", fig.Intents, fig1.Intents, tap.intents.Load(), tap2.intents.Load())
	}

	// The server's view: faults injected, and never a ban.
	byStatus := map[int]int{}
	orderReqs, order503, orderDrops, storm429 := 0, 0, 0, 0
	for _, r := range ex.srv.Requests() {
		byStatus[r.Status]++
		if r.Status == 418 {
			t.Errorf("the server banned the bot: %+v", r)
		}
		if r.Status == 429 {
			storm429++
		}
		switch r.Endpoint {
		case exchange.EpNewOrder, exchange.EpBatchOrders, exchange.EpCancelOrder:
			orderReqs++
			switch r.Status {
			case 503:
				order503++
			case 0:
				orderDrops++
			}
		}
	}
	// Nothing the run wrote holds the secret: the log, the status, the
	// store.
	written := map[string][]byte{"log": logs.Bytes()}
	for i, s := range []daemon.Status{s1, s2} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		written[fmt.Sprintf("status %d", i+1)] = b
	}
	for _, f := range []string{dbPath, dbPath + "-wal"} {
		if b, err := os.ReadFile(f); err == nil {
			written[filepath.Base(f)] = b
		}
	}
	for name, b := range written {
		if bytes.Contains(b, []byte(soakSecret)) || bytes.Contains(b, []byte("signature=")) {
			t.Errorf("the %s holds the secret or a signed query", name)
		}
	}
	t.Logf("soak: %d intents (target %d) over %s of simulated time in %s wall; %d exchange orders, %d trades, %d never placed, intents by state %v",
		fig1.Intents, target, simEnd.Sub(t0).Round(time.Minute), time.Since(wall).Round(time.Millisecond), fig.ExOrders, fig.Trades,
		fig.NeverSent, fig.ByIntent)
	t.Logf("soak faults: %d order requests; %d answered 503 (%d intents found never placed: 5XX before acting; the rest after), "+
		"%d connections dropped after acting, %d answered 429 (%d storms of %s), clock +%s for %s (orders refused while blocked: %d), "+
		"%s latency per order request; server answers by status %v",
		orderReqs, order503, fig.Lost, orderDrops, storm429, len(soakStormsAt), soakStormLen, soakJump, soakJumpLength,
		s1.Counters.OrdersRefused["clock-offset"], soakOrderFault.Latency, byStatus)
	t.Logf("soak bot: %d placed, %d unknown outcomes, %d fills delivered, refused %v, API errors %v; restart: reconciliation %+v, %d new intents",
		s1.Counters.OrdersPlaced, s1.Counters.OrdersUnknown, s1.Counters.Fills, s1.Counters.OrdersRefused, s1.Counters.APIErrors,
		s2.Counters.Reconciled, tap2.intents.Load())
}

// soakRun runs one bot session on st until stop reports true.
func soakRun(t *testing.T, ex *soakExchange, c *config.Config, st *store.Store, tap *soakTap, stop func() bool) *daemon.Bot {
	t.Helper()
	client, err := exchange.New(exchange.WithBaseURL(ex.url), exchange.WithCredentials(exchange.NewSecret(soakKey), exchange.NewSecret(soakSecret)),
		exchange.WithClock(ex.clock), exchange.WithRateLimitRetries(3))
	if err != nil {
		t.Fatal(err)
	}
	bot, err := daemon.New(daemon.Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: ex.clock, Client: client,
		Logger: slog.New(tap)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ex.clock.session(stop, cancel)
	if err := bot.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return bot
}

// soakCheckSnapshot: the store's last balance snapshot is the exchange's
// account.
func soakCheckSnapshot(t *testing.T, ex *soakExchange, st *store.Store) {
	t.Helper()
	snap, ok, err := st.LatestBalances(t.Context(), "live")
	if err != nil || !ok {
		t.Fatalf("no balance snapshot: %v", err)
	}
	acct, err := ex.x.Master().Account(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Balances) != len(acct.Balances) {
		t.Fatalf("balance snapshot %v, exchange %v", snap.Balances, acct.Balances)
	}
	for i, b := range acct.Balances {
		if sb := snap.Balances[i]; sb.Asset != b.Asset || !sb.Free.Equal(b.Free) || !sb.Locked.Equal(b.Locked) {
			t.Errorf("balance snapshot %+v, exchange %+v", sb, b)
		}
	}
}
