package marketdata

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

const threeBars = Header + "\n" +
	"1735689600000,93576.00,94509.20,93489.03,94401.14,755.41\n" +
	"1735689660000,94401.14,94401.15,94000,94100.5,10\n" +
	"1735689720000,94100.5,94200,94050,94150,0.001\n"

func read(t *testing.T, text string, iv exchange.Interval) (*Series, Report) {
	t.Helper()
	s, rep, err := Read(strings.NewReader(text), ReadOptions{Interval: iv, Symbol: "BTCUSDT"})
	if err != nil {
		t.Fatal(err)
	}
	return s, rep
}

func TestSeriesAccess(t *testing.T) {
	t.Parallel()
	s, rep := read(t, threeBars, exchange.Interval1m)
	if rep.String() != "spotbot csv, open times in milliseconds" {
		t.Errorf("report = %q", rep)
	}
	if s.Len() != 3 || s.Symbol() != "BTCUSDT" || s.Exp(Open) != -2 || s.Exp(Close) != -2 || s.Exp(Volume) != -3 {
		t.Fatalf("len %d, exponents %d %d", s.Len(), s.Exp(Open), s.Exp(Volume))
	}
	if got := s.Decimal(Close, 1).String(); got != "94100.5" {
		t.Errorf("Decimal = %s", got)
	}
	if got := s.Int(Low, 1); got != 9400000 {
		t.Errorf("Int = %d", got)
	}
	if got := s.Float(High, 0); got != 94509.2 {
		t.Errorf("Float = %v", got)
	}
	if got := s.AppendFloats(nil, Volume); len(got) != 3 || got[0] != 755.41 || got[1] != 10 || got[2] != 0.001 {
		t.Errorf("AppendFloats = %v", got)
	}
	k := s.Kline(2)
	if k.OpenTime != time.Date(2025, 1, 1, 0, 2, 0, 0, time.UTC) || k.CloseTime != time.Date(2025, 1, 1, 0, 2, 59, 999e6, time.UTC) ||
		k.Open.String() != "94100.5" || k.Open.Exponent() != -2 || k.Volume.String() != "0.001" || !k.QuoteVolume.IsZero() {
		t.Errorf("Kline = %+v", k)
	}
	cut := s.Between(time.Date(2025, 1, 1, 0, 1, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 2, 0, 0, time.UTC))
	if cut.Len() != 1 || cut.OpenMs(0) != 1735689660000 || &cut.Times()[0] != &s.Times()[1] {
		t.Errorf("Between: %d bars, shares columns: %v", cut.Len(), cut.Len() == 1 && &cut.Times()[0] == &s.Times()[1])
	}
	if s.Between(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}).Len() != 0 {
		t.Error("Between after the end is not empty")
	}
	if first, last := s.Range(); first.UnixMilli() != 1735689600000 || last.UnixMilli() != 1735689720000 {
		t.Errorf("Range = %v %v", first, last)
	}
}

