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
	// Symbol names the series' symbol (files rarely say).
	Symbol string
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

// Error returns "line N: field: problem" ("field: problem" without a
// line, as Builder reports a bar).
func (e *RowError) Error() string {
	prefix := ""
	if e.Line > 0 {
		prefix = fmt.Sprintf("line %d: ", e.Line)
	}
	if e.Field == "" {
		return prefix + e.Problem
	}
	return prefix + e.Field + ": " + e.Problem
}

// ErrHeader reports a first line that is neither a header Read knows nor
// a row of a headerless format.
var ErrHeader = errors.New("marketdata: the first line must be a header naming the columns (" + Header + ") or a row of a format read without one")

// ReadCSV reads klines from r, in any format Read detects, validating
// every row: an open time on an interval boundary and strictly after the
// previous good row's, positive prices, high ≥ max(open, close), low ≤
// min(open, close) and a non-negative volume, each value at most 18
// significant digits. A bad row stops the read with a *RowError naming
// its line, unless o.SkipBad is set. Blank lines are ignored, CRLF line
// ends accepted. The klines are materialised from Read's Series, so their
// decimals carry the series' scale (the most decimals any row wrote).
func ReadCSV(r io.Reader, o ReadOptions) (Result, error) {
	s, rep, err := Read(r, o)
	if err != nil {
		return Result{Skipped: rep.Skipped}, err
	}
	return Result{Klines: s.Klines(), Skipped: rep.Skipped}, nil
}

var errLongLine = errors.New("line too long")

// readLine returns the next line without its line end and the bytes it
// took from br (the line end included); nil and io.EOF at the end of
// input.
func readLine(br *bufio.Reader) ([]byte, int, error) {
	text, err := br.ReadSlice('\n')
	n := len(text)
	if errors.Is(err, bufio.ErrBufferFull) || len(text) > maxLine {
		return text, n, errLongLine
	}
	if err == io.EOF && len(text) == 0 {
		return nil, 0, io.EOF
	}
	if err != nil && err != io.EOF {
		return nil, n, err
	}
	text = bytes.TrimSuffix(text, []byte("\n"))
	text = bytes.TrimSuffix(text, []byte("\r"))
	return text, n, nil
}

func txt(d decimal.Decimal) string { return string(AppendDecimal(nil, d)) }

// Validate applies ReadCSV's rules to klines already in memory (for
// example before exporting them); the error names the bar by its index and
// open time.
func Validate(ks []exchange.Kline, iv exchange.Interval) error {
	_, err := FromKlines("", iv, ks)
	return err
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
