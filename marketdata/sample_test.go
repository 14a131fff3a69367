package marketdata

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

func TestSample(t *testing.T) {
	t.Parallel()
	tests := []struct {
		symbol      string
		first, last exchange.Kline
	}{
		{"BTCUSDT",
			exchange.Kline{OpenTime: ms("2020-11-17T00:00:00Z"), Open: dec("16713.08"), High: dec("16830"), Low: dec("16683.63"), Close: dec("16806.09"), Volume: dec("2861.4")},
			exchange.Kline{OpenTime: ms("2021-05-16T00:00:00Z"), Open: dec("46762.99"), High: dec("47698"), Low: dec("46467"), Close: dec("47283.43"), Volume: dec("5439.3")}},
		{"ETHUSDT",
			exchange.Kline{OpenTime: ms("2020-11-18T00:00:00Z"), Open: dec("482.11"), High: dec("488.25"), Low: dec("481.74"), Close: dec("486.75"), Volume: dec("98754.3")},
			exchange.Kline{OpenTime: ms("2021-05-17T00:00:00Z"), Open: dec("3581.81"), High: dec("3587.06"), Low: dec("3458.54"), Close: dec("3465.98"), Volume: dec("51103.5")}},
	}
	for _, tt := range tests {
		t.Run(tt.symbol, func(t *testing.T) {
			t.Parallel()
			ks, err := Sample(tt.symbol)
			if err != nil {
				t.Fatal(err)
			}
			if len(ks) != 4309 {
				t.Fatalf("%d bars, want 4309", len(ks))
			}
			for i, pair := range [][2]exchange.Kline{{ks[0], tt.first}, {ks[len(ks)-1], tt.last}} {
				g, w := pair[0], pair[1]
				if !g.OpenTime.Equal(w.OpenTime) || !g.Open.Equal(w.Open) || !g.High.Equal(w.High) || !g.Low.Equal(w.Low) ||
					!g.Close.Equal(w.Close) || !g.Volume.Equal(w.Volume) || !g.CloseTime.Equal(w.OpenTime.Add(3599999e6)) {
					t.Errorf("bar %d = %+v, want %+v", i, g, w)
				}
			}
			gaps := Gaps(ks, SampleInterval)
			missing := 0
			for _, g := range gaps {
				missing += g.Missing
			}
			if len(gaps) != 7 || missing != 12 {
				t.Errorf("%d gaps, %d missing bars; want 7, 12", len(gaps), missing)
			}
			// A fresh slice per call: changing one does not change the next.
			ks[0].Open = dec("1")
			again, _ := Sample(tt.symbol)
			if !again[0].Open.Equal(tt.first.Open) {
				t.Errorf("Sample shares its slice between calls")
			}
		})
	}
	if _, err := Sample("XRPUSDT"); err == nil || err.Error() != `marketdata: no sample data for "XRPUSDT" (known: BTCUSDT, ETHUSDT)` {
		t.Errorf("unknown symbol: %v", err)
	}
	if n := SampleNotice(); !strings.Contains(n, "rodrigo-brito/ninjabot") || !strings.Contains(n, "MIT License") {
		t.Errorf("notice lacks provenance: %q", n[:80])
	}
}

// TestSampleMatchesSharedData checks the embedded copies against the
// originals byte for byte, and that writing them back reproduces them.
func TestSampleMatchesSharedData(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "shared", "data")
	for _, s := range SampleSymbols() {
		orig, err := os.ReadFile(filepath.Join(dir, s+"-1h.csv"))
		if err != nil {
			t.Skipf("shared data not available (%v); the embedded sample is checked by TestSample", err)
		}
		emb, err := sampleFS.ReadFile("sample/" + s + "-1h.csv")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(orig, emb) {
			t.Errorf("%s: embedded copy differs from %s", s, dir)
		}
		ks, err := Sample(s)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteCSV(&out, ks); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), orig) {
			t.Errorf("%s: written back differs from the original", s)
		}
	}
}
