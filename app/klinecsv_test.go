package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/store"
)

const goodCSV = marketdata.Header + "\n" +
	"1704067200000,42000.10,42100.00,41900.00,42050.50,12.50\n" +
	"1704070800000,42050.50,42200.00,42000.00,42150.00,8.25\n" +
	"1704081600000,42150.00,42300.00,42100.00,42250.00,0.00\n"

const badCSV = marketdata.Header + "\n" +
	"1704067200000,42000.10,42100.00,41900.00,42050.50,12.50\n" +
	"1704070800000,42050.50,42000.00,42000.00,42150.00,8.25\n" +
	"1704074400000,42150.00,42300.00,42100.00,42250.00,1\n"

func TestImportAndExport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := filepath.Join(dir, "in.csv")
	db := filepath.Join(dir, "bot.db")
	os.WriteFile(csv, []byte(goodCSV), 0o644)
	var out, errb bytes.Buffer
	if err := botArgs(t.Context(), []string{"import", "--csv", csv, "--symbol", "btcusdt", "--interval", "1h", "--db", db}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	want := csv + ": spotbot csv, open times in milliseconds\nimported 3 bars of BTCUSDT 60m from " + csv + " (3 new, 0 already stored, 0 bad rows skipped)\n" +
		"1 gaps, 2 bars missing:\n  2 bars missing from 2024-01-01T02:00:00Z to 2024-01-01T03:00:00Z\n"
	if out.String() != want {
		t.Errorf("import output:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := botArgs(t.Context(), []string{"export", "--symbol", "BTCUSDT", "--interval", "60m", "--db", db}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if out.String() != goodCSV {
		t.Errorf("export:\n%s\nwant\n%s", out.String(), goodCSV)
	}
	file := filepath.Join(dir, "out.csv")
	errb.Reset()
	if err := botArgs(t.Context(), []string{"export", "--symbol", "BTCUSDT", "--interval", "60m", "--db", db, "--from", "2024-01-01T01:00", "--csv", file}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	if want := marketdata.Header + "\n" + strings.SplitN(goodCSV, "\n", 3)[2]; string(b) != want {
		t.Errorf("export from 01:00:\n%s\nwant\n%s", b, want)
	}
	if errb.String() != "exported 2 bars to "+file+"\n" {
		t.Errorf("export message %q", errb.String())
	}
	err := botArgs(t.Context(), []string{"export", "--symbol", "ETHUSDT", "--interval", "60m", "--db", db}, &out, &errb)
	if err == nil || err.Error() != "export: no ETHUSDT 60m bars stored in the range" {
		t.Errorf("export of nothing: %v", err)
	}
}

func TestImportBadRow(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.Context(), store.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out, errb bytes.Buffer
	err = importCSV(t.Context(), st, strings.NewReader(badCSV), "bad.csv", "BTCUSDT", exchange.Interval60m, false, false, &out, &errb)
	var re *marketdata.RowError
	want := "import bad.csv as spotbot csv: line 3: high: 42000.00 is below max(open 42050.50, close 42150.00) (nothing imported; --skip-bad skips bad rows)"
	if !errors.As(err, &re) || re.Line != 3 || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
	if _, ok, _ := st.LastKline(t.Context(), "BTCUSDT", exchange.Interval60m); ok {
		t.Fatal("bars were stored from a rejected file")
	}
	if err := importCSV(t.Context(), st, strings.NewReader(badCSV), "bad.csv", "BTCUSDT", exchange.Interval60m, true, false, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if want := "skipped bad.csv: line 3: high: 42000.00 is below max(open 42050.50, close 42150.00)\n"; errb.String() != want {
		t.Errorf("stderr = %q, want %q", errb.String(), want)
	}
	if want := "bad.csv: spotbot csv, open times in milliseconds\nimported 2 bars of BTCUSDT 60m from bad.csv (2 new, 0 already stored, 1 bad rows skipped)\n1 gaps, 1 bars missing:\n  1 bar missing at 2024-01-01T01:00:00Z\n"; out.String() != want {
		t.Errorf("stdout = %q, want %q", out.String(), want)
	}
}

func TestImportUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--symbol", "BTCUSDT", "--interval", "60m"}, "usage: import: --file is required"},
		{[]string{"--csv", "x.csv", "--interval", "60m"}, "usage: import: --symbol is required"},
		{[]string{"--csv", "x.csv", "--symbol", "BTCUSDT", "--interval", "7m"}, `usage: import: --interval: unknown interval "7m"`},
	}
	for _, tt := range tests {
		err := importArgs(t.Context(), tt.args, &bytes.Buffer{}, &bytes.Buffer{})
		if !errors.Is(err, ErrUsage) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v: %v, want prefix %q", tt.args, err, tt.want)
		}
	}
	err := exportArgs(t.Context(), []string{"--symbol", "BTCUSDT", "--interval", "60m", "--db", filepath.Join(t.TempDir(), "none.db")}, &bytes.Buffer{}, &bytes.Buffer{})
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "export: stat ") {
		t.Errorf("export of a missing database: %v", err)
	}
}

