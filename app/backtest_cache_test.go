package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/marketdata"
)

// A single run caches a CSV it reads for the first time while it runs and
// waits for the file before it exits; a cache that cannot be written is a
// warning, and the run's results are the same.
func TestRunCachesDataMeanwhile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := marketdata.SampleSeries("BTCUSDT")
	if err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	if err := marketdata.WriteSeries(&csv, s); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "BTCUSDT-1h.csv")
	if err := os.WriteFile(data, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(dir, "not-a-folder")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	config := func(cache string) string {
		path := filepath.Join(t.TempDir(), "run.yaml")
		text := "mode: backtest\ndata: {source: csv, path: " + data + ", interval: 1h, cache: " + cache + "}\n" +
			"account: {balances: {USDT: 10000}}\nstrategies:\n  - name: smacross\n    id: btc-cross\n    symbols: [BTCUSDT]\n    interval: 1h\n" +
			"    params: {fast: 10, slow: 30, fraction: 0.95}\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cache := filepath.Join(dir, "cache")
	var summaries []string
	for _, tt := range []struct {
		name, cache, warning string
	}{
		{"first run", cache, ""},
		{"from the cache", cache, ""},
		{"cache not writable", filepath.Join(blocked, "cache"),
			"warning: the data's binary cache was not written (the next run reads the file again): barfile: cache folder: mkdir " + blocked + ": not a directory\n"},
	} {
		out, errs, code := runBacktest(t, "run", "--config", config(tt.cache), "--out", t.TempDir(), "--no-html", "--no-store")
		if code != ExitOK || errs != tt.warning {
			t.Fatalf("%s: exit %d, stderr %q, want 0 and %q", tt.name, code, errs, tt.warning)
		}
		summaries = append(summaries, out[:strings.Index(out, "\nwrote ")])
		names, err := os.ReadDir(cache)
		if err != nil || len(names) != 1 || filepath.Ext(names[0].Name()) != ".arrow" {
			t.Fatalf("%s: the cache folder holds %v (%v), want one bars file", tt.name, names, err)
		}
	}
	if !strings.Contains(summaries[0], "Trades                 91") || summaries[1] != summaries[0] || summaries[2] != summaries[0] {
		t.Errorf("the runs differ:\n%s\n%s\n%s", summaries[0], summaries[1], summaries[2])
	}
}
