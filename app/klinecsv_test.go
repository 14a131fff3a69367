package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/store"
)

const goodCSV = marketdata.Header + "\n" +
	"1704067200000,42000.10,42100.00,41900.00,42050.50,12.5\n" +
	"1704070800000,42050.50,42200.00,42000.00,42150.00,8.25\n" +
	"1704081600000,42150.00,42300.00,42100.00,42250.00,0.00\n"

const badCSV = marketdata.Header + "\n" +
	"1704067200000,42000.10,42100.00,41900.00,42050.50,12.5\n" +
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
	want := "imported 3 bars of BTCUSDT 60m from " + csv + " (3 new, 0 already stored, 0 bad rows skipped)\n" +
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
	err = importCSV(t.Context(), st, strings.NewReader(badCSV), "bad.csv", "BTCUSDT", exchange.Interval60m, false, &out, &errb)
	var re *marketdata.RowError
	want := "import bad.csv: line 3: high: 42000.00 is below max(open 42050.50, close 42150.00) (nothing imported; --skip-bad skips bad rows)"
	if !errors.As(err, &re) || re.Line != 3 || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
	if _, ok, _ := st.LastKline(t.Context(), "BTCUSDT", exchange.Interval60m); ok {
		t.Fatal("bars were stored from a rejected file")
	}
	if err := importCSV(t.Context(), st, strings.NewReader(badCSV), "bad.csv", "BTCUSDT", exchange.Interval60m, true, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if want := "skipped bad.csv: line 3: high: 42000.00 is below max(open 42050.50, close 42150.00)\n"; errb.String() != want {
		t.Errorf("stderr = %q, want %q", errb.String(), want)
	}
	if want := "imported 2 bars of BTCUSDT 60m from bad.csv (2 new, 0 already stored, 1 bad rows skipped)\n1 gaps, 1 bars missing:\n  1 bar missing at 2024-01-01T01:00:00Z\n"; out.String() != want {
		t.Errorf("stdout = %q, want %q", out.String(), want)
	}
}

func TestImportUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--symbol", "BTCUSDT", "--interval", "60m"}, "usage: import: --csv is required"},
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
