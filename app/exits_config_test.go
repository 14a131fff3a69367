package app_test

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/app"
	"github.com/spotbot/spotbot/strategies"
)

// configs/backtest.yaml with a 2% stop-loss added to its instance: the
// backtest's trades.csv shows stop_loss exits beside the signal ones.
func TestBacktestConfigWithStopLoss(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("../configs/backtest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(text), "report:\n", "    exits:\n      stop_loss: 2%\nreport:\n", 1)
	if y == string(text) {
		t.Fatal("configs/backtest.yaml no longer ends its strategies before report:")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bt.yaml")
	if err := os.WriteFile(cfg, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := app.Execute(t.Context(), app.Backtest(strategies.NewRegistry()),
		[]string{"run", "--config", cfg, "--out", dir, "--no-store", "--no-html"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	f, err := os.Open(filepath.Join(dir, "trades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "symbol,entry_time,exit_time,qty,entry_price,exit_price,fees,pnl,return_pct,exit_reason" {
		t.Fatalf("header %s", got)
	}
	count := map[string]int{}
	for _, r := range rows[1:] {
		count[r[9]]++
	}
	if count["stop_loss"] != 48 || count["signal"] != 43 || len(count) != 2 {
		t.Errorf("exit reasons %v", count)
	}
}
