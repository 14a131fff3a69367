package app

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

// runBacktest runs `backtest args...` over the built-in strategies.
func runBacktest(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(t.Context(), newBacktest("backtest", testDeps(nil, exchange.SystemClock{}, nil)), args, &out, &errb)
	return out.String(), errb.String(), code
}

// The README's first command: no arguments backtests smacross on the
// embedded sample, prints the summary and writes the reports.
func TestDefaultRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")
	out, errs, code := runBacktest(t, "--out", dir, "--db", db)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Backtest               btc-cross (smacross)", "Equity final           20,438.17 USDT",
		"Trades                 91", "wrote " + filepath.Join(dir, "report.html"), "recorded run 1 in " + db} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"report.html", "report.json", "trades.csv", "equity.csv"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Size() == 0 || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v", f, err, st)
		}
	}
}

func TestRunOverridesAndErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errs, code := runBacktest(t, "run", "--out", dir, "--no-html", "--no-store", "--from", "2021-01-01", "--market", "close")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "Start                  2021-01-02T07:00:00Z") || !strings.Contains(out, "market at signal close") {
		t.Errorf("overrides not applied:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); !os.IsNotExist(err) {
		t.Errorf("report.html written despite --no-html: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("strategies:\n  - name: smacross\n    id: x\n    symbols: [BTCUSDT]\n    interval: 1h\n    params: {fast: 50, slow: 10}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bogus"}, ExitUsage, `unknown command "bogus"`},
		{[]string{"run", "--nope"}, ExitUsage, "unknown flag: --nope"},
		{[]string{"run", "--fill", "sideways"}, ExitUsage, `sim.fill: "sideways" must be trade-through or touch`},
		{[]string{"run", "--from", "yesterday"}, ExitUsage, `data.from: "yesterday" is neither YYYY-MM-DD nor RFC 3339`},
		{[]string{"run", "--config", bad}, ExitUsage, "fast: must be < slow"},
		{[]string{"run", "--config", filepath.Join(dir, "missing.yaml")}, ExitUsage, "no such file"},
		{[]string{"sweep"}, ExitUsage, "at least one --param is required"},
		{[]string{"sweep", "--param", "fast=1:2:0"}, ExitUsage, "positive step"},
		{[]string{"sweep", "--param", "fast=5", "--shard", "2/2"}, ExitUsage, `--shard "2/2"`},
		{[]string{"sweep", "--param", "fast=5", "--objective", "luck"}, ExitUsage, `objective "luck"`},
	} {
		_, errs, code := runBacktest(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}

// A sweep split in two shards and merged ranks the same runs as the
// whole sweep.
func TestSweepShardsAndMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	params := []string{"--param", "fast=5,10", "--param", "slow=30,50", "--objective", "return", "--no-store", "--out", dir}
	whole, errs, code := runBacktest(t, append([]string{"sweep", "--output", filepath.Join(dir, "all.json")}, params...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for i, shard := range []string{"0/2", "1/2"} {
		_, errs, code := runBacktest(t, append([]string{"sweep", "--shard", shard, "--output", filepath.Join(dir, "s"+string(rune('0'+i))+".json")}, params...)...)
		if code != ExitOK {
			t.Fatalf("shard %s: exit %d: %s", shard, code, errs)
		}
	}
	merged, errs, code := runBacktest(t, "sweep", "merge", filepath.Join(dir, "s0.json"), filepath.Join(dir, "s1.json"))
	if code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	table := func(s string) string { return s[:strings.Index(s, "\n\n")] }
	if table(merged) != table(whole) {
		t.Errorf("merged table differs:\n%s\nwhole:\n%s", merged, whole)
	}
	if !strings.Contains(merged, "4 runs from 2 files") || !strings.Contains(whole, "fast=10 slow=30") {
		t.Errorf("merge output:\n%s", merged)
	}
	for _, f := range []string{"all.json"} { // sweep.json in dir is the last shard's
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(b), `"overfitting": {`) || !strings.Contains(string(b), `"pbo": `) || !strings.Contains(string(b), `"trials": 4,`) {
			t.Errorf("%s lacks the overfitting statistics: %v", f, err)
		}
	}
	if !strings.Contains(whole, "Probability of backtest overfitting") || !strings.Contains(whole, "wrote "+filepath.Join(dir, "sweep.html")) {
		t.Errorf("sweep output:\n%s", whole)
	}
	nohtml := t.TempDir()
	_, errs, code = runBacktest(t, "sweep", "--param", "fast=50,60", "--param", "slow=10", "--no-store", "--out", nohtml, "--no-html")
	if code != ExitError || !strings.Contains(errs, "sweep: every run failed; the first: ") {
		t.Errorf("a sweep whose every run fails: exit %d %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(nohtml, "sweep.html")); !os.IsNotExist(err) {
		t.Errorf("sweep.html written: %v", err)
	}
	_, errs, code = runBacktest(t, "sweep", "merge", filepath.Join(dir, "s0.json"), filepath.Join(dir, "s0.json"))
	if code != ExitError || !strings.Contains(errs, "is also in") {
		t.Errorf("merging a shard twice: exit %d %q", code, errs)
	}
}

func TestWalkForwardCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errs, code := runBacktest(t, "walkforward", "--param", "fast=5,10", "--train", "60d", "--test", "30d", "--objective", "return", "--no-store", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "2021-01-16  2021-02-15") || !strings.Contains(out, "out of sample, chained: return") ||
		!strings.Contains(out, "wrote "+filepath.Join(dir, "walkforward.html")) {
		t.Errorf("output:\n%s", out)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"sweep", "--help"}, {"walkforward", "--help"}, {"sweep", "merge", "--help"},
		{"report", "--help"}} {
		out, errs, code := runBacktest(t, args...)
		if code != ExitOK || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: exit %d out %q err %q", args, code, out, errs)
		}
	}
}

// Runs are recorded: a single run and a sweep's runs are listed by report,
// and report RUN --out writes the same reports again.
func TestRecordedRunsAndReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")
	if _, errs, code := runBacktest(t, "run", "--out", filepath.Join(dir, "a"), "--db", db); code != ExitOK {
		t.Fatalf("run: %s", errs)
	}
	if _, errs, code := runBacktest(t, "sweep", "--param", "fast=5,10", "--db", db, "--out", filepath.Join(dir, "s")); code != ExitOK {
		t.Fatalf("sweep: %s", errs)
	}
	list, errs, code := runBacktest(t, "report", "--db", db)
	if code != ExitOK {
		t.Fatalf("report: %s", errs)
	}
	if n := strings.Count(list, "\n"); n != 5 { // header, the run, two sweep runs, the sweep
		t.Errorf("listed %d lines:\n%s", n, list)
	}
	for _, want := range []string{`(?m)^1\s+\S+ \S+\s+btc-cross \(smacross\)\s+104\.38\s+2\.690\s+91\s`,
		`(?m)^3\s.*sweep #1 fast=10\s+104\.38\s+2\.690\s+91\s`, `(?m)^2\s.*sweep #0 fast=5\s+50\.30\s`,
		`(?m)^4\s.*sweep of 2 runs, best fast=10\s+104\.38\s`} {
		if !regexp.MustCompile(want).MatchString(list) {
			t.Errorf("list does not match %s:\n%s", want, list)
		}
	}
	show, _, code := runBacktest(t, "report", "1", "--db", db)
	if code != ExitOK || !strings.Contains(show, "Equity final           20,438.17") {
		t.Errorf("show: exit %d\n%s", code, show)
	}
	again, errs, code := runBacktest(t, "report", "1", "--db", db, "--out", filepath.Join(dir, "b"))
	if code != ExitOK || !strings.Contains(again, "wrote "+filepath.Join(dir, "b", "report.html")) {
		t.Fatalf("rerun: exit %d %s\n%s", code, errs, again)
	}
	for _, f := range []string{"report.json", "trades.csv", "equity.csv", "report.html"} {
		a, _ := os.ReadFile(filepath.Join(dir, "a", f))
		b, _ := os.ReadFile(filepath.Join(dir, "b", f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the run and its rerun", f)
		}
	}
	// A sweep's run is run again with its own parameters; the whole sweep
	// writes its reports again.
	one, errs, code := runBacktest(t, "report", "2", "--db", db, "--out", filepath.Join(dir, "c"))
	if code != ExitOK || !regexp.MustCompile(`(?m)^Return %\s+50\.30$`).MatchString(one) {
		t.Errorf("rerun of sweep #0: exit %d %s\n%s", code, errs, one)
	}
	whole, errs, code := runBacktest(t, "report", "4", "--db", db, "--out", filepath.Join(dir, "d"))
	if code != ExitOK || !strings.Contains(whole, "wrote "+filepath.Join(dir, "d", "sweep.html")) || !strings.Contains(whole, "Probability of backtest overfitting") {
		t.Errorf("rerun of the sweep: exit %d %s\n%s", code, errs, whole)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report", "9", "--db", db}, ExitError, "no run 9 in"},
		{[]string{"report", "x", "--db", db}, ExitUsage, `run "x" is not a run id`},
		{[]string{"report", "--db", filepath.Join(dir, "none.db")}, ExitUsage, "--db: stat"},
	} {
		_, errs, code := runBacktest(t, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d %q", tt.args, code, errs)
		}
	}
}
