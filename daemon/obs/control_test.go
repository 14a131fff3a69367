package obs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/daemon"
)

const testToken = "0123456789abcdef-test"

// fakeControl answers like the bot: pause works, force-exit is refused,
// run never reaches the loop.
func fakeControl(got *[]daemon.Action) Controller {
	return func(ctx context.Context, a daemon.Action) (daemon.ActionResult, error) {
		*got = append(*got, a)
		switch a.Name {
		case daemon.ActionPause:
			return daemon.ActionResult{Details: "paused"}, nil
		case daemon.ActionCancel:
			return daemon.ActionResult{Details: "2 orders cancelled", Orders: []string{"g-1", "g-2"}}, nil
		case daemon.ActionForceExit:
			return daemon.ActionResult{}, errors.New("strategy g: no BTCUSDT to sell (position 0)")
		case daemon.ActionRun:
			<-ctx.Done()
			return daemon.ActionResult{}, fmt.Errorf("daemon: run g: the bot did not take it in time: %w", ctx.Err())
		}
		return daemon.ActionResult{}, fmt.Errorf("daemon: action %q: %w", a.Name, daemon.ErrUnknownAction)
	}
}

func TestControlAPI(t *testing.T) {
	t.Parallel()
	var got []daemon.Action
	h, err := New(Options{Status: func() daemon.Status { return daemon.Status{} }, Control: fakeControl(&got),
		ControlToken: testToken, ControlTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, method, path, auth string
		code                     int
		body                     string
	}{
		{"no token", "POST", "/control/g/pause", "", 401, `{"ok":false,"error":"missing bearer token"}`},
		{"not bearer", "POST", "/control/g/pause", "Basic " + testToken, 401, `{"ok":false,"error":"missing bearer token"}`},
		{"wrong token", "POST", "/control/g/pause", "Bearer " + testToken + "x", 401, `{"ok":false,"error":"invalid bearer token"}`},
		{"pause", "POST", "/control/g/pause", "Bearer " + testToken, 200, `{"action":"pause","instance":"g","ok":true,"details":"paused"}`},
		{"cancel", "POST", "/control/g/cancel", "Bearer " + testToken, 200,
			`{"action":"cancel","instance":"g","ok":true,"details":"2 orders cancelled","orders":["g-1","g-2"]}`},
		{"force exit refused", "POST", "/control/g/force-exit?symbol=BTCUSDT", "Bearer " + testToken, 409,
			`{"action":"force-exit","instance":"g","ok":false,"error":"strategy g: no BTCUSDT to sell (position 0)"}`},
		{"unknown action", "POST", "/control/g/explode", "Bearer " + testToken, 404,
			`{"action":"explode","instance":"g","ok":false,"error":"daemon: action \"explode\": unknown action (pause, resume, cancel, force-exit, run, reload)"}`},
		{"timeout", "POST", "/control/g/run?job=daily", "Bearer " + testToken, 504,
			`{"action":"run","instance":"g","ok":false,"error":"daemon: run g: the bot did not take it in time: context deadline exceeded"}`},
		{"GET", "GET", "/control/g/pause", "Bearer " + testToken, 405, "Method Not Allowed"},
	} {
		req := httptest.NewRequest(tt.method, tt.path, nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		body, _ := io.ReadAll(w.Body)
		compact := strings.Join(strings.Fields(string(body)), "")
		want := strings.Join(strings.Fields(tt.body), "")
		if w.Code != tt.code || compact != want {
			t.Errorf("%s: %d %s\nwant %d %s", tt.name, w.Code, body, tt.code, tt.body)
		}
		if tt.code == 401 && w.Header().Get("WWW-Authenticate") != `Bearer realm="spotbot"` {
			t.Errorf("%s: WWW-Authenticate %q", tt.name, w.Header().Get("WWW-Authenticate"))
		}
	}
	if s := fmt.Sprint(got); s != "[{pause g   } {cancel g   } {force-exit g BTCUSDT  } {explode g   } {run g  daily }]" {
		t.Errorf("actions %s", s)
	}
}

func TestControlOffWithoutToken(t *testing.T) {
	t.Parallel()
	var got []daemon.Action
	h, err := New(Options{Status: func() daemon.Status { return daemon.Status{} }, Control: fakeControl(&got)})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/control/g/pause", nil)
	req.Header.Set("Authorization", "Bearer ")
	h.ServeHTTP(w, req)
	if w.Code != http.StatusNotFound || len(got) != 0 {
		t.Errorf("%d, actions %v", w.Code, got)
	}
	if _, err := New(Options{Status: func() daemon.Status { return daemon.Status{} }, Control: fakeControl(&got), ControlToken: "short"}); err == nil ||
		err.Error() != "obs: the control token must be at least 16 characters" {
		t.Errorf("short token: %v", err)
	}
}
