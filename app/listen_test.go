package app

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
)

func TestStartListener(t *testing.T) {
	t.Parallel()
	text, err := configs.FS.ReadFile("paper.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg := strategies.NewRegistry()
	cfg, err := config.Load(text, nil, map[string]any{"http.listen": "127.0.0.1:0"}, reg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), store.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bot, err := daemon.New(daemon.Options{Config: cfg, Registry: reg, Store: st, Clock: exchange.SystemClock{}})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	stop, err := startListener(cfg, bot, nil, st, slog.New(slog.NewTextHandler(&logs, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`msg="observability listener" addr=(127\.0\.0\.1:\d+)`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no address logged: %s", logs.String())
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for path, want := range map[string]int{"/healthz": 200, "/status": 200, "/readyz": 200} {
		resp, err := client.Get("http://" + m[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	stop()
	if _, err := client.Get("http://" + m[1] + "/healthz"); err == nil {
		t.Error("still serving after stop")
	}

	// Off when http.listen is empty; a bad address fails before trading.
	cfg.HTTP.Listen = ""
	stop, err = startListener(cfg, bot, nil, st, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	cfg.HTTP.Listen = "127.0.0.1:http-metrics"
	if _, err := startListener(cfg, bot, nil, st, slog.New(slog.DiscardHandler), nil); err == nil ||
		!regexp.MustCompile(`^http\.listen: listen tcp: lookup tcp/http-metrics`).MatchString(err.Error()) {
		t.Errorf("bad address: %v", err)
	}
}
