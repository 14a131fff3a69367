// Package store keeps everything spotbot must not lose in one SQLite file,
// through the pure-Go driver modernc.org/sqlite: order intents and their
// fate, fills, klines, balance snapshots, strategy state, scheduled job
// runs and backtest runs.
//
// Decimals are stored as TEXT in their exact form (scale kept), times as
// INTEGER milliseconds since the epoch, UTC. The schema is created and
// brought forward by embedded, numbered migrations when the store opens.
// docs/store.md describes the tables and the life of an order intent.
//
// A Store is safe for concurrent use: writes go through one connection,
// reads through a pool of read-only connections, and in WAL mode another
// process may read the file while this one writes.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/spotbot/spotbot/exchange"
)

// Errors a caller may want to tell apart; they are wrapped with the path
// and the operation.
var (
	// ErrNotDatabase: the file exists but is not a SQLite database, or is
	// corrupt.
	ErrNotDatabase = errors.New("not a SQLite database or corrupt")
	// ErrReadOnly: the database cannot be written (read-only file, store
	// or file system).
	ErrReadOnly = errors.New("database is read-only")
	// ErrFull: the disk, or the size limit set with MaxPages, is full. The
	// failed transaction is rolled back; what was committed before stays.
	ErrFull = errors.New("database or disk is full")
	// ErrCannotOpen: the file cannot be opened or created.
	ErrCannotOpen = errors.New("cannot open database file")
	// ErrNewerSchema: the database was written by a newer spotbot.
	ErrNewerSchema = errors.New("database schema is newer than this program")
)

// Memory is the path that opens a private in-memory database, for tests and
// backtests. It lives as long as the Store.
const Memory = ":memory:"

// Store is a spotbot database. Close it when done.
type Store struct {
	path  string
	w     *sql.DB // one connection: SQLite has one writer at a time
	r     *sql.DB // read-only pool; the same as w in memory
	clock exchange.Clock
	// opened is the file opened (nil in memory), which Check compares
	// with what is at path now.
	opened   os.FileInfo
	readOnly bool

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // the writer's hot statements, prepared once
}

type options struct {
	fullSync    bool
	readOnly    bool
	busyTimeout time.Duration
	maxPages    int64
	readers     int
	clock       exchange.Clock
	target      int // migrations to apply; tests stop early with it
	verify      bool
}

// Option configures Open.
type Option func(*options)

// FullSync sets synchronous=FULL: every commit reaches the disk before it
// returns, at the cost of an fsync per transaction. The default, NORMAL,
// can lose the last transactions on power loss, never on a process crash.
func FullSync() Option { return func(o *options) { o.fullSync = true } }

// ReadOnly opens an existing database for reading only, as a second process
// (a report, a dashboard) does while the bot writes. No migration is run;
// the schema must be the one this program knows.
func ReadOnly() Option { return func(o *options) { o.readOnly = true } }

// BusyTimeout sets how long a connection waits for another's lock before
// failing (default 5 s).
func BusyTimeout(d time.Duration) Option { return func(o *options) { o.busyTimeout = d } }

// MaxPages caps the database at n pages (PRAGMA max_page_count); writes
// beyond it fail with ErrFull. It guards a disk shared with other data, and
// lets tests simulate a full disk.
func MaxPages(n int64) Option { return func(o *options) { o.maxPages = n } }

// Verify runs PRAGMA quick_check as the store opens, refusing a damaged
// database with ErrNotDatabase. It reads every page, so it takes time in
// proportion to the file (about a second per few hundred megabytes); the
// bot asks for it, as it writes what must not be lost.
func Verify() Option { return func(o *options) { o.verify = true } }

// Readers sets the size of the read pool (default 4).
func Readers(n int) Option { return func(o *options) { o.readers = n } }

// WithClock sets the clock that stamps records whose caller gives no time
// (saved state, refusals). The default is the system clock.
func WithClock(c exchange.Clock) Option { return func(o *options) { o.clock = c } }

