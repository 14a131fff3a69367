package marketdata

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Format is a kind of kline file Read recognises.
type Format string

// The formats Read detects.
const (
	// FormatSpotbot is the project's CSV: the header
	// open_time_ms,open,high,low,close,volume.
	FormatSpotbot Format = "spotbot csv"
	// FormatBinance is a data.binance.vision kline dump: 12 columns
	// (open time, OHLCV, close time, quote volume, trades, taker volumes,
	// ignore), usually without a header, open times in milliseconds or
	// (spot files since 2025) microseconds.
	FormatBinance Format = "binance dump"
	// FormatPlain is a CSV without a header of 6 columns: open time, open,
	// high, low, close, volume.
	FormatPlain Format = "6-column csv without header"
	// FormatHeader is a CSV whose header names its columns (time or date,
	// open, high, low, close, volume; others are ignored), as pandas,
	// Yahoo or CryptoDataDownload write them.
	FormatHeader Format = "csv with header"
	// FormatFreqtrade is freqtrade's JSON: [[ms,o,h,l,c,v],...].
	FormatFreqtrade Format = "freqtrade json"
)

// Time units Read guesses or is told.
const (
	UnitSeconds = "seconds"
	UnitMillis  = "milliseconds"
	UnitMicros  = "microseconds"
	UnitNanos   = "nanoseconds"
	UnitDate    = "dates"
)

// Report says what Read found: the format, how open times were read and
// the bad rows it passed over.
type Report struct {
	Format Format
	// TimeUnit is how the open times were read: one of the Unit constants.
	TimeUnit string
	// UnitGuessed is true when the unit came from the digits of the
	// first time rather than from the header.
	UnitGuessed bool
	// Skipped are the bad rows passed over with SkipBad, in file order.
	Skipped []*RowError
}

// String describes the format and time unit, as commands print it.
func (r Report) String() string {
	how := "open times in " + r.TimeUnit
	if r.UnitGuessed {
		how += " (guessed from their digits)"
	}
	if r.TimeUnit == UnitDate {
		how = "open times as dates (UTC)"
	}
	return fmt.Sprintf("%s, %s", r.Format, how)
}

// Read reads one symbol's klines in any format of Format, detected from
// the first line, into a Series, validating every row as ReadCSV
// describes. Open times given as numbers must fall in 2009-2100 when their
// unit was guessed (1970-2100 under spotbot's open_time_ms header, which
// names it): outside it, the error names the unit and the fix.
//
// A large input that can be read at offsets (a file, a *bytes.Reader) is
// parsed on every core (GOMAXPROCS), with the same result and errors;
// it is left at its end.
func Read(r io.Reader, o ReadOptions) (*Series, Report, error) {
	return readOn(r, o, defaultWorkers(), parallelMin)
}

// readOn is Read with at most workers goroutines on an input of at least min
// bytes (tests choose them).
func readOn(r io.Reader, o ReadOptions, workers int, min int64) (*Series, Report, error) {
	if !o.Interval.Valid() {
		return nil, Report{}, fmt.Errorf("marketdata: interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", o.Interval)
	}
	// Where r stands and how much follows, for a parallel read, taken
	// before the buffer below reads ahead.
	src := sectionOf(r, workers, min)
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(16)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	if len(head) > 0 && head[0] == '[' {
		all, err := io.ReadAll(br)
		if err != nil {
			return nil, Report{Format: FormatFreqtrade}, fmt.Errorf("marketdata: reading: %w", err)
		}
		return readJSON(all, o)
	}
	s, rep, err := readCSV(br, o, sizeHint(r, br), src)
	if src != nil {
		// The chunks were read at offsets: leave r at the end, as a
		// sequential read does.
		r.(io.Seeker).Seek(0, io.SeekEnd)
	}
	return s, rep, err
}

