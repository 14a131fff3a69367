package exchange

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// query builds a parameter string in the exact form that is signed and sent:
// key=value pairs joined by '&', in the order added, values percent-encoded
// per RFC 3986 with uppercase hex (a space is %20, parentheses are encoded).
// Keys are the interface's own ASCII names and are written as they are.
type query struct {
	buf []byte
}

func (q *query) sep() {
	if len(q.buf) > 0 {
		q.buf = append(q.buf, '&')
	}
}

// str adds key=value; an empty value is left out.
func (q *query) str(key, val string) {
	if val == "" {
		return
	}
	q.sep()
	q.buf = append(q.buf, key...)
	q.buf = append(q.buf, '=')
	q.buf = appendEscaped(q.buf, val)
}

// int adds key=v.
func (q *query) int(key string, v int64) {
	q.sep()
	q.buf = append(q.buf, key...)
	q.buf = append(q.buf, '=')
	q.buf = strconv.AppendInt(q.buf, v, 10)
}

// optInt adds key=v when v is not zero.
func (q *query) optInt(key string, v int64) {
	if v != 0 {
		q.int(key, v)
	}
}

// bool adds key=true or key=false.
func (q *query) bool(key string, v bool) {
	q.sep()
	q.buf = append(q.buf, key...)
	q.buf = append(q.buf, '=')
	q.buf = strconv.AppendBool(q.buf, v)
}

// dec adds key=d in plain decimal text (no exponent), skipping a zero value.
func (q *query) dec(key string, d decimal.Decimal) {
	if d.IsZero() {
		return
	}
	q.sep()
	q.buf = append(q.buf, key...)
	q.buf = append(q.buf, '=')
	q.buf = appendDecimal(q.buf, d)
}

// time adds key=milliseconds since the epoch, skipping the zero time.
func (q *query) time(key string, t time.Time) {
	if t.IsZero() {
		return
	}
	q.int(key, t.UnixMilli())
}

// appendDecimal writes d as plain text. Decimals whose coefficient fits an
// int64 are written without going through big.Int formatting.
func appendDecimal(dst []byte, d decimal.Decimal) []byte {
	exp := d.Exponent()
	// NumDigits does not copy the coefficient (Coefficient would).
	if exp >= 0 || d.NumDigits() > 18 {
		return append(dst, d.String()...)
	}
	c := d.CoefficientInt64()
	if c < 0 {
		dst = append(dst, '-')
		c = -c
	}
	var tmp [24]byte
	digits := strconv.AppendInt(tmp[:0], c, 10)
	scale := int(-exp)
	if len(digits) <= scale {
		dst = append(dst, '0', '.')
		for i := len(digits); i < scale; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	} else {
		dst = append(dst, digits[:len(digits)-scale]...)
		dst = append(dst, '.')
		dst = append(dst, digits[len(digits)-scale:]...)
	}
	// Trim trailing zeros after the point, as decimal.String does.
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	return dst
}

const upperhex = "0123456789ABCDEF"

func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

// appendEscaped percent-encodes s per RFC 3986: every byte outside the
// unreserved set becomes %XX with uppercase hex.
func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) {
			dst = append(dst, c)
			continue
		}
		dst = append(dst, '%', upperhex[c>>4], upperhex[c&15])
	}
	return dst
}

// Escape percent-encodes s the way the exchange signs it: RFC 3986 with
// uppercase hex, space as %20, parentheses encoded.
func Escape(s string) string { return string(appendEscaped(nil, s)) }
