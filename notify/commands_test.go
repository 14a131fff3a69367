package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBotAPI serves getUpdates from a script (one reply per call; after
// the script, calls wait for their request to end) and records
// sendMessage.
type fakeBotAPI struct {
	t      *testing.T
	script []string // a JSON body, or "502" for a failure

	mu      sync.Mutex
	calls   int
	offsets []int64
	sent    []sendMessage
	changed chan struct{}
}

func newFakeBotAPI(t *testing.T, script ...string) (*fakeBotAPI, *httptest.Server) {
	f := &fakeBotAPI{t: t, script: script, changed: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeBotAPI) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/botTOKEN/getUpdates":
		var req getUpdatesReq
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			f.t.Errorf("getUpdates body: %v", err)
		}
		if req.Timeout != 25 || !slices.Equal(req.AllowedUpdates, []string{"message"}) {
			f.t.Errorf("getUpdates request = %+v", req)
		}
		f.mu.Lock()
		f.offsets = append(f.offsets, req.Offset)
		n := f.calls
		f.calls++
		f.mu.Unlock()
		f.signal()
		if n >= len(f.script) {
			<-r.Context().Done()
			return
		}
		if f.script[n] == "502" {
			http.Error(w, `{"ok":false,"description":"Bad Gateway"}`, http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, f.script[n])
	case "/botTOKEN/sendMessage":
		var m sendMessage
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			f.t.Errorf("sendMessage body: %v", err)
		}
		f.mu.Lock()
		f.sent = append(f.sent, m)
		f.mu.Unlock()
		f.signal()
		fmt.Fprint(w, `{"ok":true,"result":{}}`)
	default:
		f.t.Errorf("unexpected request %s", r.URL.Path)
		http.NotFound(w, r)
	}
}

// signal wakes waitFor.
func (f *fakeBotAPI) signal() {
	select {
	case f.changed <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// waitFor waits, at most 10 s, until cond holds under the lock.
func (f *fakeBotAPI) waitFor(cond func() bool) bool {
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		ok := cond()
		f.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-f.changed:
		case <-deadline.C:
			return false
		}
	}
}

type controlCall struct{ action, instance, symbol string }

// fixtureCommands answers from fixed texts and records actions.
type fixtureCommands struct {
	mu    sync.Mutex
	calls []controlCall
}

func (c *fixtureCommands) StatusText() string  { return "paper, running\nbtc-1 (sma-cross): running" }
func (c *fixtureCommands) BalanceText() string { return "USDT 1000 free, 0 locked" }

func (c *fixtureCommands) Control(_ context.Context, action, instance, symbol string) (string, error) {
	c.mu.Lock()
	c.calls = append(c.calls, controlCall{action, instance, symbol})
	c.mu.Unlock()
	if symbol == "ETHUSDT" {
		return "", errors.New("instance btc-1 does not trade ETHUSDT (symbols: BTCUSDT)")
	}
	return "paused", nil
}

func updateJSON(id, chat, date int64, text string) string {
	b, _ := json.Marshal(map[string]any{"update_id": id, "message": map[string]any{
		"message_id": id, "date": date, "chat": map[string]any{"id": chat, "type": "private"}, "text": text}})
	return string(b)
}

func updatesJSON(ups ...string) string {
	return `{"ok":true,"result":[` + strings.Join(ups, ",") + `]}`
}

