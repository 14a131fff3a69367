package backtest

import (
	"encoding/binary"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// WriteEquityCSV writes the equity curve: one row per bar with the time,
// the equity (to 8 decimals: float64 carries 15 significant digits, far
// below a cent for any account), the drawdown from the running peak in
// percent and whether a position was held.
//
// A million-bar run writes a million rows, so the rows are appended into
// blocks of bytes that are written whole (no field needs CSV quoting:
// times, numbers and booleans), a day's date is formatted once for all
// its rows, a row whose texts are the row before's (the equity while no
// position is held, about 70% of a smacross run's rows) is copied rather
// than formatted again, and floats are formatted in integers
// (fixedScaled, appendScaled). The bytes are those encoding/csv wrote
// (TestWriteEquityCSVAsCSV). A long curve's blocks are formatted on every
// core (GOMAXPROCS) and written in order.
func WriteEquityCSV(w io.Writer, res *Result) error {
	return writeEquityCSV(w, res, runtime.GOMAXPROCS(0), equityBlock)
}

// equityBlock is the rows a block of a parallel write holds (about 1.5 MB
// of text).
const equityBlock = 32 << 10

// writeEquityCSV is WriteEquityCSV on at most workers goroutines, in
// blocks of block rows (tests choose them).
func writeEquityCSV(w io.Writer, res *Result, workers, block int) error {
	n := res.Curve.Len()
	rows := curveRows{values: res.Curve.Values, runs: res.Curve.runs, held: res.Exposure}
	if workers < 2 || n < 2*block {
		// In order, in blocks of 1024 rows (about 48 KiB) written as
		// they are formatted.
		b := append(make([]byte, 0, 64<<10), equityHeader...)
		peak := math.Inf(-1)
		for lo := 0; lo < n; lo += 1024 {
			b, peak = appendEquityRows(b, &rows, peak, lo, min(lo+1024, n))
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
		if n == 0 {
			_, err := w.Write(b)
			return err
		}
		return nil
	}
	if _, err := io.WriteString(w, equityHeader); err != nil {
		return err
	}
	// Block i is formatted by whichever worker takes it and handed over in
	// done[i]; the writer asks for block i+ahead once it has written block
	// i, so at most ahead blocks of text are held at once.
	blocks := (n + block - 1) / block
	ahead := 2 * workers
	// The running peak where each block starts, as DrawdownSeries keeps
	// it.
	peaks := make([]float64, blocks)
	peak := math.Inf(-1)
	for i, v := range res.Curve.Values {
		if i%block == 0 {
			peaks[i/block] = peak
		}
		if v >= peak {
			peak = v
		}
	}
	done := make([]chan []byte, blocks)
	for i := range done {
		done[i] = make(chan []byte, 1)
	}
	jobs := make(chan int, blocks)
	free := make(chan []byte, ahead)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				var b []byte
				select {
				case b = <-free:
				default:
					b = make([]byte, 0, block*50) // a row is 45 to 50 bytes
				}
				lo := i * block
				b, _ = appendEquityRows(b, &rows, peaks[i], lo, min(lo+block, n))
				done[i] <- b
			}
		})
	}
	defer wg.Wait()
	defer close(jobs)
	for i := range min(ahead, blocks) {
		jobs <- i
	}
	for i := range blocks {
		b := <-done[i]
		if _, err := w.Write(b); err != nil {
			return err
		}
		if next := i + ahead; next < blocks {
			jobs <- next
		}
		select {
		case free <- b[:0]:
		default:
		}
	}
	return nil
}

// equityHeader is equity.csv's first line.
const equityHeader = "time,equity,drawdown_pct,exposed\n"

// curveRows is what equity.csv's rows are made of: the curve's values
// and time runs, and the exposure's words from word word0 on (a stream's
// chunk carries only the words of its rows).
type curveRows struct {
	values []float64
	runs   []timeRun
	held   Exposure
	word0  int
}

