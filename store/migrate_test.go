package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateFromEveryVersion brings a database at every earlier version
// (0 = empty) to the latest, checking that rows written at the old version
// survive and that every table of the latest schema exists.
func TestMigrateFromEveryVersion(t *testing.T) {
	t.Parallel()
	if len(migrations) != 4 {
		t.Fatalf("%d migrations: extend this test's per-version rows", len(migrations))
	}
	wantTables := []string{"backtest_runs", "balance_snapshots", "balances", "control_actions", "fills", "job_runs", "klines", "orders", "protection_locks", "schema_version", "strategy_state"}
	for from := 0; from < len(migrations); from++ {
		t.Run("from version "+string(rune('0'+from)), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "m.db")
			old, err := Open(t.Context(), path, withTarget(from))
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := old.Version(t.Context()); v != from {
				t.Fatalf("at version %d, want %d", v, from)
			}
			if from >= 1 {
				if _, err := old.InsertKlines(t.Context(), "BTCUSDT", "60m", sampleKlines(3)); err != nil {
					t.Fatal(err)
				}
			}
			old.Close()
			s, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if v, _ := s.Version(t.Context()); v != SchemaVersion() {
				t.Fatalf("migrated to %d, want %d", v, SchemaVersion())
			}
			rows, err := s.r.QueryContext(t.Context(), `SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var n string
				rows.Scan(&n)
				got = append(got, n)
			}
			rows.Close()
			if strings.Join(got, " ") != strings.Join(wantTables, " ") {
				t.Errorf("tables = %v, want %v", got, wantTables)
			}
			ks, err := s.Klines(t.Context(), "BTCUSDT", "60m", t0.Add(-time1h*10), t0.Add(time1h*10))
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 3, false: 0}[from >= 1]; len(ks) != want {
				t.Errorf("%d klines after migrating, want %d", len(ks), want)
			}
			var names []string
			rows, _ = s.r.QueryContext(t.Context(), `SELECT name FROM schema_version ORDER BY version`)
			for rows.Next() {
				var n string
				rows.Scan(&n)
				names = append(names, n)
			}
			rows.Close()
			if strings.Join(names, ",") != "0001_orders_fills_klines,0002_state_runs_balances,0003_control_actions,0004_exit_reasons_locks" {
				t.Errorf("schema_version rows = %v", names)
			}
		})
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	t.Parallel()
	s, path := fileStore(t)
	if _, err := s.w.ExecContext(t.Context(), `INSERT INTO schema_version (version, name) VALUES (99, 'from the future')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, opts := range [][]Option{nil, {ReadOnly()}} {
		_, err := Open(t.Context(), path, opts...)
		want := "store: open " + path + ": database schema is newer than this program: the database is at schema version 99, this program knows up to 4; use a newer spotbot"
		if !errors.Is(err, ErrNewerSchema) || err.Error() != want {
			t.Errorf("error = %v\nwant %s", err, want)
		}
	}
}

func TestReadOnlyOlderSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.db")
	old, err := Open(t.Context(), path, withTarget(1))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	_, err = Open(t.Context(), path, ReadOnly())
	if err == nil || !strings.HasSuffix(err.Error(), "the database is at schema version 1, this program needs 4; open it once for writing to migrate it") {
		t.Fatalf("error = %v", err)
	}
}

func TestMigrationFiles(t *testing.T) {
	t.Parallel()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.version != i+1 || m.sql == "" {
			t.Errorf("migration %d = %d %s", i, m.version, m.name)
		}
	}
}
