package marketdata

import (
	"fmt"
	"time"
)

// The window of plausible open times: a unit guessed from the digits must
// put the first bar in 2009-2100 (crypto markets); a unit the header names
// (spotbot's open_time_ms) or a date may go back to 1970 (old stock data).
const (
	msFrom2009 = 1230768000000
	msTo2100   = 4102444800000
)

// timeKind reports whether b looks like an open time: digits, or a date.
func timeKind(b []byte) (string, bool) {
	if isDate(b) {
		return UnitDate, true
	}
	if len(b) == 0 {
		return "", false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return "number", true
}

func isDate(b []byte) bool {
	return len(b) >= 10 && b[4] == '-' && b[7] == '-' && digits(b[0:4]) && digits(b[5:7]) && digits(b[8:10])
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// guessUnit names the epoch unit a positive integer of n digits is in for
// a date of this century.
func guessUnit(n int) string {
	switch {
	case n <= 11:
		return UnitSeconds
	case n <= 14:
		return UnitMillis
	case n <= 17:
		return UnitMicros
	}
	return UnitNanos
}

// time reads an open time in milliseconds, deciding the unit from the
// first time when the header does not name it.
func (l *layout) time(b []byte) (int64, *RowError) {
	if isDate(b) {
		ms, ok := parseDate(b)
		if !ok {
			return 0, &RowError{Field: l.timeName, Problem: fmt.Sprintf("%q is not a date (use 2021-01-01, 2021-01-01 00:00:00 or 2021-01-01T00:00:00Z)", truncate(b))}
		}
		if l.unit == "" {
			l.unit = UnitDate
		}
		if ms < 0 || ms >= msTo2100 {
			return 0, &RowError{Field: l.timeName, Problem: fmt.Sprintf("%s is outside 1970-2100", truncate(b))}
		}
		return ms, nil
	}
	var v uint64
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' || n == 19 {
			return 0, l.badTime(b)
		}
		v = v*10 + uint64(c-'0')
		n++
	}
	if n == 0 || v == 0 {
		return 0, l.badTime(b)
	}
	if l.unit == "" || l.unit == UnitDate {
		l.unit = guessUnit(n)
	}
	var ms int64
	whole := true
	switch l.unit {
	case UnitSeconds:
		if v > msTo2100 {
			ms = msTo2100 // far out of the window: refused below
		} else {
			ms = int64(v) * 1000
		}
	case UnitMillis:
		ms = int64(min(v, 1<<62))
	case UnitMicros:
		ms, whole = int64(v/1000), v%1000 == 0
	default:
		ms, whole = int64(v/1_000_000), v%1_000_000 == 0
	}
	lo := int64(msFrom2009)
	if l.declared {
		lo = 0
	}
	if ms < lo || ms >= msTo2100 {
		return 0, &RowError{Field: l.timeName, Problem: l.outside(v, n, ms)}
	}
	if !whole {
		return 0, &RowError{Field: l.timeName, Problem: fmt.Sprintf("%d %s is not a whole millisecond", v, l.unit)}
	}
	return ms, nil
}

func (l *layout) badTime(b []byte) *RowError {
	if l.declared {
		return &RowError{Field: l.timeName, Problem: fmt.Sprintf("%q is not a positive integer of milliseconds", truncate(b))}
	}
	return &RowError{Field: l.timeName, Problem: fmt.Sprintf("%q is not a time: give epoch seconds, milliseconds or microseconds, or a date (2021-01-01, 2021-01-01 00:00:00, 2021-01-01T00:00:00Z)", truncate(b))}
}

// outside explains a time out of the window and how to fix it.
func (l *layout) outside(v uint64, n int, ms int64) string {
	year := "year " + fmt.Sprint(time.UnixMilli(ms).UTC().Year())
	if ms >= msTo2100 && l.unit == UnitSeconds {
		year = "after 2100"
	}
	span := "2009-2100"
	if l.declared {
		span = "1970-2100"
	}
	s := fmt.Sprintf("%d read as %s is in %s, outside %s: ", v, l.unit, year, span)
	if l.declared {
		return s + fmt.Sprintf("the %s header says milliseconds but %d digits look like %s (Binance dumps are in microseconds since 2025); convert the column, or name it open_time so the unit is guessed from the digits",
			l.timeName, n, guessUnit(n))
	}
	return s + fmt.Sprintf("the unit was guessed from the digits of the first time; this one has %d digits (%s?): give every row's time in one unit, or dates", n, guessUnit(n))
}

// parseDate reads 2021-01-01, 2021-01-01 00:00[:00[.000]] or the same with
// T and Z or a ±hh:mm offset, as milliseconds since the epoch (UTC unless
// an offset says otherwise).
func parseDate(b []byte) (int64, bool) {
	y, mo, d := atoi(b[0:4]), atoi(b[5:7]), atoi(b[8:10])
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) {
		return 0, false
	}
	ms := daysFromCivil(y, mo, d) * 86_400_000
	rest := b[10:]
	if len(rest) == 0 {
		return ms, true
	}
	if rest[0] != 'T' && rest[0] != ' ' || len(rest) < 6 || rest[3] != ':' || !digits(rest[1:3]) || !digits(rest[4:6]) {
		return 0, false
	}
	h, mi := atoi(rest[1:3]), atoi(rest[4:6])
	rest = rest[6:]
	sec, frac := 0, 0
	if len(rest) >= 3 && rest[0] == ':' && digits(rest[1:3]) {
		sec = atoi(rest[1:3])
		rest = rest[3:]
		if len(rest) >= 2 && rest[0] == '.' {
			i := 1
			for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
				if i <= 3 {
					frac = frac*10 + int(rest[i]-'0')
				} else if rest[i] != '0' {
					return 0, false // finer than a millisecond
				}
				i++
			}
			for j := i; j <= 3; j++ {
				frac *= 10
			}
			rest = rest[i:]
		}
	}
	if h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	ms += int64(h)*3_600_000 + int64(mi)*60_000 + int64(sec)*1000 + int64(frac)
	switch {
	case len(rest) == 0, string(rest) == "Z", string(rest) == " UTC":
		return ms, true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' && digits(rest[1:3]) && digits(rest[4:6]):
		off := int64(atoi(rest[1:3])*60+atoi(rest[4:6])) * 60_000
		if rest[0] == '+' {
			off = -off
		}
		return ms + off, true
	}
	return 0, false
}

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the days since 1970-01-01 of a proleptic Gregorian date
// (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
