package exchange

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestClockOffset(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	handle(t, mux, EpTime, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, fmt.Sprintf(`{"serverTime":%d}`, testMillis+1500))
	})
	handle(t, mux, EpUID, func(w http.ResponseWriter, r *http.Request) {
		wantSigned(t, r, fmt.Sprintf("timestamp=%d", testMillis+1500))
		reply(w, 200, `{"uid":"1"}`)
	})
	off, err := c.SyncTime(t.Context())
	if err != nil || off != 1500*time.Millisecond || c.ClockOffset() != off {
		t.Fatalf("SyncTime = %s, %v", off, err)
	}
	if _, err := c.Spot.UID(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestResyncOn700003(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	var syncs, calls atomic.Int32
	handle(t, mux, EpTime, func(w http.ResponseWriter, r *http.Request) {
		syncs.Add(1)
		reply(w, 200, fmt.Sprintf(`{"serverTime":%d}`, testMillis+3000))
	})
	handle(t, mux, EpUID, func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if n == 1 {
			wantSigned(t, r, ts)
			reply(w, 400, `{"code":700003,"msg":"Timestamp for this request is outside of the recvWindow."}`)
			return
		}
		// The retry carries the corrected timestamp and a fresh signature.
		wantSigned(t, r, fmt.Sprintf("timestamp=%d", testMillis+3000))
		reply(w, 200, `{"uid":"77"}`)
	})
	uid, err := c.Spot.UID(t.Context())
	if err != nil || uid != "77" || syncs.Load() != 1 || calls.Load() != 2 {
		t.Fatalf("UID = %q, %v; syncs %d calls %d", uid, err, syncs.Load(), calls.Load())
	}
	// A second 700003 after the resync is returned, not looped on.
	c2, mux2 := setup(t)
	handle(t, mux2, EpTime, func(w http.ResponseWriter, r *http.Request) { reply(w, 200, `{"serverTime":1644489390087}`) })
	calls.Store(0)
	handle(t, mux2, EpUID, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		reply(w, 400, `{"code":700003,"msg":"outside recvWindow"}`)
	})
	if _, err := c2.Spot.UID(t.Context()); !HasCode(err, CodeTimestampOutsideWindow) || calls.Load() != 2 {
		t.Fatalf("second 700003: %v after %d calls", err, calls.Load())
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		opts []Option
		want string
	}{
		{nil, "exchange: base URL is required (WithBaseURL)"},
		{[]Option{WithBaseURL("ftp://x")}, `exchange: base URL "ftp://x": scheme must be http or https`},
		{[]Option{WithBaseURL("http://")}, `exchange: base URL "http://": no host`},
		{[]Option{WithBaseURL("http://x?a=1")}, `exchange: base URL "http://x?a=1": must not have a query or fragment`},
		{[]Option{WithBaseURL("http://x"), WithRecvWindow(60 * time.Second)}, "exchange: recvWindow 1m0s: must be whole milliseconds, at least 0 and below 1m0s"},
		{[]Option{WithBaseURL("http://x"), WithTimeout(-1)}, "exchange: timeout -1ns: must be positive"},
		{[]Option{WithBaseURL("http://x"), WithHTTPClient(nil)}, "exchange: HTTP client: nil"},
		{[]Option{WithBaseURL("http://x"), WithClock(nil)}, "exchange: clock: nil"},
		{[]Option{WithBaseURL("http://x"), WithLogger(nil)}, "exchange: logger: nil"},
		{[]Option{WithBaseURL("http://x"), WithKeyHeader("")}, `exchange: key header "": not a valid header name`},
		{[]Option{WithBaseURL("http://x"), WithBudgetMode(9)}, "exchange: budget mode 9: unknown"},
		{[]Option{WithBaseURL("http://x"), WithCredentials(NewSecret("k"), Secret{})}, "exchange: credentials: key and secret must both be set"},
		{[]Option{WithBaseURL("http://x"), WithLimits([]Limit{{PoolIP, -1, time.Second}})}, "exchange: budget: pool ip: max and window must be positive"},
	}
	for _, tt := range tests {
		_, err := New(tt.opts...)
		if err == nil || err.Error() != tt.want {
			t.Errorf("New = %v, want %q", err, tt.want)
		}
	}
}

func TestSignedWithoutCredentialsAndCustomHeader(t *testing.T) {
	t.Parallel()
	c, mux := setup(t)
	noCall(t, mux)
	anon, _ := New(WithBaseURL(c.base.String()), WithLimits(nil))
	_, err := anon.Spot.UID(t.Context())
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "credentials" {
		t.Fatalf("no credentials: %v", err)
	}
	c2, mux2 := setup(t, WithKeyHeader("X-OTHER-KEY"))
	handle(t, mux2, EpUID, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-other-key") != testKey || r.Header.Get(DefaultKeyHeader) != "" {
			t.Errorf("headers %v", r.Header)
		}
		reply(w, 200, `{"uid":"1"}`)
	})
	if _, err := c2.Spot.UID(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestSecretsNeverPrint(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	for _, h := range []slog.Handler{
		slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
		slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
	} {
		c, mux := setup(t, WithLogger(slog.New(h)))
		handle(t, mux, EpAccount, func(w http.ResponseWriter, r *http.Request) { reply(w, 401, `{"code":10072,"msg":"invalid key"}`) })
		handle(t, mux, EpNewOrder, func(w http.ResponseWriter, r *http.Request) { reply(w, 503, `busy`) })
		_, err1 := c.Spot.Account(t.Context())
		_, err2 := c.Spot.NewOrder(t.Context(), limitOrder())
		slog.New(h).Info("client", "client", c, "key", c.key)
		holder := struct {
			Name string
			S    Secret
		}{"x", NewSecret(testSecret)}
		out := []string{
			fmt.Sprintf("%v %+v %#v %s", c, c, c, c),
			fmt.Sprintf("%v %+v %#v %s", holder, holder, holder, holder.S), err1.Error(), err2.Error(), logs.String(),
		}
		if b, _ := holder.S.MarshalJSON(); string(b) != `"REDACTED"` {
			t.Errorf("MarshalJSON = %s", b)
		}
		for _, s := range out {
			if strings.Contains(s, testSecret) || strings.Contains(s, testKey) {
				t.Errorf("credentials printed: %.200s", s)
			}
		}
	}
	if !strings.Contains(logs.String(), "newOrder") {
		t.Errorf("debug log missing request lines: %.200s", logs.String())
	}
}
