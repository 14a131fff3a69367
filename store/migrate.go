package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The schema, one numbered file per version. Migrations only go forward:
// a released file is never edited; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations are read once at initialisation from the embedded files and
// never change afterwards.
var migrations = mustMigrations()

func mustMigrations() []migration {
	ms, err := loadMigrations()
	if err != nil {
		panic(err) // the embedded files are part of the program
	}
	return ms
}

func loadMigrations() ([]migration, error) {
	names, err := migrationFS.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range names {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("store: migration file %q does not start with a version number", name)
		}
		b, err := migrationFS.ReadFile(path.Join("migrations", name))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(name, ".sql"), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: migration %s: want version %d (versions are 1, 2, 3, ... without holes)", m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the schema version this program writes.
func SchemaVersion() int { return len(migrations) }

const createVersionTable = `CREATE TABLE IF NOT EXISTS schema_version (
	version INTEGER PRIMARY KEY,
	name    TEXT NOT NULL
) STRICT`

// migrate applies the migrations after the database's version, up to
// target, each in its own transaction with its version row, so a failure
// leaves the database at the last complete version.
func (s *Store) migrate(ctx context.Context, target int) error {
	for {
		done := false
		err := s.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, createVersionTable); err != nil {
				return err
			}
			v, err := version(ctx, tx)
			if err != nil {
				return err
			}
			if v > len(migrations) {
				return fmt.Errorf("%w: the database is at schema version %d, this program knows up to %d; use a newer spotbot", ErrNewerSchema, v, len(migrations))
			}
			if v >= target {
				done = true
				return nil
			}
			m := migrations[v]
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_version (version, name) VALUES (?, ?)`, m.version, m.name)
			return err
		})
		if err != nil || done {
			return err
		}
	}
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func version(ctx context.Context, q querier) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v)
	return v, err
}

// checkVersion verifies, for a read-only store, that the schema is the one
// this program knows.
func (s *Store) checkVersion(ctx context.Context) error {
	v, err := version(ctx, s.r)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return fmt.Errorf("the database has no spotbot schema (open it once for writing to create it)")
		}
		return classify(err)
	}
	switch {
	case v > len(migrations):
		return fmt.Errorf("%w: the database is at schema version %d, this program knows up to %d; use a newer spotbot", ErrNewerSchema, v, len(migrations))
	case v < len(migrations):
		return fmt.Errorf("the database is at schema version %d, this program needs %d; open it once for writing to migrate it", v, len(migrations))
	}
	return nil
}

// Version returns the database's schema version.
func (s *Store) Version(ctx context.Context) (int, error) {
	v, err := version(ctx, s.r)
	return v, classify(err)
}
