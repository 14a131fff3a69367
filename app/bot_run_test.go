package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spotbot/spotbot/internal/procfs"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies"
)

// TestRunConfigsBuild loads each example run configuration, checks what it
// sets, and builds a bot from it (New does no I/O), so none rots.
func TestRunConfigsBuild(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file, mode string
		ids        []string
		check      func(*config.Config) string
	}{
		{"paper.yaml", config.ModePaperReplay, []string{"btc-cross", "eth-grid"}, func(c *config.Config) string {
			return fmt.Sprintf("%s %s %g %s", c.Data.Source, c.Data.Interval, c.Data.Speed, c.Store.Path)
		}},
		{"paper-live.yaml", config.ModePaper, []string{"btc-dca"}, func(c *config.Config) string {
			return fmt.Sprintf("%s %s %s", c.Exchange.BaseURL, c.Poll.KlineDelay, c.Store.Path)
		}},
		{"live.yaml", config.ModeLive, []string{"eth-grid"}, func(c *config.Config) string {
			return fmt.Sprintf("%s %s %s %s %s", c.Exchange.BaseURL, c.Exchange.MaxClockOffset, c.Store.Sync, c.HTTP.Listen, c.Log.Format)
		}},
		{"jobs.yaml", config.ModePaperReplay, []string{"dust", "rebal", "btc-dca"}, func(c *config.Config) string {
			return fmt.Sprintf("%s %s", c.Data.Source, c.Strategies[0].Schedule)
		}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			want := map[string]string{
				"paper.yaml":      "sample 1h 3600 paper.db",
				"paper-live.yaml": "https://api.example.com 2s paper-live.db",
				"live.yaml":       "https://api.example.com 1s full 127.0.0.1:9090 json",
				"jobs.yaml":       "sample 0 3 * * *",
			}[tt.file]
			text, err := configs.FS.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			reg := strategies.NewRegistry()
			c, err := config.Load(text, nil, nil, reg)
			if err != nil {
				t.Fatal(err)
			}
			if c.Mode != tt.mode || tt.check(c) != want {
				t.Fatalf("mode %s, settings %q; want %s, %q", c.Mode, tt.check(c), tt.mode, want)
			}
			if len(c.Strategies) != len(tt.ids) {
				t.Fatalf("%d strategies, want %v", len(c.Strategies), tt.ids)
			}
			for i, id := range tt.ids {
				if c.Strategies[i].ID != id {
					t.Fatalf("strategies[%d].id %q, want %q", i, c.Strategies[i].ID, id)
				}
			}
			if c.Daemon.UnknownOrders != config.UnknownAdopt || c.Daemon.ShutdownTimeout != 10*time.Second || c.Daemon.CancelOnShutdown {
				t.Fatalf("daemon defaults %+v", c.Daemon)
			}
			st, err := store.Open(t.Context(), store.Memory)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			opts := daemon.Options{Config: c, Registry: reg, Store: st, Clock: exchange.SystemClock{}}
			if c.Mode != config.ModePaperReplay {
				if opts.Client, err = exchange.New(exchange.WithBaseURL(c.Exchange.BaseURL)); err != nil {
					t.Fatal(err)
				}
			}
			bot, err := daemon.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			if s := bot.Status(); s.Mode != tt.mode || s.Phase != daemon.PhaseStarting || len(s.Strategies) != len(tt.ids) {
				t.Fatalf("status %+v", s)
			}
		})
	}
}

