package marketdata

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// parCase is an input for the parallel read; par says whether the chunks
// alone decide it (false: it needs the sequential reading).
type parCase struct {
	name string
	data string
	iv   exchange.Interval
	par  bool
}

// rowsCSV writes n one-minute rows from 2021-01-01 after head, row(i)
// overriding row i's text when it returns one.
func rowsCSV(head string, n int, row func(i int, ms int64) string) string {
	var b strings.Builder
	b.WriteString(head)
	p := int64(29_000_00)
	for i := range n {
		ms := int64(1609459200000) + int64(i)*60_000
		if s := row(i, ms); s != "" {
			b.WriteString(s)
			continue
		}
		o, c := p, p+int64(i*7919%201)-100
		fmt.Fprintf(&b, "%d,%d.%02d,%d.%02d,%d.%02d,%d.%02d,%d.%04d\n", ms, o/100, o%100, (max(o, c)+5)/100, (max(o, c)+5)%100,
			(min(o, c)-5)/100, (min(o, c)-5)%100, c/100, c%100, i*31%1000, i*7%10000)
		p = c
	}
	return b.String()
}

func parCases() []parCase {
	plain := func(int, int64) string { return "" }
	at := func(k int, text func(ms int64) string) func(int, int64) string {
		return func(i int, ms int64) string {
			if i == k {
				return text(ms)
			}
			return ""
		}
	}
	var cs []parCase
	cs = append(cs,
		parCase{"spotbot", rowsCSV(Header+"\n", 400, plain), exchange.Interval1m, true},
		parCase{"crlf blank lines, no final newline", strings.TrimSuffix(strings.ReplaceAll(rowsCSV(Header+"\n", 400, func(i int, ms int64) string {
			if i%37 == 5 {
				return "\n"
			}
			return ""
		}), "\n", "\r\n"), "\r\n"), exchange.Interval1m, true},
		parCase{"headerless", rowsCSV("", 400, plain), exchange.Interval1m, true},
		parCase{"binance micros", rowsCSV("", 400, func(i int, ms int64) string {
			return fmt.Sprintf("%d000,1.5,2.5,1.25,2,%d.5,%d999999,100.5,12,1.25,30.5,0\n", ms, i, ms+59)
		}), exchange.Interval1m, true},
		parCase{"header with dates", rowsCSV("Date,Open,High,Low,Close,Adj Close,Volume\n", 400, func(i int, ms int64) string {
			d := int64(1609459200000) + int64(i)*86_400_000
			return fmt.Sprintf("%s,10,12,9,11,11,%d\n", tm(d), i)
		}), exchange.Interval1d, true},
		parCase{"bom and quotes", rowsCSV("\ufeff\"open_time\",\"open\",\"high\",\"low\",\"close\",\"volume\"\n", 300, func(i int, ms int64) string {
			return fmt.Sprintf("\"%d\",\"10\",\"12\",\"9\",\"11\",\"%d\"\n", ms, i)
		}), exchange.Interval1m, true},
	)
	for _, k := range []int{0, 1, 97, 150, 199, 250, 399} {
		cs = append(cs,
			parCase{fmt.Sprintf("more decimals at %d", k), rowsCSV(Header+"\n", 400, at(k, func(ms int64) string {
				return fmt.Sprintf("%d,29000.125,29000.5,28999.5,29000.25,1.123456\n", ms)
			})), exchange.Interval1m, true},
			parCase{fmt.Sprintf("bad row at %d", k), rowsCSV(Header+"\n", 400, at(k, func(ms int64) string {
				return fmt.Sprintf("%d,10,9,8,11,1\n", ms)
			})), exchange.Interval1m, false},
			parCase{fmt.Sprintf("repeated time at %d", k), rowsCSV(Header+"\n", 400, at(k, func(ms int64) string {
				return fmt.Sprintf("%d,10,12,9,11,1\n", ms-60_000*int64(min(k, 3)))
			})), exchange.Interval1m, k == 0},
			parCase{fmt.Sprintf("too long at %d", k), rowsCSV(Header+"\n", 400, at(k, func(ms int64) string {
				return fmt.Sprintf("%d,10,12,9,11,1%s\n", ms, strings.Repeat("0", maxLine))
			})), exchange.Interval1m, false},
			parCase{fmt.Sprintf("wide value then decimals at %d", k), rowsCSV(Header+"\n", 400, func(i int, ms int64) string {
				switch i {
				case 0:
					return fmt.Sprintf("%d,10,923456789012345678,9,11,1\n", ms)
				case k:
					return fmt.Sprintf("%d,10.5,12,9,11,1\n", ms)
				}
				return fmt.Sprintf("%d,10,12,9,11,1\n", ms)
			}), exchange.Interval1m, k == 0},
			parCase{fmt.Sprintf("number among dates at %d", k), rowsCSV("date,open,high,low,close,volume\n", 400, func(i int, ms int64) string {
				if i == k && k > 0 {
					return fmt.Sprintf("%d,10,12,9,11,1\n", ms)
				}
				return fmt.Sprintf("%s,10,12,9,11,1\n", tm(ms))
			}), exchange.Interval1m, k == 0},
		)
	}
	return cs
}

