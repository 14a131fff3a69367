package app

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/netlimit"
	"github.com/spotbot/spotbot/netlimit/netlimittest"
	"github.com/spotbot/spotbot/strategies"
)

// startSimRun serves the embedded sim-server configuration (no replay)
// with lim on both listeners and returns the API and admin addresses.
func startSimRun(t *testing.T, lim netlimit.Limits) (api, admin string) {
	t.Helper()
	text, err := configs.FS.ReadFile("sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"SPOTBOT_SIM_SECRET=" + testSimSecret}
	cfg, err := loadConfigText(strategies.NewRegistry(), simServerCmd, "sim.yaml", text, env, map[string]any{"data.source": "none"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run, err := buildSimServer(ctx, cfg, env)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	run.limits = lim
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run.serve(ctx, "127.0.0.1:0", "127.0.0.1:0", env, pw)
		pw.Close()
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		l := sc.Text()
		if a, ok := strings.CutPrefix(l, "sim-server: listening on http://"); ok {
			api = a
		}
		if a, ok := strings.CutPrefix(l, "sim-server: admin API on http://"); ok {
			admin, _, _ = strings.Cut(a, " ")
		}
		if strings.Contains(l, "no klines") {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if api == "" || admin == "" {
		t.Fatalf("addresses %q %q", api, admin)
	}
	return api, admin
}

// The API and admin listeners of `bot sim-server` close stalled and idle
// clients and bound their connections (netlimittest). Before, both had
// only a 10 s header timeout: a stalled body or an idle keep-alive
// connection stayed open for ever, and any number could be held.
func TestSimServerListenerBounds(t *testing.T) {
	t.Parallel()
	t.Run("api", func(t *testing.T) {
		t.Parallel()
		netlimittest.Run(t, func(t *testing.T, lim netlimit.Limits) string {
			api, _ := startSimRun(t, lim)
			return api
		}, "/api/v3/ping")
	})
	t.Run("admin", func(t *testing.T) {
		t.Parallel()
		netlimittest.Run(t, func(t *testing.T, lim netlimit.Limits) string {
			_, admin := startSimRun(t, lim)
			return admin
		}, "/admin/state")
	})
}