// TestRunPaperReplay runs `bot run` on configs/paper.yaml at full speed
// into a temporary store: it ends by itself when the data is exhausted,
// every fill is logged once with its instance, symbol and client order id,
// and the log's fills are the store's.
func TestRunPaperReplay(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "paper.db")
	var logs bytes.Buffer
	err := runBotArgs(t.Context(), []string{"--config", filepath.Join("..", "configs", "paper.yaml"), "--speed", "0"}, &logs,
		[]string{"SPOTBOT_STORE__PATH=" + db}, exchange.SystemClock{}, func(int) { t.Error("forced exit") })
	if err != nil {
		t.Fatal(err)
	}
	st := readStore(t, db)
	fills, err := st.FillsSince(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]bool{}
	orderLines := 0
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "msg=order ") || strings.Contains(line, "msg=fill ") || strings.Contains(line, `msg="order done"`) {
			orderLines++
			for _, key := range []string{" instance=", " symbol=", " client_order_id="} {
				if !strings.Contains(line, key) {
					t.Fatalf("order line without%s: %s", key, line)
				}
			}
		}
		if i := strings.Index(line, " trade_id="); i >= 0 && strings.Contains(line, "msg=fill ") {
			logged[line[i+len(" trade_id="):]] = true
		}
	}
	if len(fills) == 0 || len(logged) != len(fills) || orderLines < 2*len(fills) {
		t.Fatalf("%d fills in the store, %d logged, %d order lines", len(fills), len(logged), orderLines)
	}
	for _, f := range fills {
		if !logged[f.TradeID] {
			t.Fatalf("fill %s not logged", f.TradeID)
		}
	}
	for _, want := range []string{"msg=trading", `msg="replay data exhausted"`, `msg="bot stopped"`} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("no %s in the log", want)
		}
	}
}

// TestRunServesStatus: with http.listen set, `bot run` serves /status
// while it trades, and stops on the context's end with a nil error.
func TestRunServesStatus(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "paper.db")
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	result := make(chan error, 1)
	go func() {
		result <- runBotArgs(ctx, []string{"--config", filepath.Join("..", "configs", "paper.yaml")}, pw,
			[]string{"SPOTBOT_STORE__PATH=" + db, "SPOTBOT_HTTP__LISTEN=127.0.0.1:0"}, exchange.SystemClock{}, func(int) { t.Error("forced exit") })
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	addr := ""
	for sc.Scan() && !strings.Contains(sc.Text(), "msg=trading") {
		if a := field(sc.Text(), "addr"); a != "" {
			addr = a
		}
	}
	go io.Copy(io.Discard, pr)
	if addr == "" {
		t.Fatal("no listener address logged")
	}
	resp, err := http.Get("http://" + addr + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Mode       string `json:"mode"`
		Phase      string `json:"phase"`
		Strategies []struct {
			ID string `json:"id"`
		} `json:"strategies"`
	}
	err = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || s.Mode != "paper-replay" || s.Phase != "running" || len(s.Strategies) != 2 || s.Strategies[1].ID != "eth-grid" {
		t.Fatalf("/status: %d %+v (%v)", resp.StatusCode, s, err)
	}
	cancel()
	if err := <-result; err != nil {
		t.Fatal(err)
	}
}

// TestRunHoldsTheJobLocks: while bot run replays configs/jobs.yaml, a
// manual run of one of its scheduled jobs on the same store is refused.
func TestRunHoldsTheJobLocks(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "jobs.db")
	env := []string{"SPOTBOT_STORE__PATH=" + db}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	result := make(chan error, 1)
	go func() {
		result <- runBotArgs(ctx, []string{"--config", jobsConfig, "--speed", "1"}, pw, env, exchange.SystemClock{},
			func(int) { t.Error("forced exit") })
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() && !strings.Contains(sc.Text(), "msg=trading") {
	}
	go io.Copy(io.Discard, pr)
	_, _, err := runJobs(t, env, "run", "dust", "--config", jobsConfig)
	if !errors.Is(err, daemon.ErrJobRunning) || !strings.Contains(err.Error(), "(bot run, pid ") {
		t.Errorf("jobs run beside bot run: %v", err)
	}
	cancel()
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	// Once the bot stopped the job is free again.
	if _, _, err := runJobs(t, env, "run", "dust", "--config", jobsConfig); err != nil {
		t.Errorf("jobs run after bot run: %v", err)
	}
}

// TestRunUsageAndRefusals checks the command's refusals, each with the
// field or flag at fault.
func TestRunUsageAndRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	backtestCfg := filepath.Join("..", "configs", "backtest.yaml")
	liveCfg := filepath.Join("..", "configs", "live.yaml")
	for _, tt := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"no config", nil, nil, "usage: run: --config FILE is required"},
		{"missing file", []string{"--config", filepath.Join(dir, "none.yaml")}, nil, "no such file"},
		{"backtest mode", []string{"--config", backtestCfg}, nil, "mode: backtest configurations run with `backtest run`"},
		{"live without keys", []string{"--config", liveCfg}, []string{"HOME=" + dir}, "exchange.key_file: stat " + filepath.Join(dir, ".config/spotbot/keys")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := runBotArgs(t.Context(), tt.args, io.Discard, tt.env, exchange.SystemClock{}, func(int) {})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v; want %q", err, tt.want)
			}
		})
	}
}

