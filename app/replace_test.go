package app

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// writeFile replaces a report already there (on Linux by exchanging the
// two files), writes a new one, refuses to replace a folder, and leaves
// no temporary file behind either way; a failed write keeps the old one.
func TestWriteFileReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "equity.csv")
	write := func(text string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, text); return err }
	}
	check := func(step, want string) {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil || string(b) != want {
			t.Fatalf("%s: %s holds %q (%v), want %q", step, path, b, err, want)
		}
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o644 {
			t.Fatalf("%s: mode %v (%v), want 0644", step, st.Mode(), err)
		}
		names, err := os.ReadDir(dir)
		if err != nil || len(names) != 2 || names[0].Name() != "equity.csv" || names[1].Name() != "folder" {
			t.Fatalf("%s: the folder holds %v (%v), want equity.csv and folder alone", step, names, err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, write("first\n")); err != nil {
		t.Fatal(err)
	}
	check("new", "first\n")
	if err := writeFile(path, write("second, longer\n")); err != nil {
		t.Fatal(err)
	}
	check("replaced", "second, longer\n")
	if err := writeFile(path, write("")); err != nil {
		t.Fatal(err)
	}
	check("emptied", "")
	if err := writeFile(path, write("third\n")); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("disk full")
	err := writeFile(path, func(w io.Writer) error { io.WriteString(w, "half"); return failed })
	if !errors.Is(err, failed) || err.Error() != path+": disk full" {
		t.Fatalf("a failed write: %v, want %s: disk full", err, path)
	}
	check("failed write", "third\n")
	if err := writeFile(filepath.Join(dir, "folder"), write("x")); err == nil {
		t.Fatal("a report over a folder was written")
	}
	check("over a folder", "third\n")
	if names, _ := os.ReadDir(filepath.Join(dir, "folder")); len(names) != 0 {
		t.Fatalf("the folder holds %v", names)
	}
}

// writeFile writes a report longer than its blocks whole, whatever the
// pieces it is handed: pieces of odd sizes and one longer than a block.
func TestWriteFileBlocks(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "equity.csv")
	want := make([]byte, 5*fileBlock/2+7)
	for i := range want {
		want[i] = byte('a' + i%26)
	}
	err := writeFile(path, func(w io.Writer) error {
		sizes := []int{1, 48_001, fileBlock + 3, 777} // then 48,001 at a time
		for i, rest := 0, want; len(rest) > 0; i++ {
			n := 48_001
			if i < len(sizes) {
				n = sizes[i]
			}
			n = min(n, len(rest))
			if _, err := w.Write(rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s holds %d bytes (%v), want the %d written", path, len(got), err, len(want))
	}
}
