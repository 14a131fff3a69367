package app

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/store"
)

var jan1 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// simWith600Bars is an exchange that has traded 600 hourly BTCUSDT bars
// from 2024-01-01, its clock 10 minutes into the next (unclosed) bar.
func simWith600Bars(t *testing.T) *sim.Exchange {
	t.Helper()
	x, err := sim.New(sim.Options{Start: jan1, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 600 {
		open := jan1.Add(time.Duration(i) * time.Hour)
		p := decimal.NewFromInt(int64(20000 + i))
		k := exchange.Kline{OpenTime: open, Open: p, High: p.Add(decimal.NewFromInt(3)), Low: p.Sub(decimal.NewFromInt(2)),
			Close: p.Add(decimal.NewFromInt(1)), Volume: decimal.RequireFromString("1.50"), CloseTime: open.Add(time.Hour - time.Millisecond)}
		if err := x.FeedKline("BTCUSDT", exchange.Interval60m, k); err != nil {
			t.Fatal(err)
		}
	}
	x.Advance(10 * time.Minute)
	return x
}

func TestDownloadPlainProgress(t *testing.T) {
	t.Parallel()
	x := simWith600Bars(t)
	st, err := store.Open(t.Context(), store.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out, errb bytes.Buffer
	req, err := downloadRequest("btcusdt", "1h", "2024-01-01", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := downloadAll(t.Context(), x.Master(), st, []store.DownloadRequest{req}, 1, &out, &errb, false); err != nil {
		t.Fatal(err)
	}
	wantErr := "BTCUSDT 60m: 0/600 bars (0%), through -, 0 requests\n" +
		"BTCUSDT 60m: 500/600 bars (83%), through 2024-01-21 19:00, 1 request\n" +
		"BTCUSDT 60m: 600/600 bars (100%), through 2024-01-25 23:00, 2 requests\n"
	if errb.String() != wantErr {
		t.Errorf("progress:\n%s\nwant\n%s", errb.String(), wantErr)
	}
	if want := "BTCUSDT 60m: 600 new bars in 2 requests, last bar 2024-01-25T23:00:00Z, into :memory:\n"; out.String() != want {
		t.Errorf("summary = %q, want %q", out.String(), want)
	}
}

func TestProgressBar(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := &downloadProgress{w: &b, tty: true}
	p.update(store.DownloadProgress{Symbol: "BTCUSDT", Interval: "60m", Done: 300, Total: 600, Last: jan1.Add(299 * time.Hour), Requests: 1})
	p.update(store.DownloadProgress{Symbol: "ETHUSDT", Interval: "1m", Done: 0, Total: 10})
	p.update(store.DownloadProgress{Symbol: "BTCUSDT", Interval: "60m", Done: 600, Total: 600, Last: jan1.Add(599 * time.Hour), Requests: 2})
	btc1 := "\r\x1b[2KBTCUSDT 60m [###############               ]  50% 300/600 through 2024-01-13 11:00\n"
	eth := "\r\x1b[2KETHUSDT 1m [                              ]   0% 0/10 through -\n"
	btc2 := "\r\x1b[2KBTCUSDT 60m [##############################] 100% 600/600 through 2024-01-25 23:00\n"
	// Each update redraws every bar in place: up as many lines as drawn.
	want := btc1 + "\x1b[1A" + btc1 + eth + "\x1b[2A" + btc2 + eth
	if b.String() != want {
		t.Errorf("bar = %q\nwant  %q", b.String(), want)
	}
}

// TestDownloadCommandOverHTTP runs bot download against the simulated
// exchange served over HTTP, then again to check that it resumes.
func TestDownloadCommandOverHTTP(t *testing.T) {
	t.Parallel()
	x := simWith600Bars(t)
	srv, err := simserver.New(x, simserver.Options{Clock: x})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	db := filepath.Join(t.TempDir(), "bot.db")
	args := []string{"download", "--symbol", "BTCUSDT", "--interval", "60m", "--from", "2024-01-01", "--to", "2024-01-22T00:00", "--db", db, "--base-url", ts.URL}
	var out, errb bytes.Buffer
	if err := botArgs(t.Context(), args, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if want := "BTCUSDT 60m: 504 new bars in 2 requests, last bar 2024-01-21T23:00:00Z, into " + db + "\n"; out.String() != want {
		t.Errorf("first run: %q, want %q", out.String(), want)
	}
	out.Reset()
	args[8] = "2024-02-01"
	if err := botArgs(t.Context(), args, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if want := "BTCUSDT 60m: 96 new bars in 1 request, last bar 2024-01-25T23:00:00Z, into " + db + "\n"; out.String() != want {
		t.Errorf("resumed run: %q, want %q", out.String(), want)
	}
	st := readStore(t, db)
	ks, err := st.Klines(t.Context(), "BTCUSDT", exchange.Interval60m, time.Time{}, time.Time{})
	if err != nil || len(ks) != 600 || ks[599].Close.String() != "20600" || ks[0].Volume.String() != "1.5" {
		t.Fatalf("stored %d bars, %v", len(ks), err)
	}
}

func TestDownloadUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--interval", "60m", "--from", "2024-01-01"}, "usage: download: --symbol is required"},
		{[]string{"--symbol", "BTCUSDT", "--interval", "2h", "--from", "2024-01-01"}, `usage: download: --interval: unknown interval "2h"`},
		{[]string{"--symbol", "BTCUSDT", "--interval", "60m"}, "usage: download: --from or --days is required"},
		{[]string{"--symbol", "BTCUSDT", "--interval", "60m", "--from", "yesterday"}, `usage: download: --from: "yesterday" is not a time`},
		{[]string{"--symbol", "BTCUSDT", "--interval", "60m", "--from", "2024-01-01", "--to", "x"}, `usage: download: --to: "x" is not a time`},
		{[]string{"--symbol", "BTCUSDT", "--interval", "60m", "--from", "2024-01-01"}, "usage: download: --base-url is required, or --config with exchange.base_url (the interface's spec documents no default address)"},
		{[]string{"--bogus"}, "usage: unknown flag: --bogus\nRun 'bot download --help' for usage."},
	}
	for _, tt := range tests {
		err := downloadArgs(t.Context(), tt.args, &bytes.Buffer{}, &bytes.Buffer{})
		if !errors.Is(err, ErrUsage) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v: %v, want prefix %q", tt.args, err, tt.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2024-01-02", time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"2024-01-02T15:04", time.Date(2024, 1, 2, 15, 4, 0, 0, time.UTC)},
		{"2024-01-02 15:04", time.Date(2024, 1, 2, 15, 4, 0, 0, time.UTC)},
		{"2024-01-02T15:04:05+02:00", time.Date(2024, 1, 2, 13, 4, 5, 0, time.UTC)},
		{"1704067200000", jan1},
	}
	for _, tt := range tests {
		got, err := parseTime(tt.in)
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// --symbol given twice (or as a list) downloads each symbol in turn: the
// first is stored and reported before the second, which the exchange
// does not list, fails.
func TestDownloadSeveralSymbols(t *testing.T) {
	t.Parallel()
	x := simWith600Bars(t)
	srv, err := simserver.New(x, simserver.Options{Clock: x})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	for _, symbols := range [][]string{{"--symbol", "btcusdt", "--symbol", "NOPEUSDT"}, {"--symbol", "btcusdt,NOPEUSDT"}} {
		db := filepath.Join(t.TempDir(), "bot.db")
		var out, errb bytes.Buffer
		err = downloadArgs(t.Context(), append(symbols, "--interval", "60m", "--from", "2024-01-25", "--to", "2024-01-26",
			"--db", db, "--base-url", ts.URL), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), `download NOPEUSDT 60m interrupted`) || !strings.Contains(err.Error(), `bad symbol "NOPEUSDT"`) {
			t.Errorf("%v: %v", symbols, err)
		}
		if want := "BTCUSDT 60m: 24 new bars in 1 request, last bar 2024-01-25T23:00:00Z, into " + db + "\n"; out.String() != want {
			t.Errorf("%v: output %q, want %q", symbols, out.String(), want)
		}
	}
}

// TestDownloadSeriesConcurrently fetches one symbol at two intervals (the
// second given by a repeated flag, the symbol repeated in a list and so
// downloaded once), the start from --days and the address from the
// configuration, and reruns to show each series resumes.
func TestDownloadSeriesConcurrently(t *testing.T) {
	t.Parallel()
	x := simWith600Bars(t)
	srv, err := simserver.New(x, simserver.Options{Clock: x})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bot.yaml")
	if err := os.WriteFile(cfg, []byte("mode: paper\nexchange: {base_url: \""+ts.URL+"\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "bot.db")
	args := []string{"--symbol", "BTCUSDT,btcusdt", "--interval", "60m", "--interval", "4h", "--days", "3", "--db", db, "--config", cfg}
	var out, errb bytes.Buffer
	if err := downloadArgs(t.Context(), args, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	// The exchange's time is 2024-01-26 00:10: three days back is
	// 2024-01-23 00:10, so the first whole bars open at 01:00 and 04:00.
	want := "BTCUSDT 60m: 71 new bars in 1 request, last bar 2024-01-25T23:00:00Z, into " + db + "\n" +
		"BTCUSDT 4h: 17 new bars in 1 request, last bar 2024-01-25T20:00:00Z, into " + db + "\n"
	if out.String() != want {
		t.Errorf("first run:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := downloadArgs(t.Context(), args, &out, &errb); err != nil {
		t.Fatal(err)
	}
	want = "BTCUSDT 60m: 0 new bars in 0 requests, last bar 2024-01-25T23:00:00Z, into " + db + "\n" +
		"BTCUSDT 4h: 0 new bars in 0 requests, last bar 2024-01-25T20:00:00Z, into " + db + "\n"
	if out.String() != want {
		t.Errorf("rerun:\n%s\nwant\n%s", out.String(), want)
	}
}