// Open opens the database at path (Memory for a private in-memory one),
// creating it if needed, sets WAL mode, synchronous=NORMAL (FULL with
// FullSync), a busy timeout and foreign keys, and applies pending
// migrations in one transaction each.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	o := options{busyTimeout: 5 * time.Second, readers: 4, clock: exchange.SystemClock{}, target: len(migrations)}
	for _, f := range opts {
		f(&o)
	}
	if path == "" {
		return nil, errors.New("store: empty database path (use store.Memory for an in-memory database)")
	}
	if o.readers < 1 {
		return nil, fmt.Errorf("store: %d readers, need at least 1", o.readers)
	}
	s := &Store{path: path, clock: o.clock, readOnly: o.readOnly}
	var err error
	if path != Memory {
		if err := checkFile(path); err != nil {
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
	}
	if path == Memory {
		if o.readOnly {
			return nil, errors.New("store: an in-memory database cannot be read-only")
		}
		// One connection holds the whole database; readers share it.
		s.w, err = sql.Open("sqlite", "file::memory:?"+dsn(o, false, false))
		if err == nil {
			s.w.SetMaxOpenConns(1)
			s.w.SetMaxIdleConns(1)
			s.w.SetConnMaxLifetime(0)
			s.w.SetConnMaxIdleTime(0)
			s.r = s.w
		}
	} else {
		s.w, err = sql.Open("sqlite", fileURI(path)+"?"+dsn(o, !o.readOnly, o.readOnly))
		if err == nil {
			s.w.SetMaxOpenConns(1)
			s.r, err = sql.Open("sqlite", fileURI(path)+"?"+dsn(o, false, true))
		}
		if err == nil {
			s.r.SetMaxOpenConns(o.readers)
		}
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := s.w.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, classify(err))
	}
	if o.verify {
		err = s.quickCheck(ctx)
	}
	if err == nil && o.readOnly {
		err = s.checkVersion(ctx)
	} else if err == nil {
		err = s.migrate(ctx, o.target)
	}
	if err == nil && path != Memory {
		if s.opened, err = os.Stat(path); err != nil {
			err = fmt.Errorf("%w (%v)", ErrCannotOpen, err)
		}
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return s, nil
}

// fileURI makes path a SQLite URI, so that mode=ro reaches SQLite.
func fileURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
}

// dsn builds the connection parameters. wal sets the journal mode, which
// only a writer may do; ro opens the file read-only.
func dsn(o options, wal, ro bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(o.busyTimeout.Milliseconds(), 10))
	q.Set("_foreign_keys", "1")
	if o.fullSync {
		q.Set("_synchronous", "FULL")
	} else {
		q.Set("_synchronous", "NORMAL")
	}
	if wal {
		q.Set("_journal_mode", "WAL")
		// Writes start with the write lock, so a read-then-write
		// transaction never fails to upgrade under concurrency.
		q.Set("_txlock", "immediate")
	}
	if ro {
		q.Set("mode", "ro")
	}
	if o.maxPages > 0 {
		q.Add("_pragma", "max_page_count("+strconv.FormatInt(o.maxPages, 10)+")")
	}
	return q.Encode()
}

// Close closes the database. Committed data is on disk (up to the last
// transactions with synchronous=NORMAL and a power loss).
func (s *Store) Close() error {
	var errs []error
	s.mu.Lock()
	for _, st := range s.stmts {
		errs = append(errs, st.Close())
	}
	s.stmts = nil
	s.mu.Unlock()
	if s.r != nil && s.r != s.w {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	return errors.Join(errs...)
}

// exec runs a write statement outside a transaction, preparing it on
// first use: parsing the SQL costs as much as running a small insert.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s.mu.Lock()
	st, ok := s.stmts[query]
	if !ok {
		var err error
		if st, err = s.w.PrepareContext(ctx, query); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if s.stmts == nil {
			s.stmts = map[string]*sql.Stmt{}
		}
		s.stmts[query] = st
	}
	s.mu.Unlock()
	return st.ExecContext(ctx, args...)
}

// Path returns the database's path.
func (s *Store) Path() string { return s.path }

// classify wraps SQLite's result codes in the package's errors, keeping the
// driver's message.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	var kind error
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		kind = ErrNotDatabase
	case sqlite3.SQLITE_READONLY:
		kind = ErrReadOnly
	case sqlite3.SQLITE_FULL:
		kind = ErrFull
	case sqlite3.SQLITE_CANTOPEN:
		kind = ErrCannotOpen
	default:
		return err
	}
	return fmt.Errorf("%w (%v)", kind, err)
}

// tx runs f in a write transaction, committing when it returns nil.
func (s *Store) tx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return classify(err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return classify(err)
	}
	return classify(tx.Commit())
}

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
