package app

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
)

func TestPaperReset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "paper.db")
	cfg := filepath.Join(dir, "paper.yaml")
	text := "mode: paper\nexchange: {base_url: \"http://127.0.0.1:1\"}\naccount: {balances: {USDT: 100}}\nstore: {path: " + db + "}\n" +
		"strategies:\n  - {name: grid, id: g, symbols: [ETHUSDT], interval: 1h, params: {lower: 1, upper: 2, levels: 2, quantity: 1}}\n"
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveState(t.Context(), daemon.PaperKey, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	reset := func() (string, error) {
		var out bytes.Buffer
		d := testDeps(nil, exchange.SystemClock{}, os.Exit)
		err := execute(context.Background(), newBot("bot", d), []string{"paper", "reset", "--config", cfg}, &out, io.Discard)
		return out.String(), err
	}
	if out, err := reset(); err != nil || out != db+": paper wallet forgotten; the next start funds a new one from account.balances\n" {
		t.Errorf("reset: %q, %v", out, err)
	}
	if out, err := reset(); err != nil || out != db+": no paper wallet saved; the next start funds one from account.balances\n" {
		t.Errorf("second reset: %q, %v", out, err)
	}
}
