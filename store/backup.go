package store

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Backup writes a consistent copy of the database to out, a file that must
// not exist yet, while the store stays open and in use: SQLite's VACUUM
// INTO reads one snapshot in a read transaction, so the bot's writes go on
// (WAL mode) and the copy holds every transaction committed before it
// began. The copy is compacted and has no WAL file of its own; it opens
// as any store does.
func (s *Store) Backup(ctx context.Context, out string) error {
	if s.path == Memory {
		return errors.New("store: backup: an in-memory database has no file to copy")
	}
	if out == "" {
		return errors.New("store: backup: empty output path")
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("store: backup: %s already exists; give a new file", out)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: backup: %w", err)
	}
	// The read pool, so that the backup never holds the writer's
	// connection: trading goes on while the copy is written.
	if _, err := s.r.ExecContext(ctx, `VACUUM INTO ?`, out); err != nil {
		_ = os.Remove(out)
		return fmt.Errorf("store: backup to %s: %w", out, classify(err))
	}
	return nil
}
