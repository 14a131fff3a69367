package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/spotbot/spotbot/store"
)

// bot store backup copies a store another connection holds open and
// writes to, and the copy opens with the same rows.
func TestStoreBackupCommand(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	db, out := filepath.Join(dir, "bot.db"), filepath.Join(dir, "copy.db")
	s, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SaveState(ctx, "grid1", []byte(`{"levels":7}`)); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := botArgs(ctx, []string{"store", "backup", "--db", db, "--out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "backed up " + db + " to " + out + " (" + strconv.FormatInt(st.Size(), 10) + " bytes, checked)\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	// The bot goes on writing to the original.
	if err := s.SaveState(ctx, "grid2", []byte("x")); err != nil {
		t.Fatal(err)
	}
	c, err := store.Open(ctx, out, store.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, ok, err := c.LoadState(ctx, "grid1"); err != nil || !ok || string(got) != `{"levels":7}` {
		t.Errorf("grid1 in the copy: %q %v %v", got, ok, err)
	}
	if _, ok, err := c.LoadState(ctx, "grid2"); err != nil || ok {
		t.Errorf("grid2 (written after) in the copy: %v %v", ok, err)
	}
	// Missing flags are a usage error (exit 2).
	var errOut bytes.Buffer
	err = botArgs(ctx, []string{"store", "backup", "--db", db}, &stdout, &errOut)
	if code := exitCode("bot", err, &errOut); code != ExitUsage {
		t.Errorf("without --out: exit %d", code)
	}
}
