package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/store"
)

func TestForBot(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "bot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	status := func(off time.Duration) func() daemon.Status {
		return func() daemon.Status {
			s := fixture()
			s.ClockOffset = off
			return s
		}
	}
	live := &config.Config{Mode: config.ModeLive, Exchange: config.Exchange{MaxClockOffset: time.Second}}
	replay := &config.Config{Mode: config.ModePaperReplay}
	tests := []struct {
		name   string
		cfg    *config.Config
		client ServerTimer
		status func() daemon.Status
		code   int
		body   string
	}{
		{"live ready", live, serverTime{}, status(200 * time.Millisecond), http.StatusOK,
			`{"ready":true,"failed":[],"checks":[{"name":"exchange","ok":true},{"name":"clock","ok":true},{"name":"store","ok":true}]}`},
		{"live clock off", live, serverTime{}, status(-3 * time.Second), http.StatusServiceUnavailable,
			`{"ready":false,"failed":["clock"],"checks":[{"name":"exchange","ok":true},{"name":"clock","ok":false,"error":"clock offset -3s is beyond 1s"},{"name":"store","ok":true}]}`},
		{"live banned", live, serverTime{}, func() daemon.Status {
			s := fixture()
			s.BannedUntil = time.Date(2024, 1, 2, 0, 2, 0, 0, time.UTC)
			return s
		}, http.StatusServiceUnavailable,
			`{"ready":false,"failed":["exchange"],"checks":[{"name":"exchange","ok":false,"error":"the exchange banned this IP (HTTP 418) until 2024-01-02T00:02:00Z"},{"name":"clock","ok":true},{"name":"store","ok":true}]}`},
		{"replay", replay, nil, status(0), http.StatusOK,
			`{"ready":true,"failed":[],"checks":[{"name":"store","ok":true}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := ForBot(tc.status, tc.cfg, tc.client, st)
			if err != nil {
				t.Fatal(err)
			}
			srv := serve(t, opts)
			code, _, body := get(t, srv.URL+"/readyz")
			var compact bytes.Buffer
			if err := json.Compact(&compact, []byte(body)); err != nil {
				t.Fatal(err)
			}
			if code != tc.code || compact.String() != tc.body {
				t.Errorf("%d %s\nwant %d %s", code, compact.String(), tc.code, tc.body)
			}
		})
	}
	// The probe wrote its row, stamped with the bot's clock.
	st2, ok, err := st.State(t.Context(), probeKey)
	if err != nil || !ok || string(st2.Data) != "2024-01-02T00:00:00Z" || st2.Version != 4 {
		t.Errorf("probe row %+v %v %v", st2, ok, err)
	}
	if _, err := ForBot(status(0), live, nil, st); err == nil || err.Error() != "obs: live mode needs the exchange client for its readiness check" {
		t.Errorf("live without a client: %v", err)
	}
}

type failingStore struct{}

func (failingStore) Check(context.Context) error { return nil }

func (failingStore) SaveState(context.Context, string, []byte) error {
	return errors.New("attempt to write a readonly database")
}

// The store check fails once the store's file is deleted, though the
// write probe still succeeds (into the deleted file).
func TestForBotStoreLost(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bot.db")
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts, err := ForBot(fixture, &config.Config{Mode: config.ModePaperReplay}, nil, st)
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, opts)
	if code, _, body := get(t, srv.URL+"/readyz"); code != http.StatusOK {
		t.Fatalf("before: %d %s", code, body)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	code, _, body := get(t, srv.URL+"/readyz")
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(body)); err != nil {
		t.Fatal(err)
	}
	want := `{"ready":false,"failed":["store"],"checks":[{"name":"store","ok":false,"error":"store ` + path + `: the database file was lost: the file was deleted"}]}`
	if code != http.StatusServiceUnavailable || compact.String() != want {
		t.Errorf("%d %s\nwant 503 %s", code, compact.String(), want)
	}
}

func TestForBotStoreFailure(t *testing.T) {
	t.Parallel()
	opts, err := ForBot(fixture, &config.Config{Mode: config.ModePaperReplay}, nil, failingStore{})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, opts)
	code, _, body := get(t, srv.URL+"/readyz")
	want := `{
  "ready": false,
  "failed": [
    "store"
  ],
  "checks": [
    {
      "name": "store",
      "ok": false,
      "error": "store: attempt to write a readonly database"
    }
  ]
}
`
	if code != http.StatusServiceUnavailable || body != want {
		t.Errorf("%d %s", code, body)
	}
}
