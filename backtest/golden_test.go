package backtest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/strategies"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// defaultRun runs the embedded default backtest.
func defaultRun(t *testing.T) (Spec, *Result, Report) {
	t.Helper()
	reg := strategies.NewRegistry()
	text, err := configs.FS.ReadFile("backtest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(text, nil, nil, reg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromConfig(c, reg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return s, res, NewReport("btc-cross (smacross)", s, res)
}

// reports renders every report of the embedded default backtest
// (configs/backtest.yaml: smacross on the BTCUSDT sample).
func reports(t *testing.T) map[string][]byte {
	t.Helper()
	s, res, rep := defaultRun(t)
	out := map[string][]byte{}
	var b bytes.Buffer
	for name, write := range map[string]func() error{
		"summary.txt": func() error { return rep.WriteSummary(&b) },
		"report.json": func() error { return rep.WriteJSON(&b) },
		"trades.csv":  func() error { return rep.WriteTradesCSV(&b) },
		"equity.csv":  func() error { return WriteEquityCSV(&b, res) },
		"report.html": func() error { return WriteHTML(&b, rep, s, res, HTMLOptions{Note: "static"}) },
		// A stand-in library: the page's data and script, without the
		// browser.
		"interactive.html": func() error { return WriteHTML(&b, rep, s, res, HTMLOptions{Script: []byte("/* library */")}) },
	} {
		b.Reset()
		if err := write(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = bytes.Clone(b.Bytes())
	}
	return out
}

// TestGoldenSMACrossSample pins the default backtest to the cent: the
// summary, the JSON report and the trades must equal the committed golden
// files byte for byte. Run with -update after an intended change and read
// the diff.
func TestGoldenSMACrossSample(t *testing.T) {
	t.Parallel()
	got := reports(t)
	for _, name := range []string{"summary.txt", "report.json", "trades.csv"} {
		path := filepath.Join("testdata", "smacross-sample."+name)
		if *update {
			if err := os.WriteFile(path, got[name], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./backtest -run Golden -update to create it)", err)
		}
		if !bytes.Equal(got[name], want) {
			t.Errorf("%s differs from %s; rerun with -update and review the diff", name, path)
		}
	}
}

// TestDeterministicInParallel runs the same backtest four times at once:
// every report must be byte-identical, so runs share no state.
func TestDeterministicInParallel(t *testing.T) {
	t.Parallel()
	const n = 4
	outs := make([]map[string][]byte, n)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = reports(t)
		}()
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		for name, b := range outs[0] {
			if !bytes.Equal(b, outs[i][name]) {
				t.Errorf("run %d: %s differs from run 0", i, name)
			}
		}
	}
}
