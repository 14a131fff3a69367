package reliability

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spotbot/spotbot/store"
)

// crashKills is how many SIGKILLs TestCrashRestart lands (issue 9: 20 or
// more); crashSessionBars is how many bars a session may trade before it
// is stopped; crashLevels sizes the grids (about 4 × (levels-1) intents
// per bar).
const (
	crashKills       = 24
	crashSessionBars = 4
	crashLevels      = 16
)

// crashParent is the parent's side of the crash test: the exchange, its
// clock and the control server the child's clock calls.
type crashParent struct {
	t      *testing.T
	ex     *soakExchange
	dbPath string

	mu          sync.Mutex
	sessionFrom int // bar index where the session's trading began (-1: start-up)
	checks      int // checkpoints verified
	problems    []string
}

// serveControl answers the child's clock: "after" moves time forward by d
// (feeding bars only once the start-up was checked) and says when the
// session must stop; "checkpoint" verifies the store against the exchange
// while the child waits, then lets the bars flow.
func (p *crashParent) serveControl(w http.ResponseWriter, r *http.Request) {
	reply := func(tick crashTick) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(tick)
	}
	d, err := strconv.ParseInt(r.FormValue("d"), 10, 64)
	if err != nil || d < 0 {
		reply(crashTick{Err: fmt.Sprintf("d=%q", r.FormValue("d"))})
		return
	}
	c := p.ex.clock
	switch r.URL.Path {
	case "/after":
		c.mu.Lock()
		c.advance(c.x.Now().Add(time.Duration(d)))
		p.mu.Lock()
		stop := p.sessionFrom >= 0 && c.next-p.sessionFrom >= crashSessionBars*len(p.ex.syms)
		p.mu.Unlock()
		if stop {
			c.feed = false
		}
		now := c.x.Now()
		c.mu.Unlock()
		reply(crashTick{Now: now.UnixNano(), Stop: stop})
	case "/checkpoint":
		fig, probs := soakVerify(r.Context(), p.ex, p.dbPath, true)
		c.mu.Lock()
		c.feed = true
		p.mu.Lock()
		p.sessionFrom = c.next
		p.checks++
		if len(probs) > 0 {
			p.problems = append(p.problems, fmt.Sprintf("checkpoint %d (%d intents, %d exchange orders): %s", p.checks, fig.Intents,
				fig.ExOrders, soakJoin(probs)))
		}
		p.mu.Unlock()
		now := c.x.Now()
		c.mu.Unlock()
		reply(crashTick{Now: now.UnixNano()})
	default:
		http.NotFound(w, r)
	}
}

// crashOutcome is how a child session ended.
type crashOutcome struct {
	killed bool
	stderr string
}

// runChild runs one bot process with the kill point kill ("" for none)
// until it is killed or stopped.
func (p *crashParent) runChild(ctl, kill string) crashOutcome {
	t := p.t
	t.Helper()
	p.mu.Lock()
	p.sessionFrom = -1
	p.mu.Unlock()
	p.ex.clock.mu.Lock()
	p.ex.clock.feed = false // no bar until the start-up is checked
	p.ex.clock.mu.Unlock()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), crashEnvExchange+"="+p.ex.url, crashEnvControl+"="+ctl, crashEnvStore+"="+p.dbPath,
		crashEnvKill+"="+kill, crashEnvLevels+"="+strconv.Itoa(crashLevels))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the child (kill %q) did not end within 2 minutes:\n%s", kill, stderr.String())
	}
	out := crashOutcome{stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
		out.killed = true
	default:
		t.Fatalf("the child (kill %q) failed: %v\n%s", kill, err, out.stderr)
	}
	if strings.Contains(out.stderr, "strategy instance stopped") || strings.Contains(out.stderr, "--- FAIL") ||
		strings.Contains(out.stderr, "level=ERROR") {
		t.Fatalf("the child (kill %q) reported a failure:\n%s", kill, out.stderr)
	}
	// The crash output (the bot's log at info level, and the test
	// binary's) never holds the secret or a signed query.
	if strings.Contains(out.stderr, soakSecret) || strings.Contains(out.stderr, "signature=") {
		t.Fatalf("the child's output (kill %q) holds the secret or a signed query", kill)
	}
	return out
}

