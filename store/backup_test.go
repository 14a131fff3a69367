package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A backup taken while the store is open (and written to just before and
// after) opens as a store and holds exactly the rows committed before it.
func TestBackupWhileOpen(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	s, err := Open(ctx, filepath.Join(dir, "bot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 5 {
		if err := s.SaveState(ctx, fmt.Sprintf("inst%d", i), []byte(fmt.Sprintf("state-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	before := rowCounts(ctx, t, s.r)
	out := filepath.Join(dir, "copy.db")
	if err := s.Backup(ctx, out); err != nil {
		t.Fatal(err)
	}
	// A write after the backup is not in the copy.
	if err := s.SaveState(ctx, "late", []byte("after")); err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, out, ReadOnly(), Verify())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 5 {
		got, ok, err := c.LoadState(ctx, fmt.Sprintf("inst%d", i))
		if err != nil || !ok || string(got) != fmt.Sprintf("state-%d", i) {
			t.Errorf("inst%d: %q, %v, %v", i, got, ok, err)
		}
	}
	if got, ok, err := c.LoadState(ctx, "late"); err != nil || ok {
		t.Errorf("late write in the copy: %q, %v, %v", got, ok, err)
	}
	if after := rowCounts(ctx, t, c.r); after != before {
		t.Errorf("rows per table:\n%s\ncopy:\n%s", before, after)
	}
	// The output must be new; an in-memory store has nothing to copy.
	if err := s.Backup(ctx, out); err == nil || err.Error() != "store: backup: "+out+" already exists; give a new file" {
		t.Errorf("existing output: %v", err)
	}
	m, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Backup(ctx, filepath.Join(dir, "m.db")); err == nil || !strings.Contains(err.Error(), "in-memory") {
		t.Errorf("memory: %v", err)
	}
}

// rowCounts lists every table with its number of rows.
func rowCounts(ctx context.Context, t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	var b strings.Builder
	for _, n := range names {
		var c int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM "`+n+`"`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d\n", n, c)
	}
	return b.String()
}
