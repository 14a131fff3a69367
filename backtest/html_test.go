package backtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestHTMLReportStructure checks the report without a browser: one chart
// per symbol plus equity and drawdown, each with non-empty lines, a marker
// per fill, the metrics and a row per trade, and nothing fetched from the
// network.
func TestHTMLReportStructure(t *testing.T) {
	t.Parallel()
	got := reports(t)
	page := string(got["report.html"])
	for _, id := range []string{`id="price-BTCUSDT"`, `id="equity"`, `id="drawdown"`, `id="metrics"`, `id="trades"`} {
		if !strings.Contains(page, id) {
			t.Errorf("report lacks %s", id)
		}
	}
	if n := strings.Count(page, "<polyline "); n != 4 { // price, hold, equity, drawdown
		t.Errorf("%d polylines, want 4", n)
	}
	if strings.Contains(page, `points=""`) {
		t.Error("a chart line is empty")
	}
	var trades int
	if err := jsonField(got["report.json"], &trades); err != nil {
		t.Fatal(err)
	}
	// smacross trades whole positions: every round trip is one buy and one sell.
	if n := strings.Count(page, `<circle class="buy"`) + strings.Count(page, `<circle class="sell"`); n != 2*trades {
		t.Errorf("%d fill markers, want %d", n, 2*trades)
	}
	if n := strings.Count(page, "<tr><td>BTCUSDT</td>"); n != trades {
		t.Errorf("%d trade rows, want %d", n, trades)
	}
	if regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).MatchString(page) {
		t.Error("the report loads something from the network")
	}
}

// jsonField reads the number of trades from a JSON report.
func jsonField(b []byte, trades *int) error {
	m := regexp.MustCompile(`"trades": (\d+),`).FindSubmatch(b)
	if m == nil {
		return os.ErrNotExist
	}
	*trades = 0
	for _, c := range m[1] {
		*trades = *trades*10 + int(c-'0')
	}
	return nil
}

// TestHTMLReportInChromium loads the report in headless Chromium (which
// .ci/run installs), checks that the charts rendered into the DOM with
// their lines and that the browser logged no console error, and keeps a
// screenshot: in $SPOTBOT_ARTIFACTS when set, else in the test's temp dir.
func TestHTMLReportInChromium(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no Chromium on this machine; .ci/run installs Debian's chromium")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, reports(t)["report.html"], 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("SPOTBOT_ARTIFACTS")
	if shots == "" {
		shots = dir
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(shots, "report.png")
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + filepath.Join(dir, "profile")}
	// Headless Chromium now and then exits with an error on a busy machine
	// before it loads anything (seen once in many runs, only crashpad's
	// complaints on stderr); such a run says nothing about the report, so
	// it is tried again, three times at most.
	browse := func(extra ...string) (string, string) {
		var err error
		for attempt := 1; attempt <= 3; attempt++ {
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			cmd := exec.CommandContext(ctx, bin, append(append(append([]string{}, flags...), extra...), "file://"+page)...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err = cmd.Run()
			cancel()
			if err == nil {
				return out.String(), errb.String()
			}
			t.Logf("chromium, attempt %d: %v\n%s", attempt, err, errb.String())
		}
		t.Fatalf("chromium failed three times: %v", err)
		return "", ""
	}
	dom, logs := browse("--dump-dom")
	for _, id := range []string{"price-BTCUSDT", "equity", "drawdown"} {
		re := regexp.MustCompile(`<svg id="` + id + `"[^>]*>[\s\S]*?<polyline class="[a-z]+" points="[0-9]`)
		if !re.MatchString(dom) {
			t.Errorf("chart %s did not render with a non-empty line", id)
		}
	}
	if !strings.Contains(dom, `<table id="metrics">`) || strings.Count(dom, "<tr>") < 40 {
		t.Error("tables did not render")
	}
	if strings.Contains(logs, "CONSOLE") || strings.Contains(logs, "Uncaught") {
		t.Errorf("console errors:\n%s", logs)
	}
	browse("--screenshot="+shot, "--window-size=1100,2400")
	st, err := os.Stat(shot)
	if err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s missing or blank: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}