// TestCrashRestart kills the bot (a child process) with SIGKILL at 24
// seeded points of the order flow — after an intent is recorded and
// before it is sent, after the exchange acted on a request and before the
// acknowledgement is recorded, in the middle of importing fills — and
// restarts it each time against the same exchange (in this process, so it
// outlives the child) and the same store. After every restart's start-up
// (reconciliation, first sync, strategies started) the store must equal
// the exchange: no client id twice, every exchange order with its status
// and quantities, every trade once, every intent resolved, the balances
// derived from the store's fills equal to the exchange's. Every few kills
// the market moves while the bot is down, so the restart imports fills it
// missed. A last clean session ends the test with the same check and the
// balance snapshot.
func TestCrashRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 25 or more child processes")
	}
	t.Parallel()
	wall := time.Now()
	ex := newSoakExchange(t, soakWarm+600)
	p := &crashParent{t: t, ex: ex, dbPath: filepath.Join(t.TempDir(), "crash.db")}
	ctl := httptest.NewServer(http.HandlerFunc(p.serveControl))
	defer ctl.Close()

	rnd := rand.New(rand.NewPCG(9, 9))
	kinds := []string{crashAtRecord, crashAtSend, crashAtFill}
	kills := map[string][]int{}
	sessions, clean, early := 0, 0, 0
	for nk := 0; nk < crashKills; {
		if sessions >= 3*crashKills {
			t.Fatalf("%d sessions for %d kills", sessions, nk)
		}
		kind := kinds[sessions%len(kinds)]
		n := 1 + rnd.IntN(4*(crashLevels-1)*crashSessionBars)
		p.mu.Lock()
		c0 := p.checks
		p.mu.Unlock()
		out := p.runChild(ctl.URL, fmt.Sprintf("%s:%d", kind, n))
		sessions++
		p.mu.Lock()
		reached := p.checks > c0
		p.mu.Unlock()
		if out.killed {
			nk++
			kills[kind] = append(kills[kind], n)
			if !reached {
				early++ // killed during the start-up: the next start-up is checked
			}
		} else {
			clean++
			p.verify("after a session stopped normally")
		}
		// Down for a rate window; every third time for two hours, while
		// resting orders fill.
		down := soakRestartPause
		if sessions%3 == 0 {
			down = 2 * time.Hour
		}
		ex.clock.mu.Lock()
		ex.clock.feed = true
		ex.clock.stopped = false
		ex.clock.advance(ex.x.Now().Add(down))
		ex.clock.mu.Unlock()
		p.mu.Lock()
		probs := p.problems
		p.mu.Unlock()
		if len(probs) > 0 {
			t.Fatalf("after %d sessions (%d kills):\n%s", sessions, nk, strings.Join(probs, "\n"))
		}
	}
	// A last session without a kill: it reconciles, trades and stops.
	if out := p.runChild(ctl.URL, ""); out.killed {
		t.Fatal("the last session was killed")
	}
	fig := p.verify("after the last session")
	if probs := soakGridFollowUps(fig, sessions+1, crashLevels); len(probs) > 0 {
		t.Errorf("more than one order per fill:\n%s", soakJoin(probs))
	}
	st, err := store.Open(t.Context(), p.dbPath, store.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	soakCheckSnapshot(t, ex, st)
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) > 0 {
		t.Fatal(strings.Join(p.problems, "\n"))
	}
	// Every start-up that finished was checked: all but those killed.
	if p.checks != sessions+1-early {
		t.Fatalf("%d start-ups checked; want %d (%d sessions and the last, %d killed during start-up)", p.checks, sessions+1-early, sessions, early)
	}
	t.Logf("crash: %d SIGKILLs in %d sessions (+1 last), %d stopped normally, %d killed during start-up; kill points %v; %d start-ups checked; "+
		"%d intents, %d exchange orders, %d trades, %d never placed, by state %v; %s wall",
		crashKills, sessions, clean, early, kills, p.checks, fig.Intents, fig.ExOrders, fig.Trades, fig.NeverSent, fig.ByIntent,
		time.Since(wall).Round(time.Millisecond))
}

// verify checks the store against the exchange with no bot running.
func (p *crashParent) verify(when string) soakFigures {
	fig, probs := soakVerify(p.t.Context(), p.ex, p.dbPath, true)
	if len(probs) > 0 {
		p.mu.Lock()
		p.problems = append(p.problems, when+": "+soakJoin(probs))
		p.mu.Unlock()
	}
	return fig
}
