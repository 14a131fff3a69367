package backtest

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"time"
)

// WriteEquityCSV writes the equity curve: one row per bar with the time,
// the equity (to 8 decimals: float64 carries 15 significant digits, far
// below a cent for any account), the drawdown from the running peak in
// percent and whether a position was held.
//
// A million-bar run writes a million rows, so each row is appended into
// one buffered writer with strconv (no field needs CSV quoting: times,
// numbers and booleans), and a day's date is formatted once for all its
// rows, and a value equal to the row before's (the equity while no
// position is held, about 70% of a smacross run's rows) is copied rather
// than formatted again. The bytes are those encoding/csv wrote (TestWriteEquityCSVAsCSV).
func WriteEquityCSV(w io.Writer, res *Result) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString("time,equity,drawdown_pct,exposed\n"); err != nil {
		return err
	}
	dd := DrawdownSeries(res.Curve)
	var (
		st     stamper
		value  lastFloat
		ddText lastFloat
	)
	for i, p := range res.Curve.All() {
		b := bw.AvailableBuffer()
		b = st.append(b, p.At)
		b = append(b, ',')
		b = value.append(b, p.Value, 8)
		b = append(b, ',')
		b = ddText.append(b, dd[i]*100, 6)
		b = append(b, ',')
		b = strconv.AppendBool(b, res.Exposure.Held(i))
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// stamper appends a millisecond time as stamp does (RFC 3339, UTC, whole
// seconds), formatting the date only when the day changes.
type stamper struct {
	day    int64
	prefix []byte // "YYYY-MM-DDT" of day; nil before the first
}

func (s *stamper) append(b []byte, ms int64) []byte {
	sec := floorDiv(ms, 1000)
	day := floorDiv(sec, 86400)
	if s.prefix == nil || day != s.day {
		s.day = day
		s.prefix = time.Unix(day*86400, 0).UTC().AppendFormat(s.prefix[:0], "2006-01-02T")
	}
	b = append(b, s.prefix...)
	sod := sec - day*86400
	b = append2(b, sod/3600)
	b = append(b, ':')
	b = append2(b, sod/60%60)
	b = append(b, ':')
	b = append2(b, sod%60)
	return append(b, 'Z')
}

// append2 appends v, 0 to 99, as two digits.
func append2(b []byte, v int64) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

// floorDiv is a/b rounded toward minus infinity (b > 0), as time counts
// seconds and days before 1970.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// lastFloat appends a float as strconv.AppendFloat(b, v, 'f', prec, 64)
// does, reusing the text of the last value when v has the same bits.
type lastFloat struct {
	bits uint64
	text []byte // nil before the first
}

func (l *lastFloat) append(b []byte, v float64, prec int) []byte {
	if bits := math.Float64bits(v); l.text == nil || bits != l.bits {
		l.bits = bits
		l.text = strconv.AppendFloat(l.text[:0], v, 'f', prec, 64)
	}
	return append(b, l.text...)
}