// sizeHint guesses the row count from the input's size and the length of
// the lines at its start (64 bytes a line when they do not say), with
// 1/32 to spare: an undershoot grows the columns to twice their length
// and copies them, an overshoot past 1/16 is trimmed (builder.series).
func sizeHint(r io.Reader, br *bufio.Reader) int {
	var n int64
	switch v := r.(type) {
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			n = st.Size()
		}
	case interface{ Len() int }:
		n = int64(v.Len()) + int64(br.Buffered())
	}
	perLine := int64(64)
	head, _ := br.Peek(br.Size())
	if lines := int64(bytes.Count(head, []byte{'\n'})); lines >= 16 {
		perLine = max(int64(len(head))/lines, 8)
	}
	rows := n / perLine
	return int(min(rows+rows/32+16, 1<<28))
}

// layout is where a CSV's columns are.
type layout struct {
	format    Format
	ncols     int    // exact field count of a row
	col       [6]int // time, open, high, low, close, volume
	timeName  string // the time column's name in errors
	unit      string // "" until the first time decides it
	declared  bool   // the header names the unit
	firstLine bool   // the first line is a row, not a header
	fast      bool   // the first six columns are time, open, high, low, close, volume
}

const maxCols = 64

var errNoLayout = errors.New("no layout")

// detect reads the layout from the first line.
func detect(first []byte) (layout, error) {
	if string(first) == Header {
		return layout{format: FormatSpotbot, ncols: 6, col: [6]int{0, 1, 2, 3, 4, 5}, timeName: "open_time_ms", unit: UnitMillis, declared: true}, nil
	}
	fields := strings.Split(string(first), ",")
	if len(fields) > maxCols {
		return layout{}, fmt.Errorf("line 1: %d columns; at most %d are read", len(fields), maxCols)
	}
	f0 := unquote([]byte(fields[0]))
	if _, ok := timeKind(f0); ok {
		l := layout{ncols: len(fields), col: [6]int{0, 1, 2, 3, 4, 5}, timeName: "open_time", firstLine: true}
		switch len(fields) {
		case 6:
			l.format = FormatPlain
		case 12:
			l.format = FormatBinance
		default:
			return layout{}, fmt.Errorf("line 1: %d columns and no header: without one, 6 columns (open time, open, high, low, close, volume) or 12 (a Binance dump) are read; otherwise add a header naming open_time (or date), open, high, low, close and volume", len(fields))
		}
		return l, nil
	}
	l := layout{format: FormatHeader, ncols: len(fields), col: [6]int{-1, -1, -1, -1, -1, -1}}
	names := make([]string, len(fields))
	for i, f := range fields {
		n := strings.ToLower(strings.TrimSpace(string(unquote([]byte(f)))))
		names[i] = n
		slot := -1
		switch n {
		case "open_time_ms", "open_time", "opentime", "open time", "timestamp", "time", "date", "datetime", "date_time", "unix", "ts":
			slot = 0
		case "open", "o":
			slot = 1
		case "high", "h":
			slot = 2
		case "low", "l":
			slot = 3
		case "close", "c":
			slot = 4
		case "volume", "vol", "v":
			slot = 5
		}
		if slot >= 0 && l.col[slot] < 0 {
			l.col[slot] = i
			if slot == 0 {
				l.timeName = n
				if n == "open_time_ms" {
					l.unit, l.declared = UnitMillis, true
				}
			}
		}
	}
	var missing []string
	for slot, want := range [6]string{"open_time (or date, time, timestamp)", "open", "high", "low", "close", "volume"} {
		if l.col[slot] < 0 {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		return layout{}, fmt.Errorf("%w (got %q: no column named %s)", ErrHeader, truncate(first), strings.Join(missing, ", "))
	}
	if len(fields) == 12 && names[0] == "open_time" && names[6] == "close_time" {
		l.format = FormatBinance
	}
	return l, nil
}

// unquote drops one pair of surrounding double quotes.
func unquote(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}

// csvState is a sequential read of a CSV: the layout, the builder, the
// report and how far it got.
type csvState struct {
	o      ReadOptions
	rep    Report
	b      *builder
	l      layout
	fields [maxCols][]byte
	line   int   // lines read
	off    int64 // bytes read
}

func newCSVState(o ReadOptions, hint int) *csvState {
	return &csvState{o: o, b: newBuilder(o.Symbol, o.Interval, hint)}
}

// readCSV reads the CSV formats from br, sequentially, or (when src is
// set) in chunks parsed at once once the first rows have fixed the layout
// and the time unit (readpar.go).
func readCSV(br *bufio.Reader, o ReadOptions, hint int, src *section) (*Series, Report, error) {
	if src == nil {
		return newCSVState(o, hint).read(br, false)
	}
	st := newCSVState(o, 16)
	s, rep, err := st.read(br, true)
	if s != nil || err != nil {
		return s, rep, err
	}
	if s, ok := st.parallel(src); ok {
		return s, st.rep, nil
	}
	// Something in the chunks needs the sequential reading's order (a
	// bad row, rows out of order or scales that do not fit across a
	// chunk's edge): read it all again in order, which also words the
	// errors exactly.
	return newCSVState(o, hint).read(bufio.NewReaderSize(src.from(0), 64<<10), false)
}

// read reads lines to the end; with pause it returns (nil, report, nil)
// as soon as the layout and time unit are known, leaving the rest.
func (st *csvState) read(br *bufio.Reader, pause bool) (*Series, Report, error) {
	for {
		if pause && st.line > 0 && st.l.unit != "" {
			return nil, st.rep, nil
		}
		st.line++
		text, n, err := readLine(br)
		st.off += int64(n)
		if err == io.EOF && text == nil {
			if st.line == 1 {
				return nil, st.rep, fmt.Errorf("%w (the file is empty)", ErrHeader)
			}
			st.rep.Format, st.rep.TimeUnit, st.rep.UnitGuessed = st.l.format, st.l.unit, !st.l.declared && st.l.unit != UnitDate
			return st.b.series(), st.rep, nil
		}
		if err != nil && err != io.EOF {
			if errors.Is(err, bufio.ErrBufferFull) || errors.Is(err, errLongLine) {
				return nil, st.rep, &RowError{Line: st.line, Problem: fmt.Sprintf("longer than %d bytes", maxLine)}
			}
			return nil, st.rep, fmt.Errorf("marketdata: reading line %d: %w", st.line, err)
		}
		rerr, err := st.handle(text)
		if err != nil {
			return nil, st.rep, err
		}
		if rerr != nil {
			rerr.Line = st.line
			if !st.o.SkipBad {
				return nil, st.rep, rerr
			}
			st.rep.Skipped = append(st.rep.Skipped, rerr)
		}
	}
}

// handle takes one line: a bad row is a *RowError, a first line that is
// neither a header nor a row an error.
func (st *csvState) handle(text []byte) (*RowError, error) {
	l, b := &st.l, st.b
	if st.line == 1 {
		text = bytes.TrimPrefix(text, []byte("\ufeff"))
		var err error
		if *l, err = detect(text); err != nil {
			return nil, err
		}
		st.rep.Format = l.format
		l.fast = l.col == [6]int{0, 1, 2, 3, 4, 5}
		if !l.firstLine {
			return nil, nil
		}
	}
	if len(text) == 0 || l.fast && l.fastRow(b, text) {
		return nil, nil
	}
	return l.row(b, text, &st.fields), nil
}

// row parses and appends one CSV row.
func (l *layout) row(b *builder, text []byte, fields *[maxCols][]byte) *RowError {
	n := 0
	for start := 0; ; {
		if n == l.ncols {
			return l.fieldCount(n + 1)
		}
		i := bytes.IndexByte(text[start:], ',')
		if i < 0 {
			fields[n] = text[start:]
			n++
			break
		}
		fields[n] = text[start : start+i]
		n++
		start += i + 1
	}
	if n != l.ncols {
		return l.fieldCount(n)
	}
	ms, rerr := l.time(unquote(fields[l.col[0]]))
	if rerr != nil {
		return rerr
	}
	if rerr := b.checkTime(ms, l.timeName); rerr != nil {
		return rerr
	}
	var v [5]num
	var texts [5][]byte
	for f := range v {
		t := unquote(fields[l.col[f+1]])
		texts[f] = t
		x, p := parseNum(t, false)
		if p != numOK {
			return numError(seriesFieldNames[f], t, p)
		}
		v[f] = x
	}
	return b.add(ms, v, &texts)
}

func (l *layout) fieldCount(n int) *RowError {
	want := fmt.Sprintf("%d", l.ncols)
	if l.format == FormatSpotbot {
		want = Header
	} else if !l.firstLine {
		want = fmt.Sprintf("%d, as the header", l.ncols)
	}
	if n > l.ncols {
		return &RowError{Problem: fmt.Sprintf("more than %d fields (want %s)", l.ncols, want)}
	}
	if l.format == FormatSpotbot {
		want = "6 (" + Header + ")"
	}
	return &RowError{Problem: fmt.Sprintf("%d fields, want %s", n, want)}
}

func numError(field string, t []byte, p numProblem) *RowError {
	switch p {
	case numTooLong:
		return &RowError{Field: field, Problem: fmt.Sprintf("%q has more than %d significant digits (bars are held as 64-bit fixed-point values)", truncate(t), maxDigits)}
	case numTooLarge:
		return &RowError{Field: field, Problem: fmt.Sprintf("%q does not fit a 64-bit fixed-point value", truncate(t))}
	}
	return &RowError{Field: field, Problem: fmt.Sprintf("%q is not a decimal number", truncate(t))}
}

// scanDigits reads the decimal digits of text from i on into acc (acc×10 +
// digit each) and returns where they end and the value.
func scanDigits(text []byte, i int, acc uint64) (int, uint64) {
	for ; i < len(text); i++ {
		c := text[i] - '0'
		if c > 9 {
			break
		}
		acc = acc*10 + uint64(c)
	}
	return i, acc
}

// fastRow parses a row whose first six fields are time (epoch digits),
// open, high, low, close and volume as plain decimals, in one pass without
// splitting; false leaves the row to row's general path (which also words
// the errors).
func (l *layout) fastRow(b *builder, text []byte) bool {
	i, t := scanDigits(text, 0, 0)
	nd := i
	if nd == 0 || nd > 18 || i == len(text) || text[i] != ',' || l.unit != UnitMillis || t < msFrom2009 && !l.declared || t >= msTo2100 {
		return false
	}
	i++
	var v [5]num
	for f := range v {
		// Digits, then a point and digits: at most 19 digits in all, so
		// the coefficient cannot overflow and has at most 18 significant
		// digits exactly when it is below 10^18. Anything else (more
		// digits, with leading zeros, say) is the general path's.
		start := i
		var mant uint64
		i, mant = scanDigits(text, i, 0)
		nd, dec := i-start, 0
		if i < len(text) && text[i] == '.' {
			if nd == 0 {
				return false
			}
			frac := i + 1
			if i, mant = scanDigits(text, frac, mant); i == frac {
				return false
			}
			dec = i - frac
			nd += dec
		}
		if nd == 0 || nd > 19 || mant >= 1e18 || i < len(text) && text[i] != ',' {
			return false
		}
		v[f] = num{mant: int64(mant), dec: dec}
		if f < 4 {
			if i == len(text) {
				return false
			}
			i++
		}
	}
	if i != len(text) {
		// Only a Binance dump has more: exactly six more fields.
		if l.ncols != 12 || bytes.Count(text[i:], []byte{','}) != 6 {
			return false
		}
	} else if l.ncols != 6 {
		return false
	}
	ms := int64(t)
	if on, after := b.timeOK(ms); !on || !after {
		return false
	}
	return b.add(ms, v, nil) == nil
}
