package marketdata

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

func ms(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestReadCSVGood(t *testing.T) {
	t.Parallel()
	in := Header + "\r\n" +
		"1605571200000,16713.080000,16830.000000,16683.630000,16806.090000,2861.4\r\n" +
		"\n" +
		"1605574800000,16806.09,16806.93,16666.4,16690.21,0\n" +
		"1605578400000,123456789012.5,123456789012.5,1,2,3" // no final newline
	res, err := ReadCSV(strings.NewReader(in), ReadOptions{Interval: exchange.Interval60m})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Klines) != 3 || len(res.Skipped) != 0 {
		t.Fatalf("got %d klines, %d skipped; want 3, 0", len(res.Klines), len(res.Skipped))
	}
	k := res.Klines[0]
	want := exchange.Kline{OpenTime: ms("2020-11-17T00:00:00Z"), Open: dec("16713.08"), High: dec("16830"), Low: dec("16683.63"),
		Close: dec("16806.09"), Volume: dec("2861.4"), CloseTime: ms("2020-11-17T00:59:59.999Z")}
	if !k.OpenTime.Equal(want.OpenTime) || !k.CloseTime.Equal(want.CloseTime) || !k.Open.Equal(want.Open) ||
		!k.High.Equal(want.High) || !k.Low.Equal(want.Low) || !k.Close.Equal(want.Close) || !k.Volume.Equal(want.Volume) || !k.QuoteVolume.IsZero() {
		t.Errorf("first kline = %+v, want %+v", k, want)
	}
	if got := k.Open.String(); got != "16713.08" {
		t.Errorf("open = %s", got)
	}
	if got := k.Open.Exponent(); got != -6 {
		t.Errorf("open has the series' scale: exponent %d, want -6", got)
	}
	if got := res.Klines[1].Open.Exponent(); got != -6 {
		t.Errorf("second open has the series' scale: exponent %d, want -6", got)
	}
	if got := res.Klines[2].High.String(); got != "123456789012.5" {
		t.Errorf("long decimal = %s", got)
	}
	if !res.Klines[1].Volume.IsZero() {
		t.Errorf("zero volume = %s", res.Klines[1].Volume)
	}
}

