// Package marketdata reads, validates and writes klines in the project's CSV
// format, reports gaps in a series, and embeds a small sample dataset that
// backtests and paper trading use when no other data is given.
//
// The format is the one of ../shared/data: a header line
//
//	open_time_ms,open,high,low,close,volume
//
// then one row per bar, open time in milliseconds since the epoch (UTC),
// prices and volume as decimal text. Volume is in the base asset.
package marketdata

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Header is the first line of every kline CSV file.
const Header = "open_time_ms,open,high,low,close,volume"

// maxLine bounds one row, so a file without newlines cannot exhaust memory.
const maxLine = 4096

// ReadOptions configure ReadCSV.
type ReadOptions struct {
	// Interval is the bars' interval; it sets each bar's close time and
	// rows whose open time is not on an interval boundary are bad. Required.
	Interval exchange.Interval
	// SkipBad skips bad rows (reporting them in Result.Skipped) instead of
	// stopping at the first.
	SkipBad bool
}

// Result is what ReadCSV read.
type Result struct {
	// Klines are the good rows, in file order (strictly increasing open
	// times). CloseTime is the last millisecond of each bar; QuoteVolume is
	// zero, as the format does not carry it.
	Klines []exchange.Kline
	// Skipped are the bad rows passed over with SkipBad, in file order.
	Skipped []*RowError
}

// RowError is a bad row: its 1-based line number in the file, the field at
// fault (empty for the row as a whole) and the problem.
type RowError struct {
	Line    int
	Field   string
	Problem string
}

// Error returns "line N: field: problem".
func (e *RowError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Problem)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Problem)
}

// ErrHeader reports a missing or different header line.
var ErrHeader = errors.New("marketdata: the first line must be " + Header)

var fieldNames = [6]string{"open_time_ms", "open", "high", "low", "close", "volume"}

