package marketdata

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

// FuzzReadCSV checks that ReadCSV never panics, that what it accepts obeys
// the rules, and that writing accepted klines and reading them again gives
// the same klines.
func FuzzReadCSV(f *testing.F) {
	f.Add([]byte(Header + "\n1605571200000,16713.080000,16830.000000,16683.630000,16806.090000,2861.4\n"))
	f.Add([]byte(Header + "\r\n1605571200000,1,2,1,2,0\r\n1605574800000,2,3,1,2,5\r\n"))
	f.Add([]byte(Header + "\n1605571200000,1,2,1,2\n"))
	f.Add([]byte(Header + "\n1605571200000,1e3,2,1,2,1\n"))
	f.Add([]byte(Header + "\n1605571200000,-1,2,1,2,1\n1605571200000,1,2,1,2,1\n"))
	f.Add([]byte(Header + "\n1605571200000,123456789012345678901234.5,123456789012345678901234.5,1,2,3\n"))
	f.Add([]byte("open,high\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, skip := range []bool{false, true} {
			res, err := ReadCSV(bytes.NewReader(in), ReadOptions{Interval: exchange.Interval60m, SkipBad: skip})
			if err != nil {
				continue
			}
			if verr := Validate(res.Klines, exchange.Interval60m); verr != nil {
				t.Fatalf("accepted klines break the rules: %v", verr)
			}
			var out bytes.Buffer
			if err := WriteCSV(&out, res.Klines); err != nil {
				t.Fatal(err)
			}
			again, err := ReadCSV(&out, ReadOptions{Interval: exchange.Interval60m})
			if err != nil {
				t.Fatalf("written klines do not read back: %v\n%s", err, out.String())
			}
			if len(again.Klines) != len(res.Klines) {
				t.Fatalf("read back %d klines, want %d", len(again.Klines), len(res.Klines))
			}
			for i, k := range res.Klines {
				g := again.Klines[i]
				if !g.OpenTime.Equal(k.OpenTime) || g.Open.String() != k.Open.String() || g.High.Exponent() != k.High.Exponent() ||
					!g.Low.Equal(k.Low) || !g.Close.Equal(k.Close) || !g.Volume.Equal(k.Volume) {
					t.Fatalf("bar %d read back as %+v, want %+v", i, g, k)
				}
			}
		}
	})
}

// FuzzRead checks that Read never panics on any format and that what it
// accepts obeys the rules and survives WriteSeries and a second Read with
// the same hash.
func FuzzRead(f *testing.F) {
	f.Add([]byte("1735689600000000,1,2,1,2,3,1735689659999999,1,1,1,1,0\n"))
	f.Add([]byte("date,open,high,low,close,volume\n2025-01-01 00:00:00,1,2,1,2,3\n"))
	f.Add([]byte("[[1735689600000,1.5e1,16,1,2,3]]"))
	f.Add([]byte("1735689600,1,2,1,2,3\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, _, err := Read(bytes.NewReader(in), ReadOptions{Interval: exchange.Interval1m, SkipBad: true})
		if err != nil {
			return
		}
		if verr := Validate(s.Klines(), exchange.Interval1m); verr != nil {
			t.Fatalf("accepted bars break the rules: %v", verr)
		}
		var out bytes.Buffer
		if err := WriteSeries(&out, s); err != nil {
			t.Fatal(err)
		}
		again, _, err := Read(&out, ReadOptions{Interval: exchange.Interval1m})
		if err != nil || again.Hash() != s.Hash() {
			t.Fatalf("written bars do not read back the same: %v", err)
		}
	})
}

// FuzzReadParallel checks that reading in chunks on two and three
// goroutines (chunks of a byte and more) gives what the sequential
// reading gives: the same bars, report, skipped rows and error.
func FuzzReadParallel(f *testing.F) {
	f.Add([]byte(Header+"\n1605571200000,1,2,1,2,3\n1605574800000,1.5,2,1,2,3\n\n1605578400000,1,2.25,1,2,3\n"), false)
	f.Add([]byte("1735689600000000,1,2,1,2,3,1735689659999999,1,1,1,1,0\n1735693200000000,1,2,1,2,3,1735693259999999,1,1,1,1,0\n"), true)
	f.Add([]byte("date,open,high,low,close,volume\n2025-01-01 00:00:00,1,2,1,2,3\n1735693200000,1,2,1,2,3\n2025-01-01 02:00,1,2,1,2,3\n"), true)
	f.Add([]byte(Header+"\r\n1605571200000,10,923456789012345678,9,11,1\r\n1605574800000,10.5,12,9,11,1\r\n1605574800000,1,2,1,2,3"), true)
	f.Fuzz(func(t *testing.T, in []byte, skip bool) {
		o := ReadOptions{Interval: exchange.Interval60m, SkipBad: skip}
		want, wrep, werr := readOn(bytes.NewReader(in), o, 1, 1<<62)
		for workers := 2; workers <= 3; workers++ {
			got, grep, gerr := readOn(bytes.NewReader(in), o, workers, 16)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("%d goroutines: error %v, want %v", workers, gerr, werr)
			}
			if !sameReport(grep, wrep) {
				t.Fatalf("%d goroutines: report %+v, want %+v", workers, grep, wrep)
			}
			if werr == nil {
				sameSeries(t, fmt.Sprintf("%d goroutines", workers), got, want)
			}
		}
	})
}
