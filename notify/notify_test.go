package notify

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// stepClock is a fake clock: After records the wait, moves the time on by
// it and fires at once, so backoff and rate waits are exact and instant.
type stepClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func newStepClock() *stepClock {
	return &stepClock{now: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *stepClock) recorded() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.waits)
}

// recordSink keeps what it is sent.
type recordSink struct {
	mu   sync.Mutex
	got  []string
	gate chan struct{} // when set, each Send waits for a value
	seen chan string   // when set, each Send reports its text first
}

func (s *recordSink) Name() string { return "record" }

func (s *recordSink) Send(ctx context.Context, ev Event, repeats int) error {
	if s.seen != nil {
		s.seen <- ev.Text
	}
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	s.got = append(s.got, message(ev, repeats))
	s.mu.Unlock()
	return nil
}

func (s *recordSink) sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

func closeNotifier(t *testing.T, n *Notifier) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := n.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestWebhookSignedJSON(t *testing.T) {
	t.Parallel()
	const secret = "whsec-0123456789abcdef"
	type call struct{ body, sig, ctype, method, path string }
	calls := make(chan call, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls <- call{string(b), r.Header.Get(SignatureHeader), r.Header.Get("Content-Type"), r.Method, r.URL.Path}
	}))
	defer srv.Close()
	wh, err := NewWebhook(srv.URL+"/hook", secret, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	clock := newStepClock()
	n, err := New(Options{Clock: clock}, wh)
	if err != nil {
		t.Fatal(err)
	}
	n.Notify(Event{Kind: KindFill, Instance: "sma", Text: "BUY 0.01 BTCUSDT at 65000",
		Fields: map[string]string{"symbol": "BTCUSDT", "price": "65000"}, Time: time.Date(2024, 5, 1, 12, 0, 1, 0, time.UTC)})
	closeNotifier(t, n)
	c := <-calls
	const want = `{"kind":"fill","instance":"sma","text":"BUY 0.01 BTCUSDT at 65000","fields":{"price":"65000","symbol":"BTCUSDT"},"time":"2024-05-01T12:00:01Z"}`
	if c.body != want {
		t.Fatalf("body\n got %s\nwant %s", c.body, want)
	}
	// The receiver's check: HMAC-SHA256 of the exact body under the
	// secret (the hex computed outside Go, with Python's hmac).
	const wantSig = "sha256=80522cdf47f5e61be15e36cf7fd2bcfd8264f5c97756f66b5dd8471352f6c4e5"
	if c.sig != wantSig {
		t.Fatalf("signature header %q, want %q", c.sig, wantSig)
	}
	if !hmac.Equal([]byte(Sign([]byte(secret), []byte(c.body))), []byte(c.sig)) {
		t.Fatal("signature does not verify over the received body")
	}
	if c.method != http.MethodPost || c.path != "/hook" || c.ctype != "application/json" {
		t.Fatalf("request %s %s %s", c.method, c.path, c.ctype)
	}
	if st := n.Stats()["webhook"]; st != (Stats{Sent: 1}) {
		t.Fatalf("stats %+v", st)
	}
}

