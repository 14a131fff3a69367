package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/spotbot/spotbot/app"
)

// TestBacktest runs backtest.yaml through the module's own command line,
// as "go run . backtest run" does, and checks the report it writes.
func TestBacktest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := app.Execute(t.Context(), app.New("rotation", registry()),
		[]string{"backtest", "run", "--config", "backtest.yaml", "--no-store", "--no-html", "--out", dir}, &out, &errOut)
	if code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Title   string `json:"title"`
		Metrics struct {
			Bars        int    `json:"bars"`
			Trades      int    `json:"trades"`
			EquityFinal string `json:"equity_final"`
			FeesPaid    string `json:"fees_paid"`
		} `json:"metrics"`
		FinalBalances map[string]string `json:"final_balances"`
	}
	if err := json.Unmarshal(text, &rep); err != nil {
		t.Fatal(err)
	}
	// Pinned from the first run: a daily rotation over a 72-hour lookback
	// on the whole embedded BTCUSDT and ETHUSDT sample with 10,000 USDT; the
	// run ends holding ETH.
	m := rep.Metrics
	got := []any{rep.Title, m.Bars, m.Trades, m.EquityFinal, m.FeesPaid, rep.FinalBalances["USDT"], rep.FinalBalances["BTC"], rep.FinalBalances["ETH"], len(rep.FinalBalances)}
	want := []any{"rotation (rotation)", 4260, 52, "35728.8856854378", "2056.2349522779", "1968.14276085", "0.00000016", "9.74060305", 3}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("report (title, bars, trades, equity, fees, USDT, BTC, ETH, balances) = %v, want %v", got, want)
			break
		}
	}
}