// The hash is of the bars, not of the text: the same bars written with
// other scales, in other formats, hash the same; a changed value does not.
func TestSeriesHashStable(t *testing.T) {
	t.Parallel()
	s, _ := read(t, threeBars, exchange.Interval1m)
	h := s.HashString()
	// The canonical encoding written out by hand (prices at exponent -2,
	// volumes at -3: no trailing zero common to every value).
	enc := []byte(hashVersion + "1m\n")
	enc = binary.LittleEndian.AppendUint64(enc, 3)
	pexp, vexp := int32(-2), int32(-3)
	enc = binary.LittleEndian.AppendUint32(enc, uint32(pexp))
	enc = binary.LittleEndian.AppendUint32(enc, uint32(vexp))
	for _, v := range []int64{1735689600000, 1735689660000, 1735689720000,
		9357600, 9440114, 9410050, 9450920, 9440115, 9420000, 9348903, 9400000, 9405000, 9440114, 9410050, 9415000,
		755410, 10000, 1} {
		enc = binary.LittleEndian.AppendUint64(enc, uint64(v))
	}
	if want := fmt.Sprintf("%x", sha256.Sum256(enc)); h != want || h != "ca8f3b8a9a3f57503a9042091876546f354df48de09b86f77d8d5b1ca63bf3dd" {
		t.Fatalf("hash %s, want %s", h, want)
	}
	same := []string{
		// More decimals everywhere.
		Header + "\n1735689600000,93576.0000,94509.2000,93489.0300,94401.1400,755.410000\n" +
			"1735689660000,94401.1400,94401.1500,94000.0000,94100.5000,10.000000\n" +
			"1735689720000,94100.5000,94200.0000,94050.0000,94150.0000,0.001000\n",
		// A Binance dump in microseconds.
		"1735689600000000,93576.00,94509.20,93489.03,94401.14,755.41,1735689659999999,1,1,1,1,0\n" +
			"1735689660000000,94401.14,94401.15,94000.00,94100.50,10.00,1735689719999999,1,1,1,1,0\n" +
			"1735689720000000,94100.50,94200.00,94050.00,94150.00,0.001,1735689779999999,1,1,1,1,0\n",
		// Dates with a header.
		"date,open,high,low,close,volume\n2025-01-01T00:00:00Z,93576,94509.2,93489.03,94401.14,755.41\n" +
			"2025-01-01 00:01:00,94401.14,94401.15,94000,94100.5,10\n2025-01-01 00:02,94100.5,94200,94050,94150,0.001\n",
		// freqtrade's JSON, with an exponent.
		"[[1735689600000, 93576.0, 94509.2, 93489.03, 94401.14, 755.41],\n[1735689660000, 94401.14, 94401.15, 94000.0, 94100.5, 10.0],\n[1735689720000, 94100.5, 94200.0, 94050.0, 94150.0, 1e-3]]\n",
	}
	for i, text := range same {
		if got, _ := read(t, text, exchange.Interval1m); got.HashString() != h {
			t.Errorf("variant %d hashes %s, want %s", i, got.HashString(), h)
		}
	}
	fromKlines, err := FromKlines("X", exchange.Interval1m, s.Klines())
	if err != nil || fromKlines.HashString() != h {
		t.Errorf("FromKlines: %v, hash %s", err, fromKlines.HashString())
	}
	other, _ := read(t, strings.Replace(threeBars, "0.001\n", "0.002\n", 1), exchange.Interval1m)
	if other.HashString() == h {
		t.Error("a changed volume hashes the same")
	}
	other, _ = read(t, threeBars, exchange.Interval1m)
	if o5, _ := FromKlines("", exchange.Interval1d, nil); o5.HashString() == other.Slice(0, 0).HashString() {
		t.Error("the interval is not part of the hash")
	}
}

func TestReadFormatsReported(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, report string
		first              string
	}{
		{"binance ms with header", "open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore\n" +
			"1735689600000,1,2,1,2,3,1735689659999,1,1,1,1,0\n", "binance dump, open times in milliseconds (guessed from their digits)", "2025-01-01T00:00:00Z"},
		{"plain microseconds", "1735689600000000,1,2,1,2,3\n", "6-column csv without header, open times in microseconds (guessed from their digits)", "2025-01-01T00:00:00Z"},
		{"headerless dates", "2025-01-01,1,2,1,2,3\n", "6-column csv without header, open times as dates (UTC)", "2025-01-01T00:00:00Z"},
		{"quoted header and offset", "\"Timestamp\",\"Open\",\"High\",\"Low\",\"Close\",\"Volume\"\n\"2025-01-01T01:00:00+01:00\",1,2,1,2,3\n", "csv with header, open times as dates (UTC)", "2025-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		s, rep := read(t, tt.text, exchange.Interval1m)
		if rep.String() != tt.report || s.Len() != 1 || s.OpenTime(0).Format(time.RFC3339) != tt.first {
			t.Errorf("%s: %q, %d bars, first %s", tt.name, rep, s.Len(), s.OpenTime(0).Format(time.RFC3339))
		}
	}
}

func TestReadRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want string
	}{
		{"guessed unit out of range", "1735689600,1,2,1,2,3\n17356896000000000000,1,2,1,2,3\n",
			`line 2: open_time: "17356896000000000000" is not a time: give epoch seconds, milliseconds or microseconds, or a date (2021-01-01, 2021-01-01 00:00:00, 2021-01-01T00:00:00Z)`},
		{"before 2009", "946684800000,1,2,1,2,3\n",
			"line 1: open_time: 946684800000 read as milliseconds is in year 2000, outside 2009-2100: the unit was guessed from the digits of the first time; this one has 12 digits (milliseconds?): give every row's time in one unit, or dates"},
		{"mixed units", "1735689600000,1,2,1,2,3\n1735689660000000,1,2,1,2,3\n",
			"line 2: open_time: 1735689660000000 read as milliseconds is in year 56971, outside 2009-2100: the unit was guessed from the digits of the first time; this one has 16 digits (microseconds?): give every row's time in one unit, or dates"},
		{"bad date", "date,open,high,low,close,volume\n2025-02-30,1,2,1,2,3\n",
			`line 2: date: "2025-02-30" is not a date (use 2021-01-01, 2021-01-01 00:00:00 or 2021-01-01T00:00:00Z)`},
		{"json row", "[[1735689600000,1,2,1,2],\n[1735689660000,1,2,1,2,3]]", "line 1: 5 values, want 6 (open time ms, open, high, low, close, volume)"},
		{"json structure", "[[1735689600000,1,2,1,2,3]\n[1]]", "line 2: not freqtrade JSON ([[ms,open,high,low,close,volume],...]): rows must be separated by commas"},
		{"json value", "[[1735689600000,1,2,1,2,3],\n[1735689660000,1,2,x,2,3]]", `line 2: low: "x" is not a decimal number`},
	}
	for _, tt := range tests {
		_, _, err := Read(strings.NewReader(tt.text), ReadOptions{Interval: exchange.Interval1m})
		var re *RowError
		if err == nil || err.Error() != tt.want || !errors.As(err, &re) {
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
	}
	// SkipBad passes over a bad JSON row, naming its line.
	s, rep, err := Read(strings.NewReader("[[1735689600000,1,2,1,2],\n[1735689660000,1,2,1,2,3]]"), ReadOptions{Interval: exchange.Interval1m, SkipBad: true})
	if err != nil || s.Len() != 1 || len(rep.Skipped) != 1 || rep.Skipped[0].Line != 1 {
		t.Errorf("skip-bad json: %v, %d bars, %v", err, s.Len(), rep.Skipped)
	}
}