// heldAt is Exposure.Held for point i.
func (c *curveRows) heldAt(i int) bool {
	w := i/64 - c.word0
	return w >= 0 && w < len(c.held) && c.held[w]&(1<<(i%64)) != 0
}

// appendEquityRows appends rows lo to hi of the curve to b, peak the
// running peak before row lo (the drawdowns are DrawdownSeries'), and
// returns the peak after row hi-1.
//
// A row is at most rowMax bytes when both numbers' texts fit a textMax
// array (every value below 1.8e11) and the year is four digits: it is
// then assembled in place in b's
// spare capacity, each piece stored as a fixed-size array (a register
// move or two, where appending a few bytes called the runtime's memmove,
// a third of the time); a longer row is appended piece by piece. A row
// whose texts and exposure are the row before's is that row copied, with
// its own stamp: a value between two earlier values of the same texts
// under the same peak has those texts (repLo, repHi). That is every row
// while no position is held, and the whole rest of a run once the
// account can no longer trade, even while a residue below the quantity
// step moves its value in bits the text does not show.
func appendEquityRows(b []byte, c *curveRows, peak float64, lo, hi int) ([]byte, float64) {
	var (
		st     stamper
		value  lastFloat
		ddText lastFloat
		// The row before, when it was assembled in place: where it
		// starts in b (rep < 0 when it was not) and its length and
		// exposure.
		rep     = -1
		repLen  int
		repHeld bool
		// [repLo, repHi] holds values of the row before's texts seen
		// under the current peak, none zero (empty when repLo > repHi;
		// a NaN bound holds nothing): the text of a value, and of its drawdown
		// from the same peak, move one way only as it grows, so a value
		// between two of the same texts has them too.
		repLo, repHi = math.Inf(1), math.Inf(-1)
	)
	for _, r := range c.runs {
		if r.from >= hi {
			break
		}
		from, to := max(r.from, lo), min(r.from+r.n, hi)
		at := r.at + int64(from-r.from)*r.step
		for i := from; i < to; i++ {
			v, dd := c.values[i], 0.0
			held := c.heldAt(i)
			st.set(at)
			at += r.step
			if rep >= 0 && repLo <= v && v <= repHi && held == repHeld && st.long == nil {
				// The stretch of rows from i on that repeat the row
				// before: its bytes, stamped row by row.
				tmpl := *(*[rowMax]byte)(b[rep : rep+rowMax])
				for {
					b = withRow(b)
					n := len(b)
					row := (*[rowMax]byte)(b[n : n+rowMax])
					*row = tmpl
					st.whole((*[stampLen]byte)(row[:stampLen]))
					b = b[:n+repLen]
					if i+1 >= to || c.heldAt(i+1) != repHeld {
						break
					}
					if next := c.values[i+1]; next < repLo || next > repHi {
						break
					}
					if st.set(at); st.long != nil {
						break
					}
					i++
					at += r.step
				}
				rep = len(b) - repLen
				continue
			}
			if v >= peak {
				peak = v
			} else {
				dd = (peak - v) / peak
			}
			changed := value.set(v, 8)
			changed = ddText.set(dd*100, 6) || changed
			switch {
			case v == 0: // 0 and -0 are equal, and print apart
				repLo, repHi = math.Inf(1), math.Inf(-1)
			case changed || v == peak: // a new text, or a peak: the drawdowns' texts move
				repLo, repHi = v, v
			case v < repLo:
				repLo = v
			case v > repHi:
				repHi = v
			}
			if st.long == nil && value.long == nil && ddText.long == nil {
				b = withRow(b)
				n := len(b)
				row := b[n : n+rowMax]
				st.whole((*[stampLen]byte)(row))
				k := stampLen
				row[k] = ','
				*(*[textMax]byte)(row[k+1:]) = value.text
				k += 1 + value.n
				row[k] = ','
				*(*[textMax]byte)(row[k+1:]) = ddText.text
				k += 1 + ddText.n
				row[k] = ','
				if held {
					*(*[8]byte)(row[k+1:]) = [8]byte{'t', 'r', 'u', 'e', '\n'}
					k += 6
				} else {
					*(*[8]byte)(row[k+1:]) = [8]byte{'f', 'a', 'l', 's', 'e', '\n'}
					k += 7
				}
				b = b[:n+k]
				rep, repLen, repHeld = n, k, held
			} else {
				b = st.append(b)
				b = append(b, ',')
				b = value.append(b)
				b = append(b, ',')
				b = ddText.append(b)
				b = append(b, ',')
				b = strconv.AppendBool(b, held)
				b = append(b, '\n')
				rep = -1
			}
		}
	}
	return b, peak
}