func tm(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05")
}

// seqRead is Read on one goroutine.
func seqRead(data string, o ReadOptions) (*Series, Report, error) {
	return readOn(strings.NewReader(data), o, 1, 1<<62)
}

func TestReadParallelSameAsSequential(t *testing.T) {
	t.Parallel()
	for _, c := range parCases() {
		for _, skip := range []bool{false, true} {
			o := ReadOptions{Interval: c.iv, Symbol: "BTCUSDT", SkipBad: skip}
			want, wrep, werr := seqRead(c.data, o)
			for workers := 2; workers <= 4; workers++ {
				for _, min := range []int64{16, 256, 4096} {
					r := strings.NewReader(c.data)
					got, grep, gerr := readOn(r, o, workers, min)
					at := fmt.Sprintf("%s (skip %v, %d workers, chunks of %d+ bytes)", c.name, skip, workers, min/16)
					if fmt.Sprint(gerr) != fmt.Sprint(werr) {
						t.Fatalf("%s: error %v, want %v", at, gerr, werr)
					}
					if r.Len() != 0 {
						t.Errorf("%s: %d bytes left unread", at, r.Len())
					}
					if !sameReport(grep, wrep) {
						t.Errorf("%s: report %+v, want %+v", at, grep, wrep)
					}
					if werr == nil {
						sameSeries(t, at, got, want)
					}
				}
			}
		}
	}
}

// TestReadParallelChunks checks that the chunks alone read the inputs they
// can (so the test above compares the parallel reading, not its fallback)
// and refuse the others.
func TestReadParallelChunks(t *testing.T) {
	t.Parallel()
	for _, c := range parCases() {
		o := ReadOptions{Interval: c.iv, Symbol: "BTCUSDT"}
		want, _, werr := seqRead(c.data, o)
		for workers := 2; workers <= 4; workers++ {
			r := strings.NewReader(c.data)
			sec := sectionOf(r, workers, 16)
			st := newCSVState(o, 16)
			if s, _, err := st.read(bufio.NewReader(r), true); s != nil || err != nil {
				t.Fatalf("%s: the first lines gave %v, %v", c.name, s, err)
			}
			got, ok := st.parallel(sec)
			if ok != c.par {
				t.Errorf("%s (%d workers): chunks decided %v, want %v", c.name, workers, ok, c.par)
			}
			if ok {
				if werr != nil {
					t.Fatalf("%s: chunks read what the sequential reading refuses: %v", c.name, werr)
				}
				sameSeries(t, c.name, got, want)
			}
		}
	}
}

func sameReport(a, b Report) bool {
	if a.Format != b.Format || a.TimeUnit != b.TimeUnit || a.UnitGuessed != b.UnitGuessed || len(a.Skipped) != len(b.Skipped) {
		return false
	}
	for i := range a.Skipped {
		if *a.Skipped[i] != *b.Skipped[i] {
			return false
		}
	}
	return true
}

