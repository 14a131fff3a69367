package exchange

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The facts file's signing credentials; every signed test uses them.
const (
	testKey    = "mx0aBYs33eIilxBWC5"
	testSecret = "45d0b3c26f2644f19bfb98b07741b2f5"
	testMillis = 1644489390087
)

// testNow is the fixed clock of endpoint tests: every signed request carries
// timestamp=1644489390087.
var testNow = time.UnixMilli(testMillis)

// fakeClock is a settable clock. After advances the clock by d and fires at
// once, so code that waits on it runs without real sleeps.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.Advance(d)
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

// endpointsTested records which endpoints an httptest handler served, so
// TestMain can prove every endpoint has a test.
var endpointsTested sync.Map

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		var missing []string
		for _, e := range Endpoints() {
			if _, ok := endpointsTested.Load(e.ID); !ok {
				missing = append(missing, e.String())
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			fmt.Fprintf(os.Stderr, "FAIL: endpoints without an httptest test:\n  %s\n", strings.Join(missing, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

// setup starts a test server and returns a client for it with the facts
// file's credentials, the fixed clock and no client-side budgets.
func setup(t *testing.T, opts ...Option) (*Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := []Option{
		WithBaseURL(srv.URL),
		WithCredentials(NewSecret(testKey), NewSecret(testSecret)),
		WithClock(newFakeClock(testNow)),
		WithLimits(nil),
	}
	c, err := New(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, mux
}

// handle serves ep's method and path on mux with f after checking the
// Content-Type header, and records that ep has a test.
func handle(t *testing.T, mux *http.ServeMux, id EndpointID, f http.HandlerFunc) {
	t.Helper()
	ep, ok := Lookup(id)
	if !ok {
		t.Fatalf("unknown endpoint %d", id)
	}
	// The pattern carries the method, so endpoints sharing a path get their
	// own handlers and a wrong method is answered 405.
	mux.HandleFunc(ep.Method+" "+ep.Path, func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("%s: Content-Type %q, want application/json", ep.Name, got)
		}
		endpointsTested.Store(id, true)
		f(w, r)
	})
}

// hmacHex is an independent HMAC-SHA256 used to check signatures.
func hmacHex(secret, msg string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

// wantSigned checks a signed request: the raw query is exactly params
// followed by the signature of params under the test secret, the key header
// carries the test key, and the body is empty. params must end with
// "timestamp=1644489390087" (after recvWindow when the client sets one).
func wantSigned(t *testing.T, r *http.Request, params string) {
	t.Helper()
	want := params + "&signature=" + hmacHex(testSecret, params)
	if r.URL.RawQuery != want {
		t.Errorf("query:\n got %s\nwant %s", r.URL.RawQuery, want)
	}
	if got := r.Header.Get(DefaultKeyHeader); got != testKey {
		t.Errorf("key header %q, want %q", got, testKey)
	}
	wantEmptyBody(t, r)
}

// wantPublic checks a public request: the raw query is exactly params, with
// no key header and no signature.
func wantPublic(t *testing.T, r *http.Request, params string) {
	t.Helper()
	if r.URL.RawQuery != params {
		t.Errorf("query:\n got %s\nwant %s", r.URL.RawQuery, params)
	}
	if got := r.Header.Get(DefaultKeyHeader); got != "" {
		t.Errorf("public endpoint sent key header %q", got)
	}
	wantEmptyBody(t, r)
}

func wantEmptyBody(t *testing.T, r *http.Request) {
	t.Helper()
	b, _ := io.ReadAll(r.Body)
	if len(b) != 0 {
		t.Errorf("body %q, want empty", b)
	}
}

// reply writes a JSON reply.
func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// ts is the signed-params suffix for the fixed clock.
const ts = "timestamp=1644489390087"

// noCall fails the test if the server is reached (for validation tests).
func noCall(t *testing.T, mux *http.ServeMux) {
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request sent to %s despite invalid arguments", r.URL.Path)
		reply(w, 500, `{}`)
	})
}
