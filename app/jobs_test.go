package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
)

const jobsConfig = "../configs/jobs.yaml"

// dustBars writes hourly CSV bars in which configs/jobs.yaml's account
// holds dust: 0.1 BTC at 40 USDT is 4 USDT, 1 ETH at 3 USDT is 3 USDT,
// both below the simulator's 5 USDT threshold, and the token trades at 2.
func dustBars(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for sym, close := range map[string]string{"BTCUSDT": "40", "ETHUSDT": "3", "TOKUSDT": "2"} {
		var b strings.Builder
		b.WriteString("open_time_ms,open,high,low,close,volume\n")
		for i := range 3 {
			open := time.Date(2024, 6, 1, i, 0, 0, 0, time.UTC).UnixMilli()
			fmt.Fprintf(&b, "%d,%s,%s,%s,%s,10\n", open, close, close, close, close)
		}
		if err := os.WriteFile(filepath.Join(dir, sym+"-1h.csv"), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runJobs(t *testing.T, environ []string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := jobsArgs(t.Context(), args, &out, &errOut, environ, exchange.SystemClock{})
	return out.String(), errOut.String(), err
}

func TestJobsRunDust(t *testing.T) {
	t.Parallel()
	data := dustBars(t)
	db := filepath.Join(t.TempDir(), "jobs.db")
	env := []string{"SPOTBOT_DATA__SOURCE=csv", "SPOTBOT_DATA__PATH=" + data, "SPOTBOT_DATA__CACHE=off", "SPOTBOT_STORE__PATH=" + db}
	out, _, err := runJobs(t, env, "run", "dust", "--config", jobsConfig)
	if err != nil {
		t.Fatal(err)
	}
	// 4 + 3 USDT of dust at a token price of 2, less the 2% fee: 1.96 +
	// 1.47 TOK; the fee is 0.04 + 0.03 TOK.
	want := "job dust (dust), schedule convert, paper-replay (simulated account, at the end of csv " + data + " 1h) at 2024-06-01T03:00:00Z\n" +
		"not convertible: USDT (asset cannot be converted)\n" +
		"converted BTC, ETH into 3.43 TOK (fee 0.07 TOK)\n" +
		"orders: none\n" +
		"outcome: ok\n" +
		"recorded: run of dust/convert in " + db + "\n"
	if out != want {
		t.Errorf("output\n%s\nwant\n%s", out, want)
	}
	st := readStore(t, db)
	runs, err := st.JobRuns(t.Context(), "convert")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 6, 1, 3, 0, 0, 0, time.UTC)
	if len(runs) != 1 || runs[0].Instance != "dust" || !runs[0].OK || !runs[0].Start.Equal(at) || !runs[0].End.Equal(at) || !runs[0].Scheduled.Equal(at) {
		t.Errorf("runs %+v", runs)
	}
	// The dust instance's state holds the outcome of every asset.
	state, ok, err := st.LoadState(t.Context(), "dust")
	want = `{"last":[{"asset":"BTC","result":"converted"},{"asset":"ETH","result":"converted"},{"asset":"USDT","result":"excluded"}],"last_run":"2024-06-01T03:00:00Z"}`
	if err != nil || !ok || string(state) != want {
		t.Errorf("state %s %v %v\nwant %s", state, ok, err, want)
	}
}

// A DCA run on the embedded sample buys at the last close; the client
// order id is the instance, the run's time and the first sequence number
// of a fresh store.
func TestJobsRunDCAOnTheSample(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "jobs.db")
	env := []string{"SPOTBOT_STORE__PATH=" + db}
	out, _, err := runJobs(t, env, "run", "--config", jobsConfig, "btc-dca")
	if err != nil {
		t.Fatal(err)
	}
	want := "job btc-dca (dca), schedule buy, paper-replay (simulated account, at the end of sample 1h) at 2021-05-17T01:00:00Z\n" +
		"order btc-dca-korwhb40-1: BUY MARKET BTCUSDT quote 50 -> FILLED, executed 0.001057 for 49.97858551, 1 fill\n" +
		"outcome: ok\n" +
		"recorded: run of btc-dca/buy in " + db + "\n"
	if out != want {
		t.Errorf("output\n%s\nwant\n%s", out, want)
	}
	st := readStore(t, db)
	fills, err := st.FillsByOrder(t.Context(), "btc-dca-korwhb40-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(fills) != 1 || fills[0].ClientOrderID != "btc-dca-korwhb40-1" || fills[0].TradeID != "s0-1" || fills[0].Qty.String() != "0.001057" {
		t.Errorf("fills %+v", fills)
	}
	// A second run reserves a new sequence range and tags its trades
	// apart, so nothing collides in the store.
	out, _, err = runJobs(t, env, "run", "dca", "--config", jobsConfig)
	if err != nil || !strings.Contains(out, "\norder btc-dca-korwhb40-255t: BUY MARKET BTCUSDT quote 50 -> FILLED, executed 0.001057 for 49.97858551, 1 fill\n") {
		t.Errorf("second run: %v\n%s", err, out)
	}
}

func TestJobsRunRefusesAnOverlappingRun(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "jobs.db")
	release, err := daemon.NewJobGuard(db).Acquire("dust", "bot run")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	out, _, err := runJobs(t, []string{"SPOTBOT_STORE__PATH=" + db}, "run", "dust", "--config", jobsConfig)
	want := fmt.Sprintf("jobs run: job dust: a run of this job is already in progress (bot run, pid %d; lock %s.locks/dust.lock)", os.Getpid(), db)
	if !errors.Is(err, daemon.ErrJobRunning) || err.Error() != want || out != "" {
		t.Errorf("err %v\nwant %s\noutput %q", err, want, out)
	}
	// Another job of the same store is free.
	if _, _, err := runJobs(t, []string{"SPOTBOT_STORE__PATH=" + db}, "run", "rebal", "--config", jobsConfig); err != nil {
		t.Errorf("rebal: %v", err)
	}
}

func TestJobsRunErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	twoDCA := filepath.Join(dir, "two.yaml")
	text := "mode: paper-replay\nstore: {path: " + filepath.Join(dir, "x.db") + "}\nstrategies:\n" +
		"  - {name: dca, id: a, symbols: [BTCUSDT], interval: 1h, params: {amount: 25}}\n" +
		"  - {name: dca, id: b, symbols: [ETHUSDT], interval: 1h, params: {amount: 25}}\n"
	if err := os.WriteFile(twoDCA, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"SPOTBOT_STORE__PATH=" + filepath.Join(dir, "y.db")}
	tests := []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"no subcommand", nil, "jobs: the only subcommand is run", true},
		{"no job", []string{"run", "--config", jobsConfig}, "jobs run: a job and --config FILE are required", true},
		{"unknown", []string{"run", "nosuch", "--config", jobsConfig},
			`jobs run: no instance or strategy "nosuch" in the configuration (instances: dust (dust), rebal (rebalance), btc-dca (dca))`, false},
		{"ambiguous", []string{"run", "dca", "--config", twoDCA}, "jobs run: 2 instances run strategy dca (a, b): name one by its id", false},
		{"no schedule", []string{"run", "btc-cross", "--config", "../configs/paper.yaml"}, "jobs run: btc-cross (smacross) has no schedule to run", false},
		{"backtest", []string{"run", "btc-cross", "--config", "../configs/backtest.yaml"},
			"jobs run: mode: backtest configurations have no exchange to run a job against; use live, paper or paper-replay", false},
		{"unknown schedule", []string{"run", "dust", "--schedule", "other", "--config", jobsConfig},
			`jobs run: strategy dust: no schedule "other" (schedules: convert)`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := runJobs(t, env, tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			msg, _, _ := strings.Cut(err.Error(), "\n")
			if errors.Is(err, ErrUsage) {
				msg = strings.TrimPrefix(msg, "usage: ")
			}
			if msg != tc.want || errors.Is(err, ErrUsage) != tc.usage {
				t.Errorf("err %q (usage %v)\nwant %q (usage %v)", msg, errors.Is(err, ErrUsage), tc.want, tc.usage)
			}
		})
	}
}

// readStore opens the store at db read-only, as an operator's second
// process would, for the test's life.
func readStore(t *testing.T, db string) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), db, store.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