// withRow is b with room for a row of rowMax bytes past its length.
func withRow(b []byte) []byte {
	if cap(b)-len(b) < rowMax {
		return slices.Grow(b, 64<<10)
	}
	return b
}

// The sizes of a row's pieces: a stamp ("2006-01-02T15:04:05Z"), a
// number's text short enough for an array, and a row of those (the
// stores run past the text they keep, so the row leaves room for a whole
// array after each).
const (
	stampLen = 20
	textMax  = 32
	rowMax   = stampLen + 1 + textMax + 1 + textMax + 1 + 8
)

// stamper formats a time as stamp does (RFC 3339, UTC, whole seconds),
// the date only when the day changes: the date into text, or for a year
// that is not four digits (before year 0, after 9999) into long, and the
// time of day ("15:04:05") into clock, its eight bytes the first the
// lowest. The time is built in a register and stored whole (whole) over
// text's stale text[11:19]: written a byte at a time and read back at
// once as a row's twenty bytes, it stalled the load that forwards
// stores, a third of a flat row's time. Its times are milliseconds since
// 1970 (set) or times (appendTime).
type stamper struct {
	dayMs  int64 // the first millisecond of the day text holds
	dated  bool
	minute int64 // the minute of the day clock holds
	sec    int64 // and its second of the minute
	clock  uint64
	text   [stampLen]byte
	long   []byte
}

// set sets the stamp of the millisecond ms (of its second, as time.Format
// writes it).
func (s *stamper) set(ms int64) {
	var sod int64
	if off := uint64(ms - s.dayMs); s.dated && off < 86_400_000 {
		// The day of the stamp before (rows go forward a step at a
		// time): no division by days, none rounding down.
		sod = int64(off / 1000)
	} else {
		sec := floorDiv(ms, 1000)
		day := floorDiv(sec, 86400)
		sod = sec - day*86400
		s.newDay(day)
	}
	m := sod / 60
	if m != s.minute {
		// The next minute of the same hour (a series of minutes) adds
		// one to the minutes' digits; any other is written out.
		if mm := uint16(s.clock >> 24); m == s.minute+1 && mm != '5'|'9'<<8 {
			if mm>>8 != '9' {
				s.clock += 1 << 32
			} else {
				s.clock = s.clock + 1<<24 - 9<<32
			}
		} else {
			s.clock = pair(m/60) | ':'<<16 | pair(m%60)<<24 | ':'<<40 | s.clock&(0xffff<<48)
		}
		s.minute = m
	}
	if sec := sod - m*60; sec != s.sec {
		s.sec = sec
		s.clock = s.clock&^(0xffff<<48) | pair(sec)<<48
	}
}

// newDay sets the date to that of day (days since 1970).
func (s *stamper) newDay(day int64) {
	s.dated, s.dayMs = true, day*86_400_000
	var buf [16]byte
	date := time.Unix(day*86400, 0).UTC().AppendFormat(buf[:0], "2006-01-02T")
	if len(date) == 11 {
		s.long = nil
	} else {
		s.long = append(s.long[:0], date...)
	}
	copy(s.text[:11], date)
	s.text[19] = 'Z'
	s.minute, s.sec = -2, -1 // neither the next minute nor a second
}

