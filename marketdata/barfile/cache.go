package barfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spotbot/spotbot/marketdata"
)

// Ext is the extension of bars files.
const Ext = ".arrow"

// Cache keeps a bars file for each source file it loaded, in Dir, named by
// a hash of the source's absolute path, interval and symbol. A cached file
// is used only while the source keeps the size and modification time it
// had when the cache was written (they are in the file's metadata), so a
// changed source is read again. An empty Dir disables the cache.
type Cache struct {
	Dir string
	// Writes, when set, takes the writing of cache files: Load returns the
	// bars as soon as they are read and the file is written meanwhile
	// (Writes.Wait waits for it). Nil: Load writes before it returns.
	Writes *Writes
}

// Writes are what loads leave their caller to finish: cache files being
// written in the background (Wait) and, when Map is set, cache files
// mapped into memory (Unmap). Each cache file is written to a temporary
// file renamed into place, so a file still being written, or one whose
// writing was cut short, is never read as the cache.
type Writes struct {
	// Map has Load map a fresh cache file into memory read-only rather
	// than read it (mapFile): the bars are the file's pages, read where
	// they lie, valid until Unmap. For a caller that knows when it is done
	// with the bars: a single backtest run.
	Map bool

	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
	unmap  []func() error
	mapped int64
}

func (w *Writes) start(write func() error) {
	w.wg.Go(func() {
		if err := write(); err != nil {
			w.mu.Lock()
			w.errs = append(w.errs, err)
			w.mu.Unlock()
		}
	})
}

// Wait waits for every write started and returns why any failed (the
// bars are good all the same: the next load reads the source again).
func (w *Writes) Wait() error {
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return errors.Join(w.errs...)
}

// Unmap releases the cache files Load mapped (Map); the bars read from
// them, and every cut of them, must not be used after. It returns why a
// mapping could not be released.
func (w *Writes) Unmap() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for _, f := range w.unmap {
		errs = append(errs, f())
	}
	w.unmap, w.mapped = nil, 0
	return errors.Join(errs...)
}

// Mapped is the size of the cache files mapped and not yet released, in
// bytes: bars outside the heap (backtest.RunMemory counts them).
func (w *Writes) Mapped() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mapped
}

// readCached reads the cache file at path if it holds the bars of source
// (ok false otherwise: missing, unreadable or stale): mapped when w asks
// for it and the system maps files, else into the heap.
func (w *Writes) readCached(path, source string) (s *marketdata.Series, m Meta, ok bool) {
	if w == nil || !w.Map || !canMap {
		s, m, err := ReadFile(path)
		return s, m, err == nil && m.Source == source
	}
	s, m, unmap, err := mapFile(path)
	if err != nil {
		return nil, Meta{}, false
	}
	if m.Source != source {
		unmap() // read only; an error releasing it changes nothing
		return nil, Meta{}, false
	}
	w.mu.Lock()
	w.unmap = append(w.unmap, unmap)
	w.mapped += int64(s.Len()) * 48 // the six int64 columns
	w.mu.Unlock()
	return s, m, true
}

// DefaultDir is the user's cache folder's spotbot/bars ($XDG_CACHE_HOME or
// ~/.cache on Linux).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "spotbot", "bars"), nil
}

// Loaded says how Load got the bars.
type Loaded struct {
	// Format is the source's format (detected on the first load).
	Format string
	// FromCache is true when the bars came from the cache.
	FromCache bool
	// CacheErr is why the cache could not be written (the bars are good
	// all the same); nil when it was, or when Cache.Writes writes it.
	CacheErr error
}

// Load returns the bars of the file at path: a bars file (Ext) is read as
// such; any other file is read by marketdata.Read (SkipBad is ignored:
// the cache holds only files without bad rows), from the cache when it is
// fresh, written to it otherwise.
func (c Cache) Load(path string, o marketdata.ReadOptions) (*marketdata.Series, Loaded, error) {
	if strings.EqualFold(filepath.Ext(path), Ext) {
		s, m, err := ReadFile(path)
		if err != nil {
			return nil, Loaded{}, err
		}
		if s.Interval() != o.Interval {
			return nil, Loaded{}, fmt.Errorf("%s holds %s bars, not %s", path, s.Interval(), o.Interval)
		}
		return s, Loaded{Format: "arrow" + ifSet(m.Format)}, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, Loaded{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, Loaded{}, err
	}
	source := fmt.Sprintf("%s|size=%d|mtime=%d|interval=%s|symbol=%s", abs, st.Size(), st.ModTime().UnixNano(), o.Interval, o.Symbol)
	var cached string
	if c.Dir != "" {
		key := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%s", abs, o.Interval, o.Symbol)))
		cached = filepath.Join(c.Dir, hex.EncodeToString(key[:12])+Ext)
		if s, m, ok := c.Writes.readCached(cached, source); ok {
			return s, Loaded{Format: m.Format, FromCache: true}, nil
		}
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, Loaded{}, err
	}
	defer f.Close()
	o.SkipBad = false
	s, rep, err := marketdata.Read(f, o)
	if err != nil {
		return nil, Loaded{}, fmt.Errorf("%s: %w", path, err)
	}
	ld := Loaded{Format: rep.String()}
	if c.Dir != "" {
		write := func() error {
			if err := os.MkdirAll(c.Dir, 0o755); err != nil {
				return fmt.Errorf("barfile: cache folder: %w", err)
			}
			return WriteFile(cached, s, Meta{Source: source, Format: rep.String()})
		}
		if c.Writes != nil {
			c.Writes.start(write) // s is never changed: it may be read meanwhile
		} else {
			ld.CacheErr = write()
		}
	}
	return s, ld, nil
}

func ifSet(format string) string {
	if format == "" {
		return ""
	}
	return " (from " + format + ")"
}
