package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies"
)

// syncBuffer is a log sink safe for the bot's and the test's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// banAddress makes the simulated server ban 127.0.0.1 now: keyless
// requests beyond the IP budget until the fifth refusal within a minute
// earns a 418 (2 minutes, the first ban). It returns how many it sent.
func (h *exchangeHarness) banAddress() int {
	for n := 1; n <= 400; n++ {
		req, err := http.NewRequest(http.MethodGet, h.url+"/api/v3/time", nil)
		if err != nil {
			h.t.Fatal(err)
		}
		// The server refuses a request without it (700013).
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			h.t.Error(err)
			return n
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTeapot {
			return n
		}
	}
	h.t.Error("no ban after 400 requests")
	return 400
}

// A 418 in a running live bot is waited out: trading pauses (the status
// says why and until when, the log says so once), no request reaches the
// server while the ban lasts but the one that met it, and the bot resumes
// polling and syncing after it, then stops cleanly.
func TestBanIsWaitedOut(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 120, false, noFaults)
	c := h.liveConfig(`
poll: {orders: 5s, kline_delay: 2s}
daemon: {clock_sync: 1m}
` + twoStrategies)
	c.Notify.DailySummary = "*/5 * * * *"
	st := memStore(t)
	logs := &syncBuffer{}
	notes := &recorder{}
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: h.clock, Client: h.client(),
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})), Notify: notes})
	if err != nil {
		t.Fatal(err)
	}
	t0 := h.clock.Now()
	banAt, banEnd := t0.Add(32*time.Second), t0.Add(32*time.Second+2*time.Minute)
	var during Status
	h.clock.hook(banAt, func() { h.banAddress() })
	h.clock.hook(t0.Add(90*time.Second), func() { during = bot.Status() })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.clock.runUntil(t0.Add(10*time.Minute), cancel)
	if err := bot.Run(ctx); err != nil {
		t.Fatalf("the bot exited with %v", err)
	}
	if !during.BannedUntil.Equal(banEnd) {
		t.Errorf("banned until %s during the ban, want %s", during.BannedUntil, banEnd)
	}
	wantBlock := "ip-banned: the exchange banned this IP (HTTP 418) until " + banEnd.UTC().Format(time.RFC3339)
	if during.Blocked != wantBlock || during.BlockedRule != RuleIPBanned {
		t.Errorf("during the ban: blocked %q (rule %q), want %q", during.Blocked, during.BlockedRule, wantBlock)
	}
	// The bot's requests (the test's own were all at banAt): one met the
	// ban, none followed it until it ended, and after it the bot synced
	// orders again.
	var met, inBan, after int
	for _, r := range h.srv.Requests() {
		switch {
		case !r.Time.After(banAt):
		case r.Status == http.StatusTeapot:
			met++
		case r.Time.Before(banEnd):
			inBan++
		case r.Status == http.StatusOK && r.Endpoint == exchange.EpQueryOrder:
			after++
		}
	}
	if met != 1 || inBan != 0 || after == 0 {
		t.Errorf("requests after the ban began: %d answered 418, %d more during the ban, %d order queries after it; want 1, 0 and some", met, inBan, after)
	}
	out := logs.String()
	for _, want := range []string{
		`level=ERROR msg="trading paused: the exchange banned this IP (HTTP 418); waiting the ban out" until=` + banEnd.UTC().Format(time.RFC3339),
		`level=INFO msg="the exchange's IP ban is over; trading resumes"`,
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("log has %q %d times, want once", want, strings.Count(out, want))
		}
	}
	// The operator hears of the ban when the bot meets it (its next
	// request after banAt) and of its end; summaries every five minutes.
	at := func(d time.Duration) string { return t0.Add(d).UTC().Format(time.RFC3339) }
	wantNotes := []string{
		at(0) + " start  trading started (live)",
		at(35*time.Second) + " ban  trading paused: the exchange banned this IP (HTTP 418) until " + banEnd.UTC().Format(time.RFC3339),
		banEnd.UTC().Format(time.RFC3339) + " ban  the exchange's IP ban is over; trading resumes",
		at(5*time.Minute+2*time.Second) + " daily_summary  summary: 0 fills, 9 orders placed, 9 open orders, 0 positions",
		at(10*time.Minute+2*time.Second) + " daily_summary  summary: 0 fills, 9 orders placed, 9 open orders, 0 positions",
		at(10*time.Minute+2*time.Second) + " stop  bot stopped",
	}
	if got := notes.lines(); !slices.Equal(got, wantNotes) {
		t.Errorf("notifications\n got %q\nwant %q", got, wantNotes)
	}
	if s := bot.Status(); s.Phase != PhaseStopped || !s.BannedUntil.IsZero() || s.Counters.APIErrors["ip-banned"] != 1 {
		t.Errorf("after the run: phase %s, banned until %s, API errors %v", s.Phase, s.BannedUntil, s.Counters.APIErrors)
	}
}

// A bot started while its address is banned waits the ban out and then
// starts, instead of exiting (a supervisor restarting it at once would
// meet the ban again).
func TestBanAtStartIsWaitedOut(t *testing.T) {
	t.Parallel()
	h := newExchangeHarness(t, 120, false, noFaults)
	c := h.liveConfig(`
poll: {orders: 5s, kline_delay: 2s}
daemon: {clock_sync: 1m}
` + twoStrategies)
	st := memStore(t)
	t0 := h.clock.Now()
	h.banAddress()
	bot, err := New(Options{Config: c, Registry: strategies.NewRegistry(), Store: st, Clock: h.clock, Client: h.client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.clock.runUntil(t0.Add(5*time.Minute), cancel)
	if err := bot.Run(ctx); err != nil {
		t.Fatalf("the bot exited with %v", err)
	}
	s := bot.Status()
	if want := t0.Add(2 * time.Minute); !s.FirstPoll.Equal(want) {
		t.Errorf("first poll at %s, want %s (the ban's end)", s.FirstPoll, want)
	}
	if s.Counters.APIErrors["ip-banned"] != 1 || len(s.OpenOrders) == 0 {
		t.Errorf("API errors %v, %d open orders; want one ban met and the grid laid", s.Counters.APIErrors, len(s.OpenOrders))
	}
}