// whole stores the stamp's twenty bytes (a year of four digits) at b.
func (s *stamper) whole(b *[stampLen]byte) {
	*b = s.text
	binary.LittleEndian.PutUint64(b[11:], s.clock)
}

// pair is v, 0 to 99, as two digits, the first the lower byte.
func pair(v int64) uint64 { return uint64(digitPairs[2*v]) | uint64(digitPairs[2*v+1])<<8 }

// The seconds of the first and the last second of years 0 to 9999, the
// times appendTime formats itself.
const (
	stampFirst = -62167219200
	stampLast  = 253402300799
)

// appendTime appends stamp(t): through the stamper for a time of years
// 0 to 9999, else by time.Format.
func (s *stamper) appendTime(b []byte, t time.Time) []byte {
	sec := t.Unix()
	if sec < stampFirst || sec > stampLast {
		return t.UTC().AppendFormat(b, time.RFC3339)
	}
	s.set(sec * 1000)
	var text [stampLen]byte
	s.whole(&text)
	return append(b, text[:]...)
}

// append appends the stamp.
func (s *stamper) append(b []byte) []byte {
	var t [stampLen]byte
	s.whole(&t)
	if s.long != nil {
		return append(append(b, s.long...), t[11:]...)
	}
	return append(b, t[:]...)
}

// floorDiv is a/b rounded toward minus infinity (b > 0), as time counts
// seconds and days before 1970.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// lastFloat holds the text of a float as strconv.AppendFloat(b, v, 'f',
// prec, 64) writes it, formatted again only when the text changes: in an
// array when it fits (text[:n]), else in long. The text is v's sign and
// v·10^prec rounded (fixedScaled), so a float of other bits that rounds
// to the same keeps it: the value of an account holding a residue below
// the quantity step moves with the price in bits far below the printed
// decimals, a row at a time, for the rest of a run.
type lastFloat struct {
	bits uint64
	ok   bool // set once
	// q and neg are the scaled magnitude and sign the text was written
	// from, when scaled (fixedScaled could scale v). A lastFloat is set
	// with one prec throughout, as its bits alone decide at first.
	scaled bool
	q      uint64
	neg    bool
	n      int
	text   [textMax]byte
	long   []byte
}

// set sets the float and reports whether its text changed.
func (l *lastFloat) set(v float64, prec int) bool {
	bits := math.Float64bits(v)
	if l.ok && bits == l.bits {
		return false
	}
	q, scaled := fixedScaled(v, prec)
	neg := bits>>63 != 0
	l.bits = bits
	if scaled && l.ok && l.scaled && q == l.q && neg == l.neg {
		return false // other bits, the same text
	}
	l.ok, l.scaled, l.q, l.neg = true, scaled, q, neg
	var t []byte
	if scaled {
		t = appendScaled(l.text[:0], neg, q, prec)
	} else {
		t = strconv.AppendFloat(l.text[:0], v, 'f', prec, 64)
	}
	if len(t) > 0 && len(t) <= textMax && &t[0] == &l.text[0] {
		l.n, l.long = len(t), nil
		return true
	}
	l.long = t
	return true
}

// append appends the text.
func (l *lastFloat) append(b []byte) []byte {
	if l.long != nil {
		return append(b, l.long...)
	}
	return append(b, l.text[:l.n]...)
}

