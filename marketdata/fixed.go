package marketdata

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// maxDigits is the most significant digits a fixed-point value keeps: any
// 18-digit coefficient fits an int64.
const maxDigits = 18

// num is a parsed decimal: mant × 10^-dec.
type num struct {
	mant int64
	dec  int
}

// numProblem says why text is not a num; "" when it is one.
type numProblem uint8

const (
	numOK numProblem = iota
	numInvalid
	numTooLong
	numTooLarge
)

// parseNum reads plain decimal text ("16713.080000", "-1", "0.5") without
// allocating; allowExp also takes an exponent ("5.352e-05", as JSON
// writers emit). At most 18 significant digits.
func parseNum(b []byte, allowExp bool) (num, numProblem) {
	if len(b) == 0 {
		return num{}, numInvalid
	}
	neg := false
	i := 0
	if b[0] == '-' {
		neg = true
		i = 1
	}
	var mant uint64
	sig, intDigits, dec := 0, 0, -1
	for ; i < len(b); i++ {
		c := b[i]
		if c >= '0' && c <= '9' {
			if dec >= 0 {
				dec++
			} else {
				intDigits++
			}
			if sig > 0 || c != '0' {
				sig++
				if sig > maxDigits {
					return num{}, numTooLong
				}
			}
			mant = mant*10 + uint64(c-'0')
			continue
		}
		if c == '.' && dec < 0 && intDigits > 0 {
			dec = 0
			continue
		}
		if (c == 'e' || c == 'E') && allowExp && intDigits > 0 && dec != 0 {
			return withExp(mant, neg, max(dec, 0), b[i+1:])
		}
		return num{}, numInvalid
	}
	if intDigits == 0 || dec == 0 {
		return num{}, numInvalid
	}
	n := num{mant: int64(mant), dec: max(dec, 0)}
	if neg {
		n.mant = -n.mant
	}
	return n, numOK
}

// withExp applies an exponent's text to a mantissa with dec decimals.
func withExp(mant uint64, neg bool, dec int, b []byte) (num, numProblem) {
	eneg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		eneg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 3 {
		return num{}, numInvalid
	}
	e := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return num{}, numInvalid
		}
		e = e*10 + int(c-'0')
	}
	if eneg {
		dec += e
	} else {
		dec -= e
	}
	for dec < 0 {
		hi, lo := bits.Mul64(mant, 10)
		if hi != 0 || lo > math.MaxInt64 {
			return num{}, numTooLarge
		}
		mant = lo
		dec++
	}
	if mant != 0 && dec > 2*maxDigits {
		return num{}, numTooLong
	}
	n := num{mant: int64(mant), dec: dec}
	if neg {
		n.mant = -n.mant
	}
	return n, numOK
}

// scaleTo returns n's coefficient at dec decimals (dec ≥ n.dec); ok is
// false when it leaves the int64 range.
func (n num) scaleTo(dec int) (int64, bool) {
	return mulPow10(n.mant, dec-n.dec)
}

// mulPow10 returns v × 10^k for k ≥ 0; ok is false on overflow.
func mulPow10(v int64, k int) (int64, bool) {
	if k == 0 || v == 0 {
		return v, true
	}
	if k >= len(pow10i) {
		return 0, false
	}
	p := pow10i[k]
	r := v * p
	if r/p != v {
		return 0, false
	}
	return r, true
}

// cmp compares two nums exactly.
func (n num) cmp(m num) int {
	d := max(n.dec, m.dec)
	a, aok := n.scaleTo(d)
	b, bok := m.scaleTo(d)
	if aok && bok {
		return cmp.Compare(a, b)
	}
	return n.decimal().Cmp(m.decimal())
}

func (n num) decimal() decimal.Decimal { return decimal.New(n.mant, -int32(n.dec)) }

// numOf is a decimal as a num; an error when it has more than 18
// significant digits.
func numOf(d decimal.Decimal) (num, error) {
	if d.NumDigits() > maxDigits {
		return num{}, fmt.Errorf("%s has more than %d significant digits", txt(d), maxDigits)
	}
	c, exp := d.CoefficientInt64(), int(d.Exponent())
	if exp >= 0 {
		v, ok := mulPow10(c, exp)
		if !ok {
			return num{}, fmt.Errorf("%s does not fit a 64-bit fixed-point value", txt(d))
		}
		return num{mant: v}, nil
	}
	return num{mant: c, dec: -exp}, nil
}
