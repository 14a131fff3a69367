package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
)

// The crash child's environment: the parent's exchange and control
// server, the store, and where to die ("kind:n", or empty to run until
// told to stop). Not SPOTBOT_: that prefix is configuration.
const (
	crashEnvExchange = "CRASH_TEST_EXCHANGE"
	crashEnvControl  = "CRASH_TEST_CONTROL"
	crashEnvStore    = "CRASH_TEST_STORE"
	crashEnvKill     = "CRASH_TEST_KILL"
	crashEnvLevels   = "CRASH_TEST_LEVELS"
)

// The kill points of the order flow. Each is a log record the bot writes
// at that point, so the child finds it without any hook in library code:
//
//	record: the journal's "order" line, written once the intent is in the
//	        store and before the request is sent;
//	send:   the REST client's debug "request" line for a newOrder or
//	        batchOrders answered 200, written once the reply is read and
//	        before the runtime records the acknowledgement;
//	fill:   the journal's "fill" line, written once one trade is in the
//	        store, before the order's next trade, its status and the
//	        strategy's reaction (mid-fill import).
const (
	crashAtRecord = "record"
	crashAtSend   = "send"
	crashAtFill   = "fill"
)

// TestCrashChild is the bot process of TestCrashRestart (this test binary
// re-executed); it is skipped in a normal test run. It runs the bot in live
// mode against the parent's exchange on the parent's clock and, when told,
// kills itself with SIGKILL at the n-th occurrence of a kill point.
func TestCrashChild(t *testing.T) {
	exURL := os.Getenv(crashEnvExchange)
	if exURL == "" {
		t.Skip("run by TestCrashRestart")
	}
	ctl := os.Getenv(crashEnvControl)
	levels, err := strconv.Atoi(os.Getenv(crashEnvLevels))
	if err != nil {
		t.Fatalf("%s: %v", crashEnvLevels, err)
	}
	kind, n := "", 0
	if k := os.Getenv(crashEnvKill); k != "" {
		var ns string
		kind, ns, _ = strings.Cut(k, ":")
		if n, err = strconv.Atoi(ns); err != nil || n < 1 {
			t.Fatalf("%s=%q", crashEnvKill, k)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock, err := newCrashClock(ctl, cancel)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	tap := &soakTap{level: slog.LevelDebug, next: slog.NewTextHandler(os.Stderr, nil)}
	tap.hook = func(r slog.Record) {
		if r.Message == "trading" {
			clock.checkpoint() // the parent checks the store while the bot waits here
			return
		}
		if kind == "" {
			return
		}
		hit := false
		switch kind {
		case crashAtRecord:
			hit = r.Message == "order" && r.Level == slog.LevelInfo
		case crashAtSend:
			ep := soakAttr(r, "endpoint")
			hit = r.Message == "request" && (ep == "newOrder" || ep == "batchOrders") && soakAttr(r, "status") == "200"
		case crashAtFill:
			hit = r.Message == "fill" && r.Level == slog.LevelInfo
		}
		if hit {
			if seen++; seen == n {
				fmt.Fprintf(os.Stderr, "crash child: SIGKILL at %s #%d\n", kind, n)
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {} // the signal is on its way
			}
		}
	}
	log := slog.New(tap)
	c := soakConfig(t, exURL, levels, "")
	client, err := exchange.New(exchange.WithBaseURL(exURL), exchange.WithCredentials(exchange.NewSecret(soakKey), exchange.NewSecret(soakSecret)),
		exchange.WithClock(clock), exchange.WithLogger(log), exchange.WithRateLimitRetries(3))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, os.Getenv(crashEnvStore))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bot, err := daemon.New(daemon.Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: clock, Client: client, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for _, in := range bot.Status().Strategies {
		if in.Stopped != "" {
			t.Errorf("instance %s stopped: %s", in.ID, in.Stopped)
		}
	}
}

// crashClock is the child's clock: the parent's simulated time. A wait
// asks the parent to move time forward (feeding the bars that close); the
// parent's answer also says when the session is over.
type crashClock struct {
	ctl    string
	http   *http.Client
	cancel context.CancelFunc
	mu     sync.Mutex
	now    time.Time
}

// crashTick is the control server's answer.
type crashTick struct {
	Now  int64  `json:"now"` // Unix nanoseconds
	Stop bool   `json:"stop"`
	Err  string `json:"err,omitempty"`
}

func newCrashClock(ctl string, cancel context.CancelFunc) (*crashClock, error) {
	c := &crashClock{ctl: ctl, http: &http.Client{Timeout: time.Minute}, cancel: cancel}
	tick, err := c.call("after", 0)
	if err != nil {
		return nil, err
	}
	c.now = time.Unix(0, tick.Now).UTC()
	return c, nil
}

func (c *crashClock) call(what string, d time.Duration) (crashTick, error) {
	resp, err := c.http.PostForm(c.ctl+"/"+what, url.Values{"d": {strconv.FormatInt(int64(d), 10)}})
	if err != nil {
		return crashTick{}, err
	}
	defer resp.Body.Close()
	var tick crashTick
	if err := json.NewDecoder(resp.Body).Decode(&tick); err != nil {
		return crashTick{}, fmt.Errorf("control %s: %w", what, err)
	}
	if tick.Err != "" {
		return tick, fmt.Errorf("control %s: %s", what, tick.Err)
	}
	return tick, nil
}

func (c *crashClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *crashClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	tick, err := c.call("after", max(d, 0))
	if err != nil {
		// The parent is gone or broken: end the session.
		fmt.Fprintln(os.Stderr, "crash child: clock:", err)
		c.cancel()
	} else {
		c.now = time.Unix(0, tick.Now).UTC()
		if tick.Stop {
			c.cancel()
		}
	}
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// checkpoint tells the parent the start-up is over and waits while it
// checks the store.
func (c *crashClock) checkpoint() {
	if _, err := c.call("checkpoint", 0); err != nil {
		fmt.Fprintln(os.Stderr, "crash child: checkpoint:", err)
	}
}
