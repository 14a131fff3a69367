package barfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// With Writes.Map a fresh cache file is mapped (where the system maps
// files) and gives the bars a read gives; a stale one is read again and
// not kept mapped; Unmap releases what is mapped, once.
func TestCacheMapped(t *testing.T) {
	t.Parallel()
	dir, src := csvSource(t)
	o := marketdata.ReadOptions{Interval: exchange.Interval60m, Symbol: "BTCUSDT"}
	w := Writes{Map: true}
	c := Cache{Dir: filepath.Join(dir, "cache"), Writes: &w}
	s1, ld, err := c.Load(src, o)
	if err != nil || ld.FromCache {
		t.Fatalf("first load: %v %+v", err, ld)
	}
	if err := w.Wait(); err != nil {
		t.Fatal(err)
	}
	mapped := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.unmap)
	}
	want := 0
	if canMap {
		want = 1
	}
	s2, ld, err := c.Load(src, o)
	if err != nil || !ld.FromCache || ld.Format != "spotbot csv, open times in milliseconds" || s2.Hash() != s1.Hash() || mapped() != want {
		t.Fatalf("from the cache: %v %+v, %d files mapped, want %d", err, ld, mapped(), want)
	}
	if got := w.Mapped(); got != int64(want)*3*48 {
		t.Fatalf("Mapped: %d bytes, want %d", got, want*3*48)
	}
	if got, wantK := s2.Klines(), s1.Klines(); len(got) != 3 || got[2].Close.String() != "42250" || got[0].Volume.String() != wantK[0].Volume.String() {
		t.Fatalf("mapped bars %+v, want %+v", got, wantK)
	}
	// The cache file replaced (renamed over) while mapped: the mapped
	// bars are the old file's, unchanged.
	cached, _ := filepath.Glob(filepath.Join(c.Dir, "*"+Ext))
	if len(cached) != 1 {
		t.Fatalf("cache files %v", cached)
	}
	if err := WriteFile(cached[0], readCSV(t, csv+"1704085200000,1,2,1,2,3\n"), Meta{}); err != nil {
		t.Fatal(err)
	}
	if s2.Hash() != s1.Hash() || s2.Len() != 3 {
		t.Fatalf("the mapped bars changed with the file: %d bars", s2.Len())
	}
	// A changed source: the stale cache file is not kept mapped.
	if err := os.WriteFile(src, []byte(csv+"1704085200000,1,2,1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(src, later, later); err != nil {
		t.Fatal(err)
	}
	s3, ld, err := c.Load(src, o)
	if err != nil || ld.FromCache || s3.Len() != 4 || mapped() != want {
		t.Fatalf("changed source: %v %+v, %d bars, %d files mapped, want %d", err, ld, s3.Len(), mapped(), want)
	}
	if err := w.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := w.Unmap(); err != nil || mapped() != 0 || w.Mapped() != 0 {
		t.Fatalf("Unmap: %v, %d files still mapped", err, mapped())
	}
	if err := w.Unmap(); err != nil {
		t.Fatalf("second Unmap: %v", err)
	}
}

// mapFile refuses what ReadFile refuses, naming the file, and maps
// nothing then.
func TestMapFileRefuses(t *testing.T) {
	t.Parallel()
	if !canMap {
		t.Skip("this system does not map files")
	}
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.arrow")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not arrow at all ", 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := mapFile(garbage); err == nil || !strings.HasPrefix(err.Error(), garbage+": barfile: not an Arrow IPC file: ") {
		t.Errorf("garbage: %v", err)
	}
	empty := filepath.Join(dir, "empty.arrow")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := mapFile(empty); err == nil || err.Error() != "barfile: mapping "+empty+": "+syscall.EINVAL.Error() {
		t.Errorf("empty: %v", err)
	}
	missing := filepath.Join(dir, "missing.arrow")
	if _, _, _, err := mapFile(missing); err == nil || err.Error() != "barfile: open "+missing+": no such file or directory" {
		t.Errorf("missing: %v", err)
	}
	// A good file maps to the bars ReadFile reads.
	good := filepath.Join(dir, "good.arrow")
	if err := WriteFile(good, readCSV(t, csv), Meta{Format: "spotbot csv"}); err != nil {
		t.Fatal(err)
	}
	s, m, unmap, err := mapFile(good)
	if err != nil || m.Format != "spotbot csv" || s.Hash() != readCSV(t, csv).Hash() {
		t.Fatalf("good file: %v %+v", err, m)
	}
	if err := unmap(); err != nil {
		t.Fatal(err)
	}
}
