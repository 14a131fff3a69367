package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// The store is the runtime's journal.
var _ strategy.Journal = (*Store)(nil)

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.Now().Add(d)
	return ch
}

var t0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func memStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), Memory, WithClock(&fakeClock{now: t0}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func fileStore(t testing.TB, opts ...Option) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spotbot.db")
	s, err := Open(context.Background(), path, append([]Option{WithClock(&fakeClock{now: t0})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func pragma(t *testing.T, s *Store, name string) string {
	t.Helper()
	var v string
	if err := s.w.QueryRowContext(t.Context(), "PRAGMA "+name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpenSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []Option
		want map[string]string
	}{
		{"default", nil, map[string]string{"journal_mode": "wal", "synchronous": "1", "foreign_keys": "1", "busy_timeout": "5000"}},
		{"full sync", []Option{FullSync(), BusyTimeout(250 * time.Millisecond)}, map[string]string{"journal_mode": "wal", "synchronous": "2", "foreign_keys": "1", "busy_timeout": "250"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := fileStore(t, tt.opts...)
			for k, want := range tt.want {
				if got := pragma(t, s, k); got != want {
					t.Errorf("%s = %s, want %s", k, got, want)
				}
			}
			v, err := s.Version(t.Context())
			if err != nil || v != SchemaVersion() || v != 4 {
				t.Errorf("version = %d, %v; want 4", v, err)
			}
		})
	}
	m := memStore(t)
	if got := pragma(t, m, "foreign_keys"); got != "1" {
		t.Errorf("memory foreign_keys = %s", got)
	}
}

func TestOpenBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("this is not a database\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		opts []Option
		is   error
		msg  string
	}{
		{"not sqlite", notDB, nil, ErrNotDatabase, "store: open " + notDB + ": not a SQLite database or corrupt"},
		{"parent is a file", filepath.Join(plain, "x.db"), nil, ErrCannotOpen, "store: open " + filepath.Join(plain, "x.db") + ": cannot open database file"},
		{"missing dir", filepath.Join(dir, "no", "such", "x.db"), nil, ErrCannotOpen, "store: open " + filepath.Join(dir, "no", "such", "x.db") + ": cannot open database file"},
		{"empty path", "", nil, nil, "store: empty database path (use store.Memory for an in-memory database)"},
		{"read-only memory", Memory, []Option{ReadOnly()}, nil, "store: an in-memory database cannot be read-only"},
		{"no readers", filepath.Join(dir, "r.db"), []Option{Readers(0)}, nil, "store: 0 readers, need at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Open(t.Context(), tt.path, tt.opts...)
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			if (tt.is != nil && !errors.Is(err, tt.is)) || !strings.HasPrefix(err.Error(), tt.msg) {
				t.Fatalf("error = %v, want %q (%v)", err, tt.msg, tt.is)
			}
		})
	}
	// The file that is not a database is left as it was.
	if b, _ := os.ReadFile(notDB); !strings.HasPrefix(string(b), "this is not a database") {
		t.Errorf("the non-database file was changed")
	}
}

func TestCorruptDatabase(t *testing.T) {
	t.Parallel()
	s, path := fileStore(t)
	for i := range 50 {
		if err := s.SaveState(t.Context(), "inst"+strings.Repeat("x", i), []byte(strings.Repeat("state", 200))); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 16; i < 100; i++ { // the header, past its magic string
		b[i] = 0xff
	}
	for i := 4096; i < len(b) && i < 3*4096; i++ {
		b[i] = 0xee
	}
	os.Remove(path + "-wal")
	os.Remove(path + "-shm")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(t.Context(), path)
	if err == nil {
		_, _, err = s2.State(t.Context(), "inst")
		s2.Close()
	}
	if !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("error = %v, want ErrNotDatabase", err)
	}
}

func TestReadOnlyStore(t *testing.T) {
	t.Parallel()
	s, path := fileStore(t)
	if err := s.SaveState(t.Context(), "a", []byte("one")); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(t.Context(), path, ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	st, ok, err := ro.LoadState(t.Context(), "a")
	if err != nil || !ok || string(st) != "one" {
		t.Fatalf("read-only load = %q, %v, %v", st, ok, err)
	}
	err = ro.SaveState(t.Context(), "a", []byte("two"))
	if !errors.Is(err, ErrReadOnly) || !strings.HasPrefix(err.Error(), "store: saving state of a: database is read-only") {
		t.Fatalf("write to read-only store: %v", err)
	}
	st, _, _ = s.LoadState(t.Context(), "a")
	if string(st) != "one" {
		t.Errorf("state = %q after refused write", st)
	}
	// A read-only open of a database without the schema says so.
	other := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", other)
	if err == nil {
		_, err = db.Exec(`CREATE TABLE t (x)`)
		db.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), other, ReadOnly()); err == nil || !strings.Contains(err.Error(), "the database has no spotbot schema") {
		t.Errorf("read-only open of another database: %v", err)
	}
}

// TestReadOnlyFile opens a database whose directory and file the process
// cannot write. Root ignores permissions, so it only runs as another user.
func TestReadOnlyFile(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("running as root: file permissions do not stop writes (ReadOnly is tested by TestReadOnlyStore)")
	}
	s, path := fileStore(t)
	s.SaveState(t.Context(), "a", []byte("one"))
	s.Close()
	os.Chmod(path, 0o444)
	os.Chmod(filepath.Dir(path), 0o555)
	t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
	_, err := Open(t.Context(), path)
	if !errors.Is(err, ErrReadOnly) && !errors.Is(err, ErrCannotOpen) {
		t.Fatalf("error = %v, want ErrReadOnly or ErrCannotOpen", err)
	}
}

func TestFullDisk(t *testing.T) {
	t.Parallel()
	s, path := fileStore(t, MaxPages(40))
	big := []byte(strings.Repeat("x", 3000))
	saved := 0
	var err error
	for i := range 1000 {
		if err = s.SaveState(t.Context(), "inst"+string(rune('a'+i%26))+strings.Repeat("y", i/26), big); err != nil {
			break
		}
		saved++
	}
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "database or disk is full") {
		t.Fatalf("after %d saves: error = %v, want ErrFull", saved, err)
	}
	if saved == 0 {
		t.Fatal("nothing saved before the disk was full")
	}
	// A multi-row transaction fails whole.
	_, err = s.RecordBalances(t.Context(), "main", t0, balancesN(200))
	if !errors.Is(err, ErrFull) {
		t.Fatalf("balances: %v", err)
	}
	s.Close()
	// Nothing committed is lost, and the partial transaction left nothing.
	s2, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var n int
	if err := s2.r.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM strategy_state`).Scan(&n); err != nil || n != saved {
		t.Fatalf("%d states after reopening, want %d (%v)", n, saved, err)
	}
	if _, ok, _ := s2.LatestBalances(t.Context(), "main"); ok {
		t.Errorf("a failed snapshot was kept")
	}
}

func balancesN(n int) []exchange.Balance {
	out := make([]exchange.Balance, n)
	for i := range out {
		out[i] = exchange.Balance{Asset: fmt.Sprintf("ASSET%04d-%s", i, strings.Repeat("z", 40)), Free: dec("1.5"), Locked: dec("0")}
	}
	return out
}

// withTarget stops migrations at version v, to build old databases.
func withTarget(v int) Option { return func(o *options) { o.target = v } }

const time1h = time.Hour

func sampleKlines(n int) []exchange.Kline {
	out := make([]exchange.Kline, n)
	for i := range out {
		open := t0.Truncate(time.Hour).Add(time.Duration(i) * time.Hour)
		p := decimal.New(int64(40000+i), 0)
		out[i] = exchange.Kline{OpenTime: open, Open: p, High: p.Add(dec("10.50")), Low: p.Sub(dec("9.25")), Close: p.Add(dec("1.125")),
			Volume: dec("12.3400"), QuoteVolume: dec("493600.5"), CloseTime: open.Add(time.Hour - time.Millisecond)}
	}
	return out
}
