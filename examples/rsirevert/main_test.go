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
	code := app.Execute(t.Context(), app.New("rsirevert", registry()),
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
	// Pinned from the first run: RSI(14) 30/70 on the whole embedded
	// BTCUSDT sample with 10,000 USDT; the run ends holding BTC.
	m := rep.Metrics
	got := []any{rep.Title, m.Bars, m.Trades, m.EquityFinal, m.FeesPaid, rep.FinalBalances["USDT"], rep.FinalBalances["BTC"], len(rep.FinalBalances)}
	want := []any{"btc-rsi (rsirevert)", 4294, 14, "11142.5999557016", "350.4819342239", "646.66577372", "0.22197912", 2}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("report (title, bars, trades, equity, fees, USDT, BTC, balances) = %v, want %v", got, want)
			break
		}
	}
}