func TestCommandReader(t *testing.T) {
	clock := newStepClock()
	now := clock.Now().Unix() + 1 // after the backoff's second
	old := now - 3600
	fake, srv := newFakeBotAPI(t,
		"502",
		updatesJSON(
			updateJSON(10, 42, now, "/pause btc-1"),
			updateJSON(11, 99, now, "/pause btc-1"), // not a configured chat
			updateJSON(12, 42, now, "/forceexit"),
			updateJSON(13, 42, now, "/status@spotbot_bot"),
			updateJSON(14, 42, now, "/forceexit btc-1 ETHUSDT"),
			updateJSON(15, 42, old, "/resume btc-1"), // queued long ago
			updateJSON(16, 42, now, "/pause btc-1 extra"),
		),
		updatesJSON(updateJSON(17, 42, now, "/balance"), updateJSON(18, 42, now, "hello")),
	)
	cmds := &fixtureCommands{}
	r, err := NewCommandReader(CommandOptions{BaseURL: srv.URL, Token: "TOKEN", ChatIDs: []string{"42", "@ops"},
		Commands: cmds, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	if !fake.waitFor(func() bool { return len(fake.sent) == 7 && fake.calls == 4 }) {
		cancel()
		t.Fatal("timed out before 7 replies and 4 getUpdates")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop with its context")
	}

	want := []sendMessage{
		{"42", "pause btc-1: paused"},
		{"42", "usage: /forceexit INSTANCE [SYMBOL]"},
		{"42", "paper, running\nbtc-1 (sma-cross): running"},
		{"42", "force-exit btc-1 ETHUSDT failed: instance btc-1 does not trade ETHUSDT (symbols: BTCUSDT)"},
		{"42", "usage: /pause INSTANCE"},
		{"42", "USDT 1000 free, 0 locked"},
		{"42", Usage},
	}
	if !slices.Equal(fake.sent, want) {
		t.Errorf("sent:\n%q\nwant:\n%q", fake.sent, want)
	}
	if want := []int64{0, 0, 17, 19}; !slices.Equal(fake.offsets, want) {
		t.Errorf("offsets = %v, want %v", fake.offsets, want)
	}
	wantCalls := []controlCall{{"pause", "btc-1", ""}, {"force-exit", "btc-1", "ETHUSDT"}}
	if !slices.Equal(cmds.calls, wantCalls) {
		t.Errorf("control calls = %+v, want %+v", cmds.calls, wantCalls)
	}
	if want := []time.Duration{time.Second}; !slices.Equal(clock.recorded(), want) {
		t.Errorf("backoff waits = %v, want %v", clock.recorded(), want)
	}
	if got, want := r.Stats(), (CommandStats{Updates: 9, Handled: 7, Ignored: 1, Stale: 1, Failures: 1}); got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
}

func TestCommandReaderBackoffDoubles(t *testing.T) {
	clock := newStepClock()
	fake, srv := newFakeBotAPI(t, "502", "502", "502", "502", updatesJSON(), "502")
	r, err := NewCommandReader(CommandOptions{BaseURL: srv.URL, Token: "TOKEN", ChatIDs: []string{"42"},
		Commands: &fixtureCommands{}, Clock: clock, MaxBackoff: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	if !fake.waitFor(func() bool { return fake.calls == 7 }) {
		t.Error("timed out before the 7th getUpdates")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, time.Second}
	if !slices.Equal(clock.recorded(), want) {
		t.Errorf("waits = %v, want %v", clock.recorded(), want)
	}
}

func TestNewCommandReaderRefuses(t *testing.T) {
	ok := CommandOptions{Token: "T", ChatIDs: []string{"1"}, Commands: &fixtureCommands{}, Clock: newStepClock()}
	for _, tc := range []struct {
		change func(*CommandOptions)
		want   string
	}{
		{func(o *CommandOptions) { o.BaseURL = "ftp://x" }, "notify: telegram base url must be an http or https URL"},
		{func(o *CommandOptions) { o.Token = "" }, "notify: telegram token is empty"},
		{func(o *CommandOptions) { o.ChatIDs = nil }, "notify: telegram commands need chat ids"},
		{func(o *CommandOptions) { o.Commands = nil }, "notify: telegram commands need a Commands"},
		{func(o *CommandOptions) { o.Clock = nil }, "notify: telegram commands need a clock"},
	} {
		o := ok
		tc.change(&o)
		if _, err := NewCommandReader(o); err == nil || err.Error() != tc.want {
			t.Errorf("err = %v, want %s", err, tc.want)
		}
	}
}