// ReadCSV reads klines from r, validating every row: six fields, an open
// time on an interval boundary and strictly after the previous good row's,
// positive prices, high ≥ max(open, close), low ≤ min(open, close) and a
// non-negative volume. A bad row stops the read with a *RowError naming
// its line, unless o.SkipBad is set. Blank lines are ignored, CRLF line
// ends accepted.
func ReadCSV(r io.Reader, o ReadOptions) (Result, error) {
	if !o.Interval.Valid() {
		return Result{}, fmt.Errorf("marketdata: interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", o.Interval)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var res Result
	var last time.Time
	for line := 1; ; line++ {
		text, err := readLine(br)
		if err == io.EOF && text == nil {
			if line == 1 {
				return res, fmt.Errorf("%w (the file is empty)", ErrHeader)
			}
			return res, nil
		}
		if err != nil && err != io.EOF {
			if errors.Is(err, bufio.ErrBufferFull) || errors.Is(err, errLongLine) {
				return res, &RowError{Line: line, Problem: fmt.Sprintf("longer than %d bytes", maxLine)}
			}
			return res, fmt.Errorf("marketdata: reading line %d: %w", line, err)
		}
		if line == 1 {
			if string(bytes.TrimPrefix(text, []byte("\ufeff"))) != Header {
				return res, fmt.Errorf("%w (got %q)", ErrHeader, truncate(text))
			}
			continue
		}
		if len(text) == 0 {
			continue
		}
		k, rerr := parseRow(text, line, o.Interval, last)
		if rerr != nil {
			if !o.SkipBad {
				return res, rerr
			}
			res.Skipped = append(res.Skipped, rerr)
			continue
		}
		last = k.OpenTime
		res.Klines = append(res.Klines, k)
	}
}

var errLongLine = errors.New("line too long")

// readLine returns the next line without its line end; nil and io.EOF at
// the end of input.
func readLine(br *bufio.Reader) ([]byte, error) {
	text, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) || len(text) > maxLine {
		return text, errLongLine
	}
	if err == io.EOF && len(text) == 0 {
		return nil, io.EOF
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	text = bytes.TrimSuffix(text, []byte("\n"))
	text = bytes.TrimSuffix(text, []byte("\r"))
	return text, nil
}

func parseRow(text []byte, line int, iv exchange.Interval, last time.Time) (exchange.Kline, *RowError) {
	var fields [6][]byte
	n := 0
	for start := 0; ; {
		i := bytes.IndexByte(text[start:], ',')
		if n == 6 {
			return exchange.Kline{}, &RowError{Line: line, Problem: fmt.Sprintf("more than 6 fields (want %s)", Header)}
		}
		if i < 0 {
			fields[n] = text[start:]
			n++
			break
		}
		fields[n] = text[start : start+i]
		n++
		start += i + 1
	}
	if n != 6 {
		return exchange.Kline{}, &RowError{Line: line, Problem: fmt.Sprintf("%d fields, want 6 (%s)", n, Header)}
	}
	ms, err := strconv.ParseInt(string(fields[0]), 10, 64)
	if err != nil || ms <= 0 {
		return exchange.Kline{}, &RowError{Line: line, Field: fieldNames[0], Problem: fmt.Sprintf("%q is not a positive integer of milliseconds", truncate(fields[0]))}
	}
	open := time.UnixMilli(ms).UTC()
	if !iv.Truncate(open).Equal(open) {
		return exchange.Kline{}, &RowError{Line: line, Field: fieldNames[0], Problem: fmt.Sprintf("%d (%s) is not on a %s boundary", ms, open.Format(time.RFC3339), iv)}
	}
	if !last.IsZero() && !open.After(last) {
		return exchange.Kline{}, &RowError{Line: line, Field: fieldNames[0], Problem: fmt.Sprintf("%d (%s) is not after the previous row's %d (%s)", ms, open.Format(time.RFC3339), last.UnixMilli(), last.Format(time.RFC3339))}
	}
	var vals [5]decimal.Decimal
	for i := range vals {
		d, err := ParseDecimal(fields[i+1])
		if err != nil {
			return exchange.Kline{}, &RowError{Line: line, Field: fieldNames[i+1], Problem: fmt.Sprintf("%q is not a decimal number", truncate(fields[i+1]))}
		}
		vals[i] = d
	}
	k := exchange.Kline{OpenTime: open, Open: vals[0], High: vals[1], Low: vals[2], Close: vals[3], Volume: vals[4],
		CloseTime: iv.Next(open).Add(-time.Millisecond)}
	if rerr := check(k); rerr != nil {
		rerr.Line = line
		return exchange.Kline{}, rerr
	}
	return k, nil
}

// check applies the price and volume rules to one bar; Line is left zero.
// Values are quoted as the file wrote them (trailing zeros kept).
func check(k exchange.Kline) *RowError {
	for i, p := range []decimal.Decimal{k.Open, k.High, k.Low, k.Close} {
		if !p.IsPositive() {
			return &RowError{Field: fieldNames[i+1], Problem: txt(p) + " is not a positive price"}
		}
	}
	switch {
	case k.High.LessThan(decimal.Max(k.Open, k.Close)):
		return &RowError{Field: "high", Problem: fmt.Sprintf("%s is below max(open %s, close %s)", txt(k.High), txt(k.Open), txt(k.Close))}
	case k.Low.GreaterThan(decimal.Min(k.Open, k.Close)):
		return &RowError{Field: "low", Problem: fmt.Sprintf("%s is above min(open %s, close %s)", txt(k.Low), txt(k.Open), txt(k.Close))}
	case k.Volume.IsNegative():
		return &RowError{Field: "volume", Problem: txt(k.Volume) + " is negative"}
	}
	return nil
}

func txt(d decimal.Decimal) string { return string(AppendDecimal(nil, d)) }

// Validate applies ReadCSV's rules to klines already in memory (for
// example before exporting them); the error names the bar by its index and
// open time.
func Validate(ks []exchange.Kline, iv exchange.Interval) error {
	for i, k := range ks {
		at := k.OpenTime.UTC().Format(time.RFC3339)
		if !iv.Truncate(k.OpenTime).Equal(k.OpenTime) {
			return fmt.Errorf("marketdata: bar %d (%s): open time is not on a %s boundary", i, at, iv)
		}
		if i > 0 && !k.OpenTime.After(ks[i-1].OpenTime) {
			return fmt.Errorf("marketdata: bar %d (%s): open time is not after the previous bar's", i, at)
		}
		if rerr := check(k); rerr != nil {
			return fmt.Errorf("marketdata: bar %d (%s): %s: %s", i, at, rerr.Field, rerr.Problem)
		}
	}
	return nil
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