// TestImportFormats imports small generated files of every format and
// checks the detected format and the stored bars' dates.
func TestImportFormats(t *testing.T) {
	t.Parallel()
	const jan1 = "2025-01-01T00:00:00Z"
	tests := []struct {
		name, text, format string
	}{
		{"binance-us.csv", "1735689600000000,93576.00,94509.20,93489.03,94401.14,755.41,1735689659999999,70997451.69,7384,380.88,35803950.81,0\n" +
			"1735689660000000,94401.14,94401.15,94000.00,94100.00,10.00,1735689719999999,941000.00,100,5.00,470500.00,0\n",
			"binance dump, open times in microseconds (guessed from their digits)"},
		{"binance-ms.csv", "1735689600000,93576.00,94509.20,93489.03,94401.14,755.41,1735689659999,70997451.69,7384,380.88,35803950.81,0\n" +
			"1735689660000,94401.14,94401.15,94000.00,94100.00,10.00,1735689719999,941000.00,100,5.00,470500.00,0\n",
			"binance dump, open times in milliseconds (guessed from their digits)"},
		{"plain.csv", "1735689600,93576.00,94509.20,93489.03,94401.14,755.41\n1735689660,94401.14,94401.15,94000.00,94100.00,10.00\n",
			"6-column csv without header, open times in seconds (guessed from their digits)"},
		{"dates.csv", "Date,Open,High,Low,Close,Adj Close,Volume\n2025-01-01 00:00:00,93576.00,94509.20,93489.03,94401.14,1,755.41\n2025-01-01 00:01:00,94401.14,94401.15,94000.00,94100.00,1,10.00\n",
			"csv with header, open times as dates (UTC)"},
		{"freqtrade.json", "[[1735689600000,93576.0,94509.2,93489.03,94401.14,755.41],\n [1735689660000,94401.14,94401.15,94000.0,94100.0,1e1]]",
			"freqtrade json, open times in milliseconds (guessed from their digits)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := store.Open(t.Context(), store.Memory)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var out, errb bytes.Buffer
			if err := importCSV(t.Context(), st, strings.NewReader(tt.text), tt.name, "BTCUSDT", exchange.Interval1m, false, false, &out, &errb); err != nil {
				t.Fatal(err)
			}
			want := tt.name + ": " + tt.format + "\nimported 2 bars of BTCUSDT 1m from " + tt.name + " (2 new, 0 already stored, 0 bad rows skipped)\n"
			if out.String() != want {
				t.Errorf("stdout = %q, want %q", out.String(), want)
			}
			ks, err := st.Klines(t.Context(), "BTCUSDT", exchange.Interval1m, time.Time{}, time.Time{})
			if err != nil || len(ks) != 2 {
				t.Fatalf("stored %d: %v", len(ks), err)
			}
			if got := ks[0].OpenTime.Format(time.RFC3339); got != jan1 {
				t.Errorf("first bar at %s, want %s", got, jan1)
			}
			if got := ks[1].Close.String() + " " + ks[1].Volume.String(); got != "94100 10" {
				t.Errorf("second bar close and volume %s", got)
			}
		})
	}
}

// TestImportRefusesFarDates: microsecond times under spotbot's
// millisecond header are refused, naming the unit and the fix.
func TestImportRefusesFarDates(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.Context(), store.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in := marketdata.Header + "\n1735689600000000,1,2,1,2,3\n"
	err = importCSV(t.Context(), st, strings.NewReader(in), "us.csv", "BTCUSDT", exchange.Interval1m, false, false, &bytes.Buffer{}, &bytes.Buffer{})
	want := "import us.csv as spotbot csv: line 2: open_time_ms: 1735689600000000 read as milliseconds is in year 56971, outside 1970-2100: " +
		"the open_time_ms header says milliseconds but 16 digits look like microseconds (Binance dumps are in microseconds since 2025); " +
		"convert the column, or name it open_time so the unit is guessed from the digits (nothing imported; --skip-bad skips bad rows)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

// TestExportImportArrow exports stored bars as an Arrow file and imports
// it into another store: the same bars.
func TestExportImportArrow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "in.csv")
	db, db2 := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	arrow := filepath.Join(dir, "btc.arrow")
	os.WriteFile(src, []byte(goodCSV), 0o644)
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{"import", "--file", src, "--symbol", "BTCUSDT", "--interval", "60m", "--db", db},
		{"export", "--symbol", "BTCUSDT", "--interval", "60m", "--db", db, "--file", arrow},
		{"import", "--file", arrow, "--symbol", "BTCUSDT", "--interval", "60m", "--db", db2},
	} {
		if err := botArgs(t.Context(), args, &out, &errb); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	if !strings.Contains(out.String(), arrow+": arrow bars file\nimported 3 bars of BTCUSDT 60m from "+arrow+" (3 new, 0 already stored, 0 bad rows skipped)\n") {
		t.Errorf("import output:\n%s", out.String())
	}
	out.Reset()
	if err := botArgs(t.Context(), []string{"export", "--symbol", "BTCUSDT", "--interval", "60m", "--db", db2}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if out.String() != goodCSV {
		t.Errorf("round trip through arrow:\n%s\nwant\n%s", out.String(), goodCSV)
	}
}