// sharedData is ../shared/data from this package's folder.
const sharedData = "../../shared/data"

// TestReadSharedFiles reads every real file of ../shared/data (spotbot's
// CSV, from Binance, Bittrex, Coinbase and stock sources), and checks the
// series written back is the file byte for byte where the file writes
// one scale per column, and the hash survives the round trip.
func TestReadSharedFiles(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(sharedData, "*.csv"))
	if len(files) == 0 {
		t.Skip("../shared/data is absent (it exists for the project's CI and developers only)")
	}
	ivs := map[string]exchange.Interval{"1m": exchange.Interval1m, "5m": exchange.Interval5m, "30m": exchange.Interval30m, "1h": exchange.Interval60m, "1d": exchange.Interval1d, "1M": exchange.Interval1M}
	rows := map[string]int{"ETH_BTC-1m.csv": 14397, "Coinbase_BTCUSD-1h.csv": 20111, "BTCUSDT-1h.csv": 4309, "ORCL-1d.csv": 5036, "BTCUSD-1M.csv": 156}
	for _, f := range files {
		base := filepath.Base(f)
		name := strings.TrimSuffix(base, ".csv")
		iv := ivs[name[strings.LastIndexByte(name, '-')+1:]]
		if strings.HasSuffix(name, "-btadj") {
			iv = exchange.Interval1d
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, rep, err := Read(bytes.NewReader(data), ReadOptions{Interval: iv})
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		if rep.Format != FormatSpotbot {
			t.Errorf("%s: format %s", base, rep.Format)
		}
		if want, ok := rows[base]; ok && s.Len() != want {
			t.Errorf("%s: %d bars, want %d", base, s.Len(), want)
		}
		// In chunks of 4 KiB and more on two and three goroutines: the
		// same bars (the files' scales differ from row to row, so the
		// chunks' are joined), and the sequential reading does not have
		// to decide.
		seq, _, err := readOn(bytes.NewReader(data), ReadOptions{Interval: iv}, 1, 1<<62)
		if err != nil {
			t.Fatal(err)
		}
		for workers := 2; workers <= 3; workers++ {
			par, prep, err := readOn(bytes.NewReader(data), ReadOptions{Interval: iv}, workers, 64<<10)
			if err != nil || !sameReport(prep, rep) {
				t.Fatalf("%s on %d goroutines: %v, %+v", base, workers, err, prep)
			}
			sameSeries(t, base, par, seq)
			if len(data) >= 64<<10 {
				r := bytes.NewReader(data)
				st := newCSVState(ReadOptions{Interval: iv}, 16)
				sec := sectionOf(r, workers, 64<<10)
				if s, _, err := st.read(bufio.NewReader(r), true); s != nil || err != nil {
					t.Fatalf("%s: the first lines gave %v, %v", base, s, err)
				}
				if _, ok := st.parallel(sec); !ok {
					t.Errorf("%s on %d goroutines: the chunks did not decide", base, workers)
				}
			}
		}
		var out bytes.Buffer
		if err := WriteSeries(&out, s); err != nil {
			t.Fatal(err)
		}
		written := out.String()
		again, _, err := Read(&out, ReadOptions{Interval: iv})
		if err != nil || again.HashString() != s.HashString() {
			t.Errorf("%s: written and read again: %v", base, err)
		}
		if base == "BTCUSDT-1h.csv" && written != string(data) {
			t.Errorf("%s: not written back byte for byte", base)
		}
	}
}