// appendScaled appends the text of a float whose magnitude times 10^prec
// rounds to q (fixedScaled), negative when neg: what strconv writes for
// it with prec decimals ("-0.00" for a negative that rounds to zero).
func appendScaled(b []byte, neg bool, q uint64, prec int) []byte {
	if neg {
		b = append(b, '-')
	}
	switch prec { // equity.csv's two: constant divisors, and the decimals in one word
	case 8:
		b = strconv.AppendUint(b, q/1e8, 10)
		b = append(b, '.', 0, 0, 0, 0, 0, 0, 0, 0)
		binary.LittleEndian.PutUint64(b[len(b)-8:], digits8(q%1e8))
		return b
	case 6:
		b = strconv.AppendUint(b, q/1e6, 10)
		b = append(b, 0, 0, 0, 0, 0, 0, 0)
		// "00" and the six digits, written over the integer part's last
		// digit and the point, which are put back.
		n := len(b) - 8
		last := b[n]
		binary.LittleEndian.PutUint64(b[n:], digits8(q%1e6))
		b[n], b[n+1] = last, '.'
		return b
	}
	ip, f := q/exchange.Pow10(prec), q%exchange.Pow10(prec)
	b = strconv.AppendUint(b, ip, 10)
	if prec == 0 {
		return b
	}
	n := len(b) + 1
	b = append(b, ".00000000"[:prec+1]...)
	k := n + prec
	for ; k-2 >= n; k -= 2 { // two digits a division
		d := f % 100 * 2
		f /= 100
		b[k-2], b[k-1] = digitPairs[d], digitPairs[d+1]
	}
	if k > n {
		b[n] = byte('0' + f)
	}
	return b
}

// digits8 is the eight decimal digits of n < 10^8, zeros leading, as the
// bytes of a little-endian word (the first digit in the lowest byte): the
// number is split into halves of four digits, four of two, eight of one,
// each step on all lanes of the word at once, dividing by multiplying.
func digits8(n uint64) uint64 {
	// Lanes of 32 bits: the first four digits and the last four.
	v := n/10000 | n%10000<<32
	// Lanes of 16 bits: x/100 is x·5243 >> 19 for x < 43,699.
	hi := v * 5243 >> 19 & 0x0000007f_0000007f
	v = hi | (v-hi*100)<<16
	// Lanes of 8 bits: y/10 is y·103 >> 10 for y < 179.
	hi = v * 103 >> 10 & 0x000f000f_000f000f
	v = hi | (v-hi*10)<<8
	return v | 0x30303030_30303030
}

// fixedScaled is v·10^prec rounded half to even to an integer, as
// strconv rounds the exact value when it writes v with prec decimals, of
// v's magnitude (the sign is v's), and true; false where that is left to
// strconv: prec outside 0 to 8, v not finite or of 1.8e11 and more.
func fixedScaled(v float64, prec int) (uint64, bool) {
	fb := math.Float64bits(v)
	bexp := int(fb >> 52 & 0x7ff)
	mant := fb & (1<<52 - 1)
	if bexp == 0x7ff || prec < 0 || prec > 8 {
		return 0, false
	}
	e := -1074
	if bexp != 0 {
		mant |= 1 << 52
		e = bexp - 1075
	}
	hi, lo := bits.Mul64(mant, exchange.Pow10(prec))
	var q uint64
	switch s := uint(-e); {
	case e >= 0:
		if e > 10 || hi != 0 || lo>>(63-uint(e)) != 0 {
			return 0, false
		}
		q = lo << uint(e)
	case s < 64:
		if hi>>s != 0 {
			return 0, false
		}
		q = hi<<(64-s) | lo>>s
		rem, half := lo&(1<<s-1), uint64(1)<<(s-1)
		if rem > half || rem == half && q&1 == 1 {
			q++
		}
	case s < 128:
		q = hi >> (s - 64)
		// The remainder against half, in two words.
		rhi, rlo := hi&(1<<(s-64)-1), lo
		halfHi, halfLo := uint64(1)<<(s-65), uint64(0)
		if s == 64 {
			rhi, halfHi, halfLo = 0, 0, 1<<63
		}
		if rhi > halfHi || rhi == halfHi && (rlo > halfLo || rlo == halfLo && q&1 == 1) {
			q++
		}
	default: // below 2^-74: rounds to zero
	}
	return q, true
}

// digitPairs are 00 to 99.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"