func sameSeries(t *testing.T, at string, got, want *Series) {
	t.Helper()
	if got.Symbol() != want.Symbol() || got.Interval() != want.Interval() || got.Len() != want.Len() ||
		got.Exp(Open) != want.Exp(Open) || got.Exp(Volume) != want.Exp(Volume) {
		t.Fatalf("%s: %s %s %d bars exp %d/%d, want %s %s %d bars exp %d/%d", at, got.Symbol(), got.Interval(), got.Len(), got.Exp(Open), got.Exp(Volume),
			want.Symbol(), want.Interval(), want.Len(), want.Exp(Open), want.Exp(Volume))
	}
	if !slices.Equal(got.Times(), want.Times()) {
		t.Fatalf("%s: times differ", at)
	}
	for f := Open; f <= Volume; f++ {
		if !slices.Equal(got.Ints(f), want.Ints(f)) {
			t.Fatalf("%s: %s differs", at, f)
		}
	}
	if bytesPerBar(got) > 48*1.07+64*48/float64(got.Len()) {
		t.Errorf("%s: %.1f bytes a bar", at, bytesPerBar(got))
	}
}

// TestReadParallelFile reads a file large enough for Read's own threshold
// on two goroutines, the way LoadSeries reads one.
func TestReadParallelFile(t *testing.T) {
	t.Parallel()
	data := genCSV(100_000)
	if len(data) < parallelMin {
		t.Fatalf("%d bytes: below the parallel threshold %d", len(data), parallelMin)
	}
	o := ReadOptions{Interval: exchange.Interval1m}
	want, wrep, err := readOn(bytes.NewReader(data), o, 1, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	got, grep, err := readOn(bytes.NewReader(data), o, 2, parallelMin)
	if err != nil {
		t.Fatal(err)
	}
	if !sameReport(grep, wrep) || grep.Format != FormatSpotbot {
		t.Errorf("report %+v, want %+v", grep, wrep)
	}
	sameSeries(t, "file", got, want)
	if got.Hash() != want.Hash() || got.Len() != 100_000 {
		t.Errorf("%d bars", got.Len())
	}
}

// fastRow accepts only rows the general path reads the same way: random
// rows of spotbot's layout, with numbers of every shape, through both.
func TestFastRowAsGeneral(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	parts := []string{"0", "00", "1", "9", "10", "05", "123", "999999999", "1234567890123456789", "12345678901234567890", ""}
	num := func() string {
		s := parts[rng.IntN(len(parts))]
		switch rng.IntN(6) {
		case 0, 1:
			s += "." + parts[rng.IntN(len(parts))]
		case 2:
			s = strings.Repeat("0", rng.IntN(20)) + s
		case 3:
			if rng.IntN(4) == 0 {
				s = []string{"-1", "1e3", ".5", "5.", "1.2.3", " 1", "1,"}[rng.IntN(7)]
			}
		}
		return s
	}
	l, err := detect([]byte(Header))
	if err != nil {
		t.Fatal(err)
	}
	l.fast = true
	fast := 0
	for range 200_000 {
		row := fmt.Sprintf("1609459200000,%s,%s,%s,%s,%s", num(), num(), num(), num(), num())
		if rng.IntN(3) == 0 { // a row that passes the value rules more often
			v := num()
			row = fmt.Sprintf("1609459200000,%s,%s,%s,%s,%s", v, v, v, v, num())
		}
		fb := newBuilder("", exchange.Interval1m, 1)
		if !l.fastRow(fb, []byte(row)) {
			if fb.s.Len() != 0 {
				t.Fatalf("%s: refused but appended", row)
			}
			continue
		}
		fast++
		gb := newBuilder("", exchange.Interval1m, 1)
		var fields [maxCols][]byte
		if rerr := l.row(gb, []byte(row), &fields); rerr != nil {
			t.Fatalf("%s: fastRow took it, the general path says %v", row, rerr)
		}
		if fb.priceDec != gb.priceDec || fb.volDec != gb.volDec || !slices.Equal(fb.s.t, gb.s.t) {
			t.Fatalf("%s: scale %d/%d, want %d/%d", row, fb.priceDec, fb.volDec, gb.priceDec, gb.volDec)
		}
		for f := range fb.s.cols {
			if !slices.Equal(fb.s.cols[f], gb.s.cols[f]) {
				t.Fatalf("%s: %s %v, want %v", row, Field(f), fb.s.cols[f], gb.s.cols[f])
			}
		}
	}
	if fast < 10_000 {
		t.Errorf("fastRow took only %d rows", fast)
	}
}
