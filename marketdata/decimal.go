package marketdata

import (
	"errors"
	"strconv"

	"github.com/shopspring/decimal"
)

// ParseDecimal parses plain decimal text ("16713.080000", "-1", "0.5"),
// keeping its scale (1.50 has exponent -2). It refuses exponents, signs
// other than a leading minus, and empty text, which the format never
// holds, and is several times cheaper than decimal.NewFromString for the
// common case of at most 18 digits.
func ParseDecimal(b []byte) (decimal.Decimal, error) {
	if len(b) == 0 {
		return decimal.Decimal{}, errors.New("empty")
	}
	neg := false
	s := b
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	var mant uint64
	digits, frac := 0, -1
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
			if frac >= 0 {
				frac++
			}
			if digits > 18 {
				return slowDecimal(b)
			}
			mant = mant*10 + uint64(c-'0')
		case c == '.' && frac < 0 && i > 0:
			frac = 0
		default:
			return decimal.Decimal{}, errors.New("invalid")
		}
	}
	if digits == 0 || frac == 0 {
		return decimal.Decimal{}, errors.New("invalid")
	}
	v := int64(mant)
	if neg {
		v = -v
	}
	exp := int32(0)
	if frac > 0 {
		exp = -int32(frac)
	}
	return decimal.New(v, exp), nil
}

func slowDecimal(b []byte) (decimal.Decimal, error) {
	for _, c := range b {
		if c == 'e' || c == 'E' || c == '+' {
			return decimal.Decimal{}, errors.New("invalid")
		}
	}
	return decimal.NewFromString(string(b))
}

// AppendDecimal appends d to dst as plain text keeping its scale: trailing
// zeros after the point are part of the source's text and are kept, so
// ParseDecimal gives back the same coefficient and exponent.
func AppendDecimal(dst []byte, d decimal.Decimal) []byte {
	exp := d.Exponent()
	var digits []byte
	neg := d.IsNegative()
	if d.NumDigits() <= 18 {
		c := d.CoefficientInt64()
		if c < 0 {
			c = -c
		}
		var tmp [24]byte
		digits = strconv.AppendInt(tmp[:0], c, 10)
	} else {
		digits = d.Coefficient().Append(nil, 10)
		if neg {
			digits = digits[1:]
		}
	}
	if neg {
		dst = append(dst, '-')
	}
	if exp >= 0 {
		dst = append(dst, digits...)
		if len(digits) == 1 && digits[0] == '0' {
			return dst
		}
		for range exp {
			dst = append(dst, '0')
		}
		return dst
	}
	scale := int(-exp)
	if len(digits) <= scale {
		dst = append(dst, '0', '.')
		for i := len(digits); i < scale; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-scale:]...)
}