func TestReadCSVBadRows(t *testing.T) {
	t.Parallel()
	const r1 = "1605571200000,10,12,9,11,1\n"
	tests := []struct {
		name string
		row  string
		want string
	}{
		{"too few fields", "1605574800000,10,12,9,11", "line 3: 5 fields, want 6 (" + Header + ")"},
		{"too many fields", "1605574800000,10,12,9,11,1,7", "line 3: more than 6 fields (want " + Header + ")"},
		{"time not a number", "x,10,12,9,11,1", `line 3: open_time_ms: "x" is not a positive integer of milliseconds`},
		{"time zero", "0,10,12,9,11,1", `line 3: open_time_ms: "0" is not a positive integer of milliseconds`},
		{"time equal", "1605571200000,10,12,9,11,1", "line 3: open_time_ms: 1605571200000 (2020-11-17T00:00:00Z) is not after the previous row's 1605571200000 (2020-11-17T00:00:00Z)"},
		{"time backwards", "1605567600000,10,12,9,11,1", "line 3: open_time_ms: 1605567600000 (2020-11-16T23:00:00Z) is not after the previous row's 1605571200000 (2020-11-17T00:00:00Z)"},
		{"time off boundary", "1605574800001,10,12,9,11,1", "line 3: open_time_ms: 1605574800001 (2020-11-17T01:00:00Z) is not on a 60m boundary"},
		{"open not decimal", "1605574800000,1e3,12,9,11,1", `line 3: open: "1e3" is not a decimal number`},
		{"high empty", "1605574800000,10,,9,11,1", `line 3: high: "" is not a decimal number`},
		{"low trailing dot", "1605574800000,10,12,9.,11,1", `line 3: low: "9." is not a decimal number`},
		{"close zero", "1605574800000,10,12,9,0,1", "line 3: close: 0 is not a positive price"},
		{"open negative", "1605574800000,-10,12,9,11,1", "line 3: open: -10 is not a positive price"},
		{"high below open", "1605574800000,13,12,9,11,1", "line 3: high: 12 is below max(open 13, close 11)"},
		{"high below close", "1605574800000,10,12,9,12.5,1", "line 3: high: 12 is below max(open 10, close 12.5)"},
		{"low above close", "1605574800000,10,12,9,8.99,1", "line 3: low: 9 is above min(open 10, close 8.99)"},
		{"values quoted as written", "1605574800000,10.00,12.50,9.10,9.000,1", "line 3: low: 9.10 is above min(open 10.00, close 9.000)"},
		{"negative volume", "1605574800000,10,12,9,11,-0.1", "line 3: volume: -0.1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := Header + "\n" + r1 + tt.row + "\n1605582000000,10,12,9,11,1\n"
			_, err := ReadCSV(strings.NewReader(in), ReadOptions{Interval: exchange.Interval60m})
			var re *RowError
			if !errors.As(err, &re) || err.Error() != tt.want || re.Line != 3 {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			res, err := ReadCSV(strings.NewReader(in), ReadOptions{Interval: exchange.Interval60m, SkipBad: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Klines) != 2 || !res.Klines[1].OpenTime.Equal(ms("2020-11-17T03:00:00Z")) {
				t.Fatalf("skip-bad kept %d klines: %+v", len(res.Klines), res.Klines)
			}
			if len(res.Skipped) != 1 || res.Skipped[0].Error() != tt.want {
				t.Fatalf("skipped = %v", res.Skipped)
			}
		})
	}
}

func TestReadCSVHeaderAndInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		iv       exchange.Interval
		want     string
	}{
		{"empty", "", exchange.Interval60m, ErrHeader.Error() + " (the file is empty)"},
		{"wrong header", "when,o,h,x,c,v\n", exchange.Interval60m, ErrHeader.Error() + ` (got "when,o,h,x,c,v": no column named open_time (or date, time, timestamp), low)`},
		{"headerless 7 columns", "1605571200000,1,2,1,2,5,9\n", exchange.Interval60m, "line 1: 7 columns and no header: without one, 6 columns (open time, open, high, low, close, volume) or 12 (a Binance dump) are read; otherwise add a header naming open_time (or date), open, high, low, close and volume"},
		{"too many digits", Header + "\n1605571200000,123456789012345678901234.5,123456789012345678901234.5,1,2,3\n", exchange.Interval60m,
			`line 2: open: "123456789012345678901234.5" has more than 18 significant digits (bars are held as 64-bit fixed-point values)`},
		{"scale overflow", Header + "\n1605571200000,1,2,1,2,3\n1605574800000,1,922337203685477580,0.000000001,2,3\n", exchange.Interval60m,
			`line 3: high: 922337203685477580 with 9 decimals (the series' scale) does not fit a 64-bit fixed-point value`},
		{"bad interval", Header + "\n", "1h", `marketdata: interval "1h" is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M`},
		{"long line", Header + "\n" + strings.Repeat("1", 5000) + "\n", exchange.Interval60m, "line 2: longer than 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadCSV(strings.NewReader(tt.in), ReadOptions{Interval: tt.iv})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
	res, err := ReadCSV(strings.NewReader("\ufeff"+Header+"\n"), ReadOptions{Interval: exchange.Interval1d})
	if err != nil || len(res.Klines) != 0 {
		t.Fatalf("header only with BOM: %v, %d klines", err, len(res.Klines))
	}
}

func TestMonthlyCloseTime(t *testing.T) {
	t.Parallel()
	in := Header + "\n1328054400000,1,2,1,2,5\n1330560000000,2,3,2,3,5\n" // 2012-02-01, 2012-03-01
	res, err := ReadCSV(strings.NewReader(in), ReadOptions{Interval: exchange.Interval1M})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Klines[0].CloseTime; !got.Equal(ms("2012-02-29T23:59:59.999Z")) {
		t.Errorf("February close = %s", got)
	}
	if g := Gaps(res.Klines, exchange.Interval1M); len(g) != 0 {
		t.Errorf("gaps = %v", g)
	}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	t.Parallel()
	in := Header + "\n" +
		"1605571200000,16713.08000000,16830.00000000,16683.63000000,16806.09000000,2861.4\n" +
		"1605574800000,0.00005352,0.00005400,0.00005300,0.00005352,100.0\n" +
		"1605578400000,1234567890.12345678,1234567890.12345678,1.00000000,1.00000000,0.0\n"
	res, err := ReadCSV(strings.NewReader(in), ReadOptions{Interval: exchange.Interval60m})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteCSV(&out, res.Klines); err != nil {
		t.Fatal(err)
	}
	if out.String() != in {
		t.Fatalf("round trip:\n%s\nwant\n%s", out.String(), in)
	}
}

func TestAppendDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    decimal.Decimal
		want string
	}{
		{decimal.New(0, 0), "0"},
		{decimal.New(0, -3), "0.000"},
		{decimal.New(5, 2), "500"},
		{decimal.New(-15, -1), "-1.5"},
		{decimal.New(-15, -4), "-0.0015"},
		{dec("-123456789012345678901234567890.10"), "-123456789012345678901234567890.10"},
		{dec("0.0000000000000000000000000001"), "0.0000000000000000000000000001"},
	}
	for _, tt := range tests {
		if got := string(AppendDecimal(nil, tt.d)); got != tt.want {
			t.Errorf("AppendDecimal(%s) = %s, want %s", tt.d, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	k := func(open string, o, h, l, c string) exchange.Kline {
		return exchange.Kline{OpenTime: ms(open), Open: dec(o), High: dec(h), Low: dec(l), Close: dec(c), Volume: dec("1")}
	}
	tests := []struct {
		name string
		ks   []exchange.Kline
		want string
	}{
		{"good", []exchange.Kline{k("2021-01-01T00:00:00Z", "1", "2", "1", "2"), k("2021-01-01T01:00:00Z", "2", "2", "1", "1")}, ""},
		{"order", []exchange.Kline{k("2021-01-01T01:00:00Z", "1", "2", "1", "2"), k("2021-01-01T00:00:00Z", "2", "2", "1", "1")},
			"marketdata: bar 1 (2021-01-01T00:00:00Z): open time is not after the previous bar's"},
		{"boundary", []exchange.Kline{k("2021-01-01T00:30:00Z", "1", "2", "1", "2")},
			"marketdata: bar 0 (2021-01-01T00:30:00Z): open time is not on a 60m boundary"},
		{"low", []exchange.Kline{k("2021-01-01T00:00:00Z", "1", "2", "1.5", "2")},
			"marketdata: bar 0 (2021-01-01T00:00:00Z): low: 1.5 is above min(open 1, close 2)"},
	}
	for _, tt := range tests {
		err := Validate(tt.ks, exchange.Interval60m)
		if (err == nil && tt.want != "") || (err != nil && err.Error() != tt.want) {
			t.Errorf("%s: Validate = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestGaps(t *testing.T) {
	t.Parallel()
	at := func(s ...string) []exchange.Kline {
		var ks []exchange.Kline
		for _, x := range s {
			ks = append(ks, exchange.Kline{OpenTime: ms(x)})
		}
		return ks
	}
	ks := at("2021-01-01T00:00:00Z", "2021-01-01T01:00:00Z", "2021-01-01T03:00:00Z", "2021-01-01T07:00:00Z", "2021-01-01T08:00:00Z")
	got := Gaps(ks, exchange.Interval60m)
	want := []Gap{
		{From: ms("2021-01-01T02:00:00Z"), To: ms("2021-01-01T02:00:00Z"), Missing: 1},
		{From: ms("2021-01-01T04:00:00Z"), To: ms("2021-01-01T06:00:00Z"), Missing: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("gaps = %v", got)
	}
	for i := range want {
		if !got[i].From.Equal(want[i].From) || !got[i].To.Equal(want[i].To) || got[i].Missing != want[i].Missing {
			t.Errorf("gap %d = %v, want %v", i, got[i], want[i])
		}
	}
	if s := got[0].String(); s != "1 bar missing at 2021-01-01T02:00:00Z" {
		t.Errorf("String = %s", s)
	}
	if s := got[1].String(); s != "3 bars missing from 2021-01-01T04:00:00Z to 2021-01-01T06:00:00Z" {
		t.Errorf("String = %s", s)
	}
}