// A zero-length store (a disk filled, a botched copy) stops `bot run`
// with exit status 1 and the reason, instead of trading on an empty store
// that knows none of the open orders.
func TestRunRefusesAnEmptyStore(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "paper.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := runBotArgs(t.Context(), []string{"--config", filepath.Join("..", "configs", "paper.yaml"), "--speed", "0"}, io.Discard,
		[]string{"SPOTBOT_STORE__PATH=" + db}, exchange.SystemClock{}, func(int) { t.Error("forced exit") })
	want := "store.path: store: open " + db + ": not a SQLite database or corrupt: the file is empty (zero length); " +
		"SQLite would start it as a new, empty store. Restore it from a backup, or remove it to start afresh"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v\nwant %s", err, want)
	}
	var out bytes.Buffer
	if code := exitCode("bot", err, &out); code != ExitError || !strings.Contains(out.String(), want) {
		t.Errorf("exit %d, %q", code, out.String())
	}
}

// TestSecondSignalForcesExit: after the first signal ended the context, a
// second one exits at once; a run that finishes first exits normally.
func TestSecondSignalForcesExit(t *testing.T) {
	t.Parallel()
	for _, second := range []bool{true, false} {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		sig := make(chan os.Signal, 1)
		notified := make(chan struct{})
		exited := make(chan int, 1)
		finished := make(chan struct{})
		go func() {
			forceOnSecondSignal(ctx, done, slog.New(slog.DiscardHandler), func() (<-chan os.Signal, func()) {
				close(notified)
				return sig, func() {}
			}, func(code int) { exited <- code })
			close(finished)
		}()
		cancel() // the first signal
		<-notified
		if second {
			sig <- syscall.SIGTERM
		} else {
			close(done)
		}
		<-finished
		select {
		case code := <-exited:
			if !second || code != ExitError {
				t.Fatalf("second=%v: exit %d", second, code)
			}
		default:
			if second {
				t.Fatal("a second signal did not force the exit")
			}
		}
	}
}

// The footprint test runs the bot as a child process (this test binary,
// re-executed) against a local simulated server, so the parent can read
// its resident memory.
const childEnv = "BOT_RUN_TEST_CHILD" // not SPOTBOT_: that prefix is configuration

// TestRunChild is the child's body; it is skipped in a normal test run.
func TestRunChild(t *testing.T) {
	cfg := os.Getenv(childEnv)
	if cfg == "" {
		t.Skip("run by TestRunIdleFootprint")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := runBotArgs(ctx, []string{"--config", cfg}, os.Stderr, os.Environ(), exchange.SystemClock{}, os.Exit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child error:", err)
		os.Exit(3)
	}
}

// TestRunIdleFootprint measures `bot run` in live mode with three
// strategies on three symbols against the local simulated server: the time
// from start to the first market-data poll (warm-up loaded, strategies
// started) and the resident memory once idle; then SIGTERM ends it with
// exit status 0. The figures are logged; the targets (1 s, 60 MB)
// are reported by the test, not timed against.
func TestRunIdleFootprint(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read the child's memory")
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	url := footprintServer(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "run.yaml")
	text := fmt.Sprintf(`mode: live
exchange: {base_url: %q}
store: {path: %q}
log: {level: info}
strategies:
  - {name: smacross, id: btc-cross, symbols: [BTCUSDT], interval: 1h, params: {fast: 10, slow: 30, fraction: 0.5}}
  - {name: grid, id: eth-grid, symbols: [ETHUSDT], interval: 1h, params: {lower: 400, upper: 560, levels: 9, quantity: 0.1}}
  - {name: dca, id: sol-dca, symbols: [SOLUSDT], interval: 1h, schedule: "0 9 * * MON", params: {amount: 25}}
`, url, filepath.Join(dir, "live.db"))
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+cfg, "SPOTBOT_API_KEY="+footprintKey, "SPOTBOT_API_SECRET="+footprintSecret)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var log []string
	wait := func(what string) string {
		deadline := time.After(60 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the child ended before %q:\n%s", what, strings.Join(log, "\n"))
				}
				log = append(log, l)
				if strings.Contains(l, what) {
					return l
				}
			case <-deadline:
				t.Fatalf("no %q within 60 s:\n%s", what, strings.Join(log, "\n"))
			}
		}
	}
	trading := wait("msg=trading")
	sinceStart := field(trading, "since_start")
	processToTrading := time.Since(start)
	time.Sleep(2 * time.Second) // idle: no bar closes within the hour
	rss, hwm := procMemory(t, cmd.Process.Pid)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wait(`msg="bot stopped"`)
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, strings.Join(log, "\n"))
	}
	t.Logf("start to first poll (in the bot): %s; process start to trading: %s; idle RSS %d KiB (peak %d KiB), three strategies on three symbols",
		sinceStart, processToTrading.Round(time.Millisecond), rss, hwm)
	if d, err := time.ParseDuration(sinceStart); err != nil || d <= 0 {
		t.Fatalf("since_start %q", sinceStart)
	}
	// The grid laid its nine levels as it started; nothing went wrong.
	gridOrders := 0
	for _, l := range log {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			t.Fatalf("child logged: %s", l)
		}
		if strings.Contains(l, "msg=order instance=eth-grid") {
			gridOrders++
		}
	}
	if gridOrders != 9 {
		t.Fatalf("%d grid orders logged, want 9:\n%s", gridOrders, strings.Join(log, "\n"))
	}
}

