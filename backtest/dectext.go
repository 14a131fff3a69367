package backtest

import (
	"math/bits"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// decimalString is d.String() (the reports' exact decimals) without the
// string concatenations, and without big.Int's text conversion when the
// coefficient fits 128 bits (appendDecimal).
func decimalString(d decimal.Decimal) string {
	var buf [48]byte
	return string(appendDecimal(buf[:0], d))
}

// appendDecimal appends d.String() to b: NewReport writes five decimals
// for each round trip, and for a million-bar run's 10,813 trades
// d.String() took most of its 12 ms. With the decimal package's global
// options changed from their defaults it appends String.
func appendDecimal(b []byte, d decimal.Decimal) []byte {
	if !decimal.TrimTrailingZeros || decimal.UseScientificNotation {
		return append(b, d.String()...)
	}
	var digits [48]byte
	var ds []byte
	w, ok := exchange.WideOf(d)
	neg := w.Neg
	if ok {
		ds = appendUint128(digits[:0], w.Hi, w.Lo)
	} else {
		c := d.Coefficient() // a copy
		neg = c.Sign() < 0
		ds = c.Abs(c).Append(digits[:0], 10)
	}
	if neg {
		b = append(b, '-')
	}
	exp := int(d.Exponent())
	if exp >= 0 {
		b = append(b, ds...)
		if ds[0] != '0' {
			for range exp {
				b = append(b, '0')
			}
		}
		return b
	}
	n := -exp // digits after the point
	intPart, frac, lead := []byte{'0'}, ds, n-len(ds)
	if len(ds) > n {
		intPart, frac, lead = ds[:len(ds)-n], ds[len(ds)-n:], 0
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	b = append(b, intPart...)
	if len(frac) > 0 {
		b = append(b, '.')
		for range lead {
			b = append(b, '0')
		}
		b = append(b, frac...)
	}
	return b
}

// appendUint128 appends the decimal digits of hi×2^64+lo: the low 19
// digits of a number past 64 bits split off with one 128-by-64 division
// (an average price of 16 decimals past 922 has 20 or more; BTCUSDT's
// entry prices in the reports).
func appendUint128(b []byte, hi, lo uint64) []byte {
	if hi == 0 {
		return strconv.AppendUint(b, lo, 10)
	}
	const e19 = 1e19
	q, r := bits.Div64(hi%e19, lo, e19)
	b = appendUint128(b, hi/e19, q)
	n := len(b)
	b = strconv.AppendUint(b, r, 10)
	// The low part has 19 digits, zeros leading.
	if pad := 19 - (len(b) - n); pad > 0 {
		b = append(b, "0000000000000000000"[:pad]...)
		copy(b[n+pad:], b[n:len(b)-pad])
		copy(b[n:n+pad], "0000000000000000000")
	}
	return b
}
