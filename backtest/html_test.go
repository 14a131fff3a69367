package backtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/backtest/chartlib"
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
	table := page[strings.Index(page, `<table id="trades">`):]
	if n := strings.Count(table, "<tr><td>BTCUSDT</td>"); n != trades {
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

// chartLibrary is the real charting library when it is at hand: the
// tarball or file $SPOTBOT_CHARTS names, else the user's cache that a
// report written with network filled. Tests never fetch it.
func chartLibrary(t *testing.T) []byte {
	t.Helper()
	l := chartlib.Loader{Local: os.Getenv("SPOTBOT_CHARTS")}
	if l.Local == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			l.CacheDir = filepath.Join(dir, "spotbot", "npm")
		}
	}
	js, err := l.Load(t.Context())
	if err != nil {
		t.Skipf("no charting library at hand (%v); .ci/run fetches it (npm pack lightweight-charts@5.2.1 into $SPOTBOT_CHARTS)", err)
	}
	return js
}

// chromium loads a page in headless Chromium (which .ci/run installs),
// returns the DOM after its scripts ran and fails on any console message,
// and keeps a screenshot named shot: in $SPOTBOT_ARTIFACTS when set, else
// in the test's temp dir.
func chromium(t *testing.T, html []byte, shot string) string {
	t.Helper()
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
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("SPOTBOT_ARTIFACTS")
	if shots == "" {
		shots = dir
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	shotPath := filepath.Join(shots, shot)
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=5000", "--user-data-dir=" + filepath.Join(dir, "profile")}
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
	if strings.Contains(logs, "CONSOLE") || strings.Contains(logs, "Uncaught") {
		t.Errorf("console messages:\n%s", logs)
	}
	browse("--screenshot="+shotPath, "--window-size=1200,3000")
	st, err := os.Stat(shotPath)
	if err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s missing or blank: %v", shotPath, err)
	}
	t.Logf("screenshot: %s", shotPath)
	return dom
}

// rendered checks that every chart of ids holds a drawn canvas and that
// the page's script drew want charts.
func rendered(t *testing.T, dom string, want int, ids ...string) {
	t.Helper()
	if !strings.Contains(dom, fmt.Sprintf(`data-rendered="%d"`, want)) {
		t.Errorf("the page did not report %d charts drawn", want)
	}
	for _, id := range ids {
		if !regexp.MustCompile(`<div class="chart" id="` + regexp.QuoteMeta(id) + `"[^>]*>[\s\S]*?<canvas`).MatchString(dom) {
			t.Errorf("chart %s has no canvas", id)
		}
	}
}

// TestStaticHTMLReportInChromium: without the library the static charts
// render, with the note.
func TestStaticHTMLReportInChromium(t *testing.T) {
	dom := chromium(t, reports(t)["report.html"], "report-static.png")
	for _, id := range []string{"price-BTCUSDT", "equity", "drawdown"} {
		re := regexp.MustCompile(`<svg id="` + id + `"[^>]*>[\s\S]*?<polyline class="[a-z]+" points="[0-9]`)
		if !re.MatchString(dom) {
			t.Errorf("chart %s did not render with a non-empty line", id)
		}
	}
	if !strings.Contains(dom, `<table id="metrics">`) || !strings.Contains(dom, `id="note"`) {
		t.Error("tables or note did not render")
	}
}

// TestHTMLReportInChromium: the single-run report with the real library.
func TestHTMLReportInChromium(t *testing.T) {
	lib := chartLibrary(t)
	s, res, rep := defaultRun(t)
	var b bytes.Buffer
	if err := WriteHTML(&b, rep, s, res, HTMLOptions{Script: lib}); err != nil {
		t.Fatal(err)
	}
	dom := chromium(t, b.Bytes(), "report.png")
	rendered(t, dom, 3, "chart-price-BTCUSDT", "chart-equity", "chart-drawdown")
	for _, id := range []string{`id="metrics"`, `id="per-instance"`, `id="per-symbol"`, `id="monthly"`, `id="histogram"`, `id="trades"`} {
		if !strings.Contains(dom, id) {
			t.Errorf("report lacks %s", id)
		}
	}
}

// TestInteractiveReportStructure checks the interactive page without a
// browser: the library and the page's script inlined once, the data of
// the three charts with a marker per fill, the plotted averages, and the
// tables.
func TestInteractiveReportStructure(t *testing.T) {
	t.Parallel()
	got := reports(t)
	page := string(got["interactive.html"])
	if n := strings.Count(page, "/* library */"); n != 1 {
		t.Errorf("library inlined %d times", n)
	}
	start := strings.Index(page, `<script type="application/json" id="report-data">`)
	if start < 0 {
		t.Fatal("no report data")
	}
	data := page[start+len(`<script type="application/json" id="report-data">`):]
	data = data[:strings.Index(data, "</script>")]
	var d struct {
		Charts []struct {
			ID     string `json:"id"`
			Series []struct {
				Type  string      `json:"type"`
				Title string      `json:"title"`
				Data  [][]float64 `json:"data"`
			} `json:"series"`
			Fills []struct {
				T   int64 `json:"t"`
				Buy bool  `json:"buy"`
			} `json:"fills"`
		} `json:"charts"`
	}
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	var trades int
	if err := jsonField(got["report.json"], &trades); err != nil {
		t.Fatal(err)
	}
	if len(d.Charts) != 3 || d.Charts[0].ID != "chart-price-BTCUSDT" || d.Charts[1].ID != "chart-equity" || d.Charts[2].ID != "chart-drawdown" {
		t.Fatalf("charts %+v", d.Charts)
	}
	price := d.Charts[0]
	if len(price.Fills) != 2*trades {
		t.Errorf("%d fill markers, want %d", len(price.Fills), 2*trades)
	}
	// 4309 hourly bars (30 of warm-up) are over the cap of 4000: two bars
	// a candle, 2155 candles; the averages, on the candles' times, start
	// with the candle of bar 9 (the 5th) and of bar 29 (the 15th).
	if len(price.Series) != 4 || len(price.Series[0].Data) != 2155 || price.Series[2].Title != "sma(10)" || len(price.Series[2].Data) != 2155-4 ||
		price.Series[3].Title != "sma(30)" || len(price.Series[3].Data) != 2155-14 {
		t.Errorf("price series: %d, candles %d, %s %d, %s %d", len(price.Series), len(price.Series[0].Data), price.Series[2].Title, len(price.Series[2].Data), price.Series[3].Title, len(price.Series[3].Data))
	}
	for _, id := range []string{`id="per-instance"`, `id="per-symbol"`, `id="monthly"`, `id="histogram"`, `id="config"`} {
		if !strings.Contains(page, id) {
			t.Errorf("page lacks %s", id)
		}
	}
}

// TestPricePlaces: prices show the decimals the data use, at most the
// symbol's price scale.
func TestPricePlaces(t *testing.T) {
	t.Parallel()
	s, _, _ := defaultRun(t)
	if got := pricePlaces(s, "BTCUSDT"); got != 2 {
		t.Errorf("BTCUSDT sample: %d places, want 2", got)
	}
}
