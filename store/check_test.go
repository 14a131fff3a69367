package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crashCopy writes 200 states into a fresh file store and copies the
// database and its write-ahead log while the store is still open: the
// files a killed process leaves. It returns the copy's path.
func crashCopy(t *testing.T) string {
	t.Helper()
	s, path := fileStore(t)
	for i := range 200 {
		if err := s.SaveState(t.Context(), fmt.Sprintf("i%03d", i), bytes.Repeat([]byte{'x'}, 100)); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "copy.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// A damaged store is refused at Open with a reason, never started empty:
// SQLite itself would open a zero-length file as a new database, and drop
// a torn log's tail (and every commit after it) without a word.
func TestOpenRefusesDamagedStores(t *testing.T) {
	t.Parallel()
	intact := crashCopy(t)
	walSize := func(path string) int64 {
		info, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	tests := []struct {
		name   string
		damage func(path string)
		is     error
		msg    string
	}{
		{"zero length", func(p string) { os.WriteFile(p, nil, 0o644); os.Remove(p + "-wal") }, ErrNotDatabase,
			"the file is empty (zero length); SQLite would start it as a new, empty store. Restore it from a backup, or remove it to start afresh"},
		{"not SQLite", func(p string) { os.WriteFile(p, []byte("mode: live\nstrategies: []\n"), 0o644) }, ErrNotDatabase,
			`the file does not start with the SQLite header ("mode: live\nstrat")`},
		{"truncated", func(p string) {
			// A store with its pages checkpointed into the file, cut.
			s, err := Open(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			s.Close() // the last connection checkpoints and removes the log
			info, _ := os.Stat(p)
			os.Truncate(p, info.Size()/2+100)
		}, ErrNotDatabase, "the file is truncated"},
		{"log cut mid-frame", func(p string) { os.Truncate(p+"-wal", walSize(p)-1000) }, ErrTornWAL, "is cut short"},
		{"log frame flipped", func(p string) {
			f, _ := os.OpenFile(p+"-wal", os.O_RDWR, 0)
			f.WriteAt([]byte{0xff, 0xfe}, walSize(p)-50)
			f.Close()
		}, ErrTornWAL, "fails its checksum"},
		{"log header cut", func(p string) { os.Truncate(p+"-wal", 20) }, ErrTornWAL, "20 bytes, shorter than its 32-byte header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := crashCopy(t)
			tc.damage(path)
			s, err := Open(t.Context(), path)
			if err == nil {
				n := 0
				for i := range 200 {
					if _, ok, _ := s.LoadState(t.Context(), fmt.Sprintf("i%03d", i)); ok {
						n++
					}
				}
				s.Close()
				t.Fatalf("opened, with %d of 200 states", n)
			}
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v\nwant %v containing %q", err, tc.is, tc.msg)
			}
		})
	}
	// The copy a kill leaves, undamaged, opens with everything in it.
	s, err := Open(t.Context(), intact, Verify())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 200 {
		if _, ok, err := s.LoadState(t.Context(), fmt.Sprintf("i%03d", i)); !ok || err != nil {
			t.Fatalf("state %d: %v %v", i, ok, err)
		}
	}
}

// Verify finds damage inside a well-formed file: a page of a table
// overwritten.
func TestOpenVerifyFindsCorruption(t *testing.T) {
	t.Parallel()
	s, path := fileStore(t)
	for i := range 300 {
		if err := s.SaveState(t.Context(), fmt.Sprintf("i%03d", i), bytes.Repeat([]byte{'x'}, 200)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	info, _ := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The last page: state rows. A b-tree page's header says garbage.
	f.WriteAt(bytes.Repeat([]byte{0x7f}, 64), info.Size()-4096)
	f.Close()
	plain, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("without Verify the damage goes unseen at Open, yet: %v", err)
	}
	plain.Close()
	_, err = Open(t.Context(), path, Verify())
	if !errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), "database disk image is malformed") {
		t.Fatalf("open with Verify: %v", err)
	}
}

// Check tells, while the store is open, that its file was deleted,
// replaced or made read-only.
func TestCheckSeesTheFileLost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		lose func(path string)
		msg  string
	}{
		{"deleted", func(p string) { os.Remove(p) }, "the file was deleted"},
		{"replaced", func(p string) {
			b, _ := os.ReadFile(p)
			os.WriteFile(p+".new", b, 0o644)
			os.Rename(p+".new", p)
		}, "another file was put in its place"},
		{"read-only", func(p string) { os.Chmod(p, 0o444) }, "the file was made read-only (mode -r--r--r--)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, path := fileStore(t)
			if err := s.Check(t.Context()); err != nil {
				t.Fatalf("before: %v", err)
			}
			tc.lose(path)
			err := s.Check(t.Context())
			if want := "store " + path + ": the database file was lost: " + tc.msg; !errors.Is(err, ErrLost) || err.Error() != want {
				t.Fatalf("got %v\nwant %s", err, want)
			}
		})
	}
	m, err := Open(context.Background(), Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Check(t.Context()); err != nil {
		t.Errorf("in memory: %v", err)
	}
}
