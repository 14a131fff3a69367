package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/marketdata/barfile"
	"github.com/spotbot/spotbot/store"
)

// The same bars loaded from a CSV file, from its binary cache, from an
// Arrow file and from the store are one series: equal hashes.
func TestLoadSeriesSourcesAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := marketdata.Header + "\n" +
		"1704067200000,42000.10,42100.00,41900.00,42050.50,12.50\n" +
		"1704070800000,42050.50,42200.00,42000.00,42150.00,8.25\n" +
		"1704074400000,42150.00,42300.00,42100.00,42250.00,0.00\n"
	csv := filepath.Join(dir, "BTCUSDT-60m.csv")
	if err := os.WriteFile(csv, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	syms := []string{"BTCUSDT"}
	rng := [2]time.Time{time.Date(2024, 1, 1, 1, 0, 0, 0, time.UTC), {}}
	fromCSV, err := LoadSeries(config.Data{Source: "csv", Path: dir, Cache: cache}, exchange.Interval60m, syms, rng)
	if err != nil {
		t.Fatal(err)
	}
	s := fromCSV["BTCUSDT"]
	if s.Len() != 2 || s.OpenMs(0) != 1704070800000 || s.Decimal(marketdata.Close, 1).String() != "42250" {
		t.Fatalf("csv: %d bars", s.Len())
	}
	cached, _ := filepath.Glob(filepath.Join(cache, "*.arrow"))
	if len(cached) != 1 {
		t.Fatalf("cache holds %v", cached)
	}
	again, err := LoadSeries(config.Data{Source: "csv", Path: csv, Cache: cache}, exchange.Interval60m, syms, rng)
	if err != nil || again["BTCUSDT"].HashString() != s.HashString() {
		t.Fatalf("from the cache: %v", err)
	}
	arrow := filepath.Join(dir, "btc.arrow")
	full, _ := LoadSeries(config.Data{Source: "csv", Path: csv, Cache: config.CacheOff}, exchange.Interval60m, syms, [2]time.Time{})
	if err := barfile.WriteFile(arrow, full["BTCUSDT"], barfile.Meta{}); err != nil {
		t.Fatal(err)
	}
	fromArrow, err := LoadSeries(config.Data{Source: "csv", Path: arrow, Cache: config.CacheOff}, exchange.Interval60m, syms, rng)
	if err != nil || fromArrow["BTCUSDT"].HashString() != s.HashString() {
		t.Fatalf("from arrow: %v", err)
	}
	db := filepath.Join(dir, "bot.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.InsertKlines(context.Background(), "BTCUSDT", exchange.Interval60m, full["BTCUSDT"].Klines()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	fromStore, err := LoadSeries(config.Data{Source: "store", Path: db}, exchange.Interval60m, syms, rng)
	if err != nil || fromStore["BTCUSDT"].HashString() != s.HashString() {
		t.Fatalf("from the store: %v", err)
	}
	// LoadData's klines are the series' bars.
	ks, err := LoadData(config.Data{Source: "csv", Path: csv, Cache: cache}, exchange.Interval60m, syms, rng)
	if err != nil || len(ks["BTCUSDT"]) != 2 || ks["BTCUSDT"][1].Volume.String() != "0" || ks["BTCUSDT"][0].Open.String() != "42050.5" {
		t.Fatalf("LoadData: %v %v", err, ks)
	}
	if _, err := LoadSeries(config.Data{Source: "csv", Path: csv, Cache: "OFF"}, exchange.Interval60m, syms, [2]time.Time{time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), {}}); err == nil ||
		err.Error() != "data: no 60m bars of BTCUSDT in the chosen range" {
		t.Errorf("empty range: %v", err)
	}
}

// data.cache picks the cache folder: the one named, none when off (in any
// case), the user's cache folder's spotbot/bars when empty; with the cache
// off a CSV load writes nothing.
func TestCacheDir(t *testing.T) {
	t.Parallel()
	def, err := barfile.DefaultDir()
	if err != nil {
		t.Skip("no user cache folder here:", err)
	}
	for _, tt := range []struct{ cache, want string }{
		{"", def}, {"off", ""}, {"Off", ""}, {"/tmp/bars", "/tmp/bars"}, {"bars", "bars"},
	} {
		if got := CacheDir(config.Data{Cache: tt.cache}); got != tt.want {
			t.Errorf("data.cache %q: folder %q, want %q", tt.cache, got, tt.want)
		}
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "BTCUSDT-60m.csv")
	text := marketdata.Header + "\n1704067200000,42000.10,42100.00,41900.00,42050.50,12.50\n"
	if err := os.WriteFile(csv, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSeries(config.Data{Source: "csv", Path: dir, Cache: config.CacheOff}, exchange.Interval60m, []string{"BTCUSDT"}, [2]time.Time{})
	if err != nil || got["BTCUSDT"].Len() != 1 {
		t.Fatalf("loaded %v: %v", got, err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("the folder holds %d files, want only the csv", len(names))
	}
}
