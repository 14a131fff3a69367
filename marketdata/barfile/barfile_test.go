package barfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

const csv = marketdata.Header + "\n" +
	"1704067200000,42000.10,42100.00,41900.00,42050.50,12.5\n" +
	"1704070800000,42050.50,42200.00,42000.00,42150.00,8.25\n" +
	"1704081600000,42150.00,42300.00,42100.00,42250.00,0\n"

func readCSV(t testing.TB, text string) *marketdata.Series {
	t.Helper()
	s, _, err := marketdata.Read(strings.NewReader(text), marketdata.ReadOptions{Interval: exchange.Interval60m, Symbol: "BTCUSDT"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestWriteRead(t *testing.T) {
	t.Parallel()
	s := readCSV(t, csv)
	var buf bytes.Buffer
	if err := Write(&buf, s, Meta{Format: "spotbot csv"}); err != nil {
		t.Fatal(err)
	}
	got, m, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if m.Format != "spotbot csv" || got.Symbol() != "BTCUSDT" || got.Interval() != exchange.Interval60m || got.Len() != 3 {
		t.Fatalf("read back %s %s %d bars, meta %+v", got.Symbol(), got.Interval(), got.Len(), m)
	}
	if got.Hash() != s.Hash() {
		t.Errorf("hash changed: %s, want %s", got.HashString(), s.HashString())
	}
	var out bytes.Buffer
	if err := marketdata.WriteCSV(&out, got.Klines()); err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("42250.00,0\n", "42250.00,0.00\n", "42050.50,12.5\n", "42050.50,12.50\n").Replace(csv)
	if out.String() != want {
		t.Errorf("bars:\n%s\nwant\n%s", out.String(), want)
	}
}

func TestReadRefuses(t *testing.T) {
	t.Parallel()
	if _, _, err := Read(strings.NewReader("not arrow at all")); err == nil || !strings.HasPrefix(err.Error(), "barfile: not an Arrow IPC file: ") {
		t.Errorf("garbage: %v", err)
	}
	// Bars that break the rules (high below close) are refused on read.
	s := readCSV(t, csv)
	hi := append([]int64(nil), s.Ints(marketdata.High)...)
	hi[1] = 1
	_, err := marketdata.NewSeries("X", exchange.Interval60m, s.Exp(marketdata.Open), s.Exp(marketdata.Volume),
		s.Times(), s.Ints(marketdata.Open), hi, s.Ints(marketdata.Low), s.Ints(marketdata.Close), s.Ints(marketdata.Volume))
	if err == nil || err.Error() != "marketdata: bar 1 (2024-01-01T01:00:00Z): high: below max(open, close)" {
		t.Errorf("bad high: %v", err)
	}
}

// csvSource writes csv as BTCUSDT-60m.csv in a new temporary folder and
// returns the folder and the file's path.
func csvSource(t *testing.T) (dir, src string) {
	t.Helper()
	dir = t.TempDir()
	src = filepath.Join(dir, "BTCUSDT-60m.csv")
	if err := os.WriteFile(src, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, src
}

func TestCache(t *testing.T) {
	t.Parallel()
	dir, src := csvSource(t)
	c := Cache{Dir: filepath.Join(dir, "cache")}
	o := marketdata.ReadOptions{Interval: exchange.Interval60m, Symbol: "BTCUSDT"}
	s1, ld, err := c.Load(src, o)
	if err != nil || ld.FromCache || ld.CacheErr != nil || ld.Format != "spotbot csv, open times in milliseconds" {
		t.Fatalf("first load: %v %+v", err, ld)
	}
	s2, ld, err := c.Load(src, o)
	if err != nil || !ld.FromCache || ld.Format != "spotbot csv, open times in milliseconds" || s2.Hash() != s1.Hash() || s2.Len() != 3 {
		t.Fatalf("second load: %v %+v", err, ld)
	}
	// A changed source is read again.
	more := csv + "1704085200000,1,2,1,2,3\n"
	if err := os.WriteFile(src, []byte(more), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(src, later, later)
	s3, ld, err := c.Load(src, o)
	if err != nil || ld.FromCache || s3.Len() != 4 {
		t.Fatalf("after a change: %v %+v, %d bars", err, ld, s3.Len())
	}
	// A bars file is read as such.
	arrow := filepath.Join(dir, "btc.arrow")
	if err := WriteFile(arrow, s3, Meta{}); err != nil {
		t.Fatal(err)
	}
	s4, ld, err := c.Load(arrow, o)
	if err != nil || ld.Format != "arrow" || s4.Hash() != s3.Hash() {
		t.Fatalf("arrow file: %v %+v", err, ld)
	}
	if _, _, err := c.Load(arrow, marketdata.ReadOptions{Interval: exchange.Interval1d}); err == nil || err.Error() != arrow+" holds 60m bars, not 1d" {
		t.Errorf("wrong interval: %v", err)
	}
}

func TestCacheWrittenMeanwhile(t *testing.T) {
	t.Parallel()
	dir, src := csvSource(t)
	o := marketdata.ReadOptions{Interval: exchange.Interval60m, Symbol: "BTCUSDT"}
	var w Writes
	c := Cache{Dir: filepath.Join(dir, "cache"), Writes: &w}
	s1, ld, err := c.Load(src, o)
	if err != nil || ld.FromCache || ld.CacheErr != nil || s1.Len() != 3 {
		t.Fatalf("first load: %v %+v", err, ld)
	}
	if err := w.Wait(); err != nil {
		t.Fatalf("writing the cache: %v", err)
	}
	s2, ld, err := Cache{Dir: c.Dir}.Load(src, o)
	if err != nil || !ld.FromCache || s2.Hash() != s1.Hash() {
		t.Fatalf("second load: %v %+v", err, ld)
	}
	names, _ := os.ReadDir(c.Dir)
	if len(names) != 1 || filepath.Ext(names[0].Name()) != Ext || names[0].Name()[0] == '.' {
		t.Errorf("the cache folder holds %v, want one bars file and no temporary file", names)
	}

	// A cache folder that cannot be made: the bars are good, Wait says why.
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var w2 Writes
	s3, ld, err := Cache{Dir: filepath.Join(blocked, "cache"), Writes: &w2}.Load(src, o)
	if err != nil || ld.FromCache || s3.Hash() != s1.Hash() {
		t.Fatalf("load with a blocked cache: %v %+v", err, ld)
	}
	if err := w2.Wait(); err == nil || err.Error() != "barfile: cache folder: mkdir "+blocked+": not a directory" {
		t.Errorf("blocked cache: %v", err)
	}
}