func TestTelegramSendsToEachChat(t *testing.T) {
	t.Parallel()
	const token = "123456:ABC-test-token"
	type msg struct{ path, chat, text string }
	got := make(chan msg, 8)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /bot"+token+"/sendMessage", func(w http.ResponseWriter, r *http.Request) {
		var m sendMessage
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, `{"ok":false,"description":"bad request"}`, http.StatusBadRequest)
			return
		}
		got <- msg{r.URL.Path, m.ChatID, m.Text}
		_, _ = io.WriteString(w, `{"ok":true,"result":{"message_id":1}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var sinks []Sink
	for _, chat := range []string{"1001", "-2002"} {
		tg, err := NewTelegram(srv.URL, token, chat, srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		sinks = append(sinks, tg)
	}
	n, err := New(Options{Clock: newStepClock()}, sinks...)
	if err != nil {
		t.Fatal(err)
	}
	n.Notify(Event{Kind: KindExit, Instance: "grid1", Text: "sold 0.5 ETHUSDT", Fields: map[string]string{"reason": "stop-loss", "pnl": "-12.5"}})
	closeNotifier(t, n)
	close(got)
	var msgs []msg
	for m := range got {
		msgs = append(msgs, m)
	}
	slices.SortFunc(msgs, func(a, b msg) int { return strings.Compare(a.chat, b.chat) })
	const text = "exit [grid1]: sold 0.5 ETHUSDT\npnl: -12.5\nreason: stop-loss"
	want := []msg{{"/bot" + token + "/sendMessage", "-2002", text}, {"/bot" + token + "/sendMessage", "1001", text}}
	if !slices.Equal(msgs, want) {
		t.Fatalf("messages\n got %q\nwant %q", msgs, want)
	}
	st := n.Stats()
	if st["telegram:1001"] != (Stats{Sent: 1}) || st["telegram:-2002"] != (Stats{Sent: 1}) {
		t.Fatalf("stats %+v", st)
	}
}

func TestTelegramErrorsHideTheToken(t *testing.T) {
	t.Parallel()
	const token = "987654:SECRET-token"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
	}))
	tg, err := NewTelegram(srv.URL, token, "1", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	err = tg.Send(t.Context(), Event{Kind: KindStart, Text: "x"}, 0)
	if err == nil || err.Error() != "telegram: HTTP 401: permanent failure (Unauthorized)" || !errors.Is(err, ErrPermanent) {
		t.Fatalf("err %v", err)
	}
	srv.Close()
	err = tg.Send(t.Context(), Event{Kind: KindStart, Text: "x"}, 0)
	if err == nil || strings.Contains(err.Error(), token) || errors.Is(err, ErrPermanent) {
		t.Fatalf("transport error %v", err)
	}
}

func TestRetriesWithBackoff(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls <= 3 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	wh, err := NewWebhook(srv.URL, "s3cret", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	clock := newStepClock()
	n, err := New(Options{Clock: clock, Backoff: 2 * time.Second, Attempts: 5}, wh)
	if err != nil {
		t.Fatal(err)
	}
	n.Notify(Event{Kind: KindStart, Text: "bot starting"})
	closeNotifier(t, n)
	if calls != 4 {
		t.Fatalf("calls %d, want 4", calls)
	}
	if w := clock.recorded(); !slices.Equal(w, []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second}) {
		t.Fatalf("backoff waits %v", w)
	}
	if st := n.Stats()["webhook"]; st != (Stats{Sent: 1, Retries: 3}) {
		t.Fatalf("stats %+v", st)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	wh, _ := NewWebhook(srv.URL, "s3cret", srv.Client())
	clock := newStepClock()
	n, _ := New(Options{Clock: clock, Attempts: 3}, wh)
	n.Notify(Event{Kind: KindStart, Text: "bot starting"})
	closeNotifier(t, n)
	if calls != 3 || !slices.Equal(clock.recorded(), []time.Duration{time.Second, 2 * time.Second}) {
		t.Fatalf("calls %d, waits %v", calls, clock.recorded())
	}
	if st := n.Stats()["webhook"]; st != (Stats{Failed: 1, Retries: 2}) {
		t.Fatalf("stats %+v", st)
	}
}

func TestDedupCountsRepeats(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	sink := &recordSink{}
	n, _ := New(Options{Clock: clock, DedupWindow: time.Minute}, sink)
	refused := Event{Kind: KindRefusals, Instance: "sma", Text: "5 orders refused (max-open-orders)"}
	n.Notify(refused)
	clock.advance(10 * time.Second)
	n.Notify(refused)
	n.Notify(refused)
	n.Notify(Event{Kind: KindRefusals, Instance: "dca", Text: refused.Text}) // another instance: not a repeat
	clock.advance(50 * time.Second)                                          // a minute after the first
	n.Notify(refused)
	clock.advance(30 * time.Second)
	n.Notify(refused) // within the window of the last one sent
	closeNotifier(t, n)
	want := []string{
		"refusals [sma]: 5 orders refused (max-open-orders)",
		"refusals [dca]: 5 orders refused (max-open-orders)",
		"refusals [sma]: 5 orders refused (max-open-orders)\n(2 more like this suppressed)",
	}
	if got := sink.sent(); !slices.Equal(got, want) {
		t.Fatalf("sent\n got %q\nwant %q", got, want)
	}
	if st := n.Stats()["record"]; st != (Stats{Sent: 3, Suppressed: 3}) {
		t.Fatalf("stats %+v", st)
	}
}

func TestRateLimitPerMinute(t *testing.T) {
	t.Parallel()
	clock := newStepClock()
	sink := &recordSink{}
	n, _ := New(Options{Clock: clock, RatePerMinute: 2}, sink)
	for _, text := range []string{"a", "b", "c", "d", "e"} {
		n.Notify(Event{Kind: KindFill, Text: text})
	}
	closeNotifier(t, n)
	if got := sink.sent(); !slices.Equal(got, []string{"fill: a", "fill: b", "fill: c", "fill: d", "fill: e"}) {
		t.Fatalf("sent %q", got)
	}
	// Two sends, then a wait for the first minute to end, two more, a
	// second minute's wait, the last.
	if w := clock.recorded(); !slices.Equal(w, []time.Duration{time.Minute, time.Minute}) {
		t.Fatalf("waits %v", w)
	}
}

func TestFullQueueDropsOldestWithoutBlocking(t *testing.T) {
	t.Parallel()
	sink := &recordSink{gate: make(chan struct{}), seen: make(chan string, 16)}
	n, _ := New(Options{Clock: newStepClock(), Queue: 2, DedupWindow: -1}, sink)
	n.Notify(Event{Kind: KindFill, Text: "0"})
	if first := <-sink.seen; first != "0" {
		t.Fatalf("first send %q", first)
	}
	// The sink is stuck on "0": nine more events must return at once.
	done := make(chan struct{})
	go func() {
		for i := 1; i <= 9; i++ {
			n.Notify(Event{Kind: KindFill, Text: strconv.Itoa(i)})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Notify blocked on a full queue")
	}
	if st := n.Stats()["record"]; st != (Stats{Dropped: 7}) {
		t.Fatalf("stats while stuck %+v", st)
	}
	close(sink.gate)
	closeNotifier(t, n)
	if got := sink.sent(); !slices.Equal(got, []string{"fill: 0", "fill: 8", "fill: 9"}) {
		t.Fatalf("sent %q", got)
	}
	if st := n.Stats()["record"]; st != (Stats{Sent: 3, Dropped: 7}) {
		t.Fatalf("stats %+v", st)
	}
}

func TestCloseGivesUpAtItsDeadline(t *testing.T) {
	t.Parallel()
	sink := &recordSink{gate: make(chan struct{}), seen: make(chan string, 4)}
	n, _ := New(Options{Clock: newStepClock()}, sink)
	n.Notify(Event{Kind: KindStop, Text: "bot stopped"})
	<-sink.seen
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	go func() { <-ctx.Done(); close(sink.gate) }()
	if err := n.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: %v", err)
	}
	n.Notify(Event{Kind: KindStop, Text: "after close"})
	if st := n.Stats()["record"]; st.Sent+st.Failed != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestDedupTellsFieldsApart(t *testing.T) {
	t.Parallel()
	sink := &recordSink{}
	n, _ := New(Options{Clock: newStepClock()}, sink)
	for _, id := range []string{"7", "8", "8"} {
		n.Notify(Event{Kind: KindFill, Instance: "grid", Text: "BUY 0.1 ETHUSDT at 480", Fields: map[string]string{"trade_id": id}})
	}
	closeNotifier(t, n)
	want := []string{"fill [grid]: BUY 0.1 ETHUSDT at 480\ntrade_id: 7", "fill [grid]: BUY 0.1 ETHUSDT at 480\ntrade_id: 8"}
	if got := sink.sent(); !slices.Equal(got, want) {
		t.Fatalf("sent %q", got)
	}
}

func TestSinksNeverPrintSecrets(t *testing.T) {
	t.Parallel()
	tg, _ := NewTelegram("", "555:token-value", "42", nil)
	wh, _ := NewWebhook("https://example.com/h", "secret-value", nil)
	got := fmt.Sprintf("%v %+v %#v %s | %v %+v %#v %s", tg, tg, tg, tg, wh, wh, wh, wh)
	want := "telegram:42 telegram:42 telegram:42 telegram:42 | webhook https://example.com/h webhook https://example.com/h webhook https://example.com/h webhook https://example.com/h"
	if got != want {
		t.Fatalf("printed %q", got)
	}
}