// field returns the value of key=value in a text log line.
func field(line, key string) string {
	i := strings.Index(line, " "+key+"=")
	if i < 0 {
		return ""
	}
	v := line[i+len(key)+2:]
	if j := strings.IndexByte(v, ' '); j >= 0 {
		v = v[:j]
	}
	return v
}

// procMemory returns a process's resident and peak resident memory in KiB.
func procMemory(t *testing.T, pid int) (rss, hwm int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := procfs.Parse(b, "VmRSS")
	h, _ := procfs.Parse(b, "VmHWM")
	return int(r), int(h)
}

const (
	footprintKey    = "mx0vglFootprint01"
	footprintSecret = "0123456789abcdef0123456789abcdef"
)

// footprintServer serves BTCUSDT, ETHUSDT and SOLUSDT (ETHUSDT's bars at a
// tenth of the price) with the sample's last 200 hourly bars retimed to end
// at the last closed hour, on the wall clock.
func footprintServer(t *testing.T) string {
	t.Helper()
	now := time.Now().UTC()
	end := now.Truncate(time.Hour)
	data := map[string][]exchange.Kline{}
	for _, sym := range []string{"BTCUSDT", "ETHUSDT"} {
		ks, err := marketdata.Sample(sym)
		if err != nil {
			t.Fatal(err)
		}
		ks = ks[:200]
		for i := range ks {
			ks[i].OpenTime = end.Add(time.Duration(i-200) * time.Hour)
			ks[i].CloseTime = ks[i].OpenTime.Add(time.Hour - time.Millisecond)
		}
		data[sym] = ks
	}
	tenth := decimal.New(1, -1)
	for _, k := range data["ETHUSDT"] {
		k.Open, k.High, k.Low, k.Close = k.Open.Mul(tenth), k.High.Mul(tenth), k.Low.Mul(tenth), k.Close.Mul(tenth)
		data["SOLUSDT"] = append(data["SOLUSDT"], k)
	}
	var rules []exchange.SymbolInfo
	for _, sym := range []string{"BTCUSDT", "ETHUSDT", "SOLUSDT"} {
		r, err := session.DefaultRules(sym, data[sym])
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
	}
	x, err := sim.New(sim.Options{Start: data["BTCUSDT"][0].OpenTime, Symbols: rules})
	if err != nil {
		t.Fatal(err)
	}
	for a, v := range map[string]int64{"USDT": 20000, "ETH": 5, "SOL": 50} {
		if err := x.Credit(x.MasterUID(), a, decimal.NewFromInt(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := simserver.FeedAll(x, data, exchange.Interval60m); err != nil {
		t.Fatal(err)
	}
	x.SetTime(now)
	srv, err := simserver.New(x, simserver.Options{Clock: exchange.SystemClock{},
		Keys: []simserver.Key{{APIKey: footprintKey, Secret: footprintSecret, UID: x.MasterUID(), Main: true, Permissions: simserver.AllPermissions()}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}
