package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// More errors a caller may tell apart (see also ErrNotDatabase).
var (
	// ErrTornWAL: the write-ahead log next to the database ends in a
	// partly written frame or holds a frame that fails its checksum.
	// SQLite would silently drop it and every commit after it.
	ErrTornWAL = errors.New("the write-ahead log is torn")
	// ErrLost: the file the store opened is no longer at its path
	// (deleted or replaced), or was made read-only, while the store is
	// open. Writes would go to a file nobody will read again, or fail.
	ErrLost = errors.New("the database file was lost")
)

const sqliteHeader = "SQLite format 3\x00"

// checkFile refuses, before SQLite opens it, an existing file that SQLite
// would treat as a new empty database (zero length), one that is not a
// SQLite database, one shorter than its header says (truncated), and a
// torn write-ahead log. A missing file is fine: it is created.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrCannotOpen, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrCannotOpen, err)
	}
	size := info.Size()
	if size == 0 {
		return fmt.Errorf("%w: the file is empty (zero length); SQLite would start it as a new, empty store. "+
			"Restore it from a backup, or remove it to start afresh", ErrNotDatabase)
	}
	var h [100]byte
	if n, err := io.ReadFull(f, h[:]); err != nil || string(h[:16]) != sqliteHeader {
		if n > 16 {
			n = 16
		}
		return fmt.Errorf("%w: the file does not start with the SQLite header (%q)", ErrNotDatabase, h[:n])
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return fmt.Errorf("%w: the header's page size %d is invalid", ErrNotDatabase, pageSize)
	}
	// The header's page count is valid when the change counter matches
	// "version valid for" (SQLite 3.7.0 and later).
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	valid := binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96])
	if size%pageSize != 0 || valid && size < pages*pageSize {
		return fmt.Errorf("%w: the file is truncated: %d bytes, the header says %d pages of %d bytes", ErrNotDatabase, size, pages, pageSize)
	}
	return checkWAL(path + "-wal")
}

// checkWAL reports a torn write-ahead log: one whose header is cut or
// fails its checksum, or whose frames of the current generation (same
// salts as the header) end in a partial frame or a bad checksum. Frames of
// an older generation after the current ones are normal (the log is reused
// from its start after a checkpoint) and end the scan. A frame run without
// a commit at the end (a transaction cut by a crash) is rolled back by
// SQLite and is not reported.
func checkWAL(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(b) == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrCannotOpen, err)
	}
	torn := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format+"; SQLite would drop the commits from there on. "+
			"Keep a copy of the database and %s before anything else opens them", append([]any{ErrTornWAL, path}, append(args, path)...)...)
	}
	if len(b) < 32 {
		return torn("%d bytes, shorter than its 32-byte header", len(b))
	}
	magic := binary.BigEndian.Uint32(b[0:4])
	if magic != 0x377f0682 && magic != 0x377f0683 {
		return torn("bad magic number %#x", magic)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	pageSize := int(binary.BigEndian.Uint32(b[8:12]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize > 65536 || pageSize&(pageSize-1) != 0 {
		return torn("invalid page size %d in its header", pageSize)
	}
	s0, s1 := walChecksum(order, b[:24], 0, 0)
	if s0 != binary.BigEndian.Uint32(b[24:28]) || s1 != binary.BigEndian.Uint32(b[28:32]) {
		return torn("its header fails its checksum")
	}
	salt := b[16:24]
	frame := 24 + pageSize
	for off, n := 32, 1; off < len(b); off, n = off+frame, n+1 {
		if len(b)-off < 24 || string(b[off+8:off+16]) != string(salt) {
			if len(b)-off < frame && (len(b)-off < 24 || string(b[off+8:off+16]) == string(salt)) {
				return torn("frame %d is cut short (%d of %d bytes)", n, len(b)-off, frame)
			}
			return nil // an older generation's frames
		}
		if len(b)-off < frame {
			return torn("frame %d is cut short (%d of %d bytes)", n, len(b)-off, frame)
		}
		s0, s1 = walChecksum(order, b[off:off+8], s0, s1)
		s0, s1 = walChecksum(order, b[off+24:off+frame], s0, s1)
		if s0 != binary.BigEndian.Uint32(b[off+16:off+20]) || s1 != binary.BigEndian.Uint32(b[off+20:off+24]) {
			return torn("frame %d fails its checksum", n)
		}
	}
	return nil
}

// walChecksum continues SQLite's WAL checksum over b (a multiple of 8
// bytes), reading 32-bit words in order.
func walChecksum(order binary.ByteOrder, b []byte, s0, s1 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}

// quickCheck runs PRAGMA quick_check: corrupt pages, broken indexes and
// other damage a header check cannot see.
func (s *Store) quickCheck(ctx context.Context) error {
	rows, err := s.w.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return classify(err)
		}
		if line != "ok" && len(problems) < 5 {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return classify(err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: quick_check: %q", ErrNotDatabase, problems)
	}
	return nil
}

// Check reports whether the file the store opened is still the one at its
// path and writable: nil, or an error wrapping ErrLost that says whether
// the file was deleted, replaced or made read-only. A store whose file was
// deleted or replaced keeps accepting writes, into a file no later process
// will open, so a long-running writer (the bot) asks at each poll. An
// in-memory store always passes.
func (s *Store) Check(ctx context.Context) error {
	if s.opened == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("store %s: %w: the file was deleted", s.path, ErrLost)
	case err != nil:
		return fmt.Errorf("store %s: %w: %v", s.path, ErrLost, err)
	case !os.SameFile(s.opened, info):
		return fmt.Errorf("store %s: %w: another file was put in its place", s.path, ErrLost)
	case !s.readOnly && info.Mode().Perm()&0o200 == 0:
		return fmt.Errorf("store %s: %w: the file was made read-only (mode %s)", s.path, ErrLost, info.Mode().Perm())
	}
	return nil
}
