package sim

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// num is a decimal with its narrow form, the int64 coefficient and
// exponent it holds (narrowOf), when it has one. A fill reads its price,
// quantity and quote amount several times (the quote amount, the fee, the
// balances, what is left), and splitting a decimal (NumDigits) cost more
// than the integer arithmetic: a fill's values are split once, or not at
// all where they were computed from integers (a bar's open, a quotient, a
// product, a fee), and their decimals are the ones the arithmetic on
// decimals gave before.
type num struct {
	d  decimal.Decimal
	c  int64
	e  int32
	ok bool
}

// numOf splits d.
func numOf(d decimal.Decimal) num {
	c, e, ok := narrowOf(d)
	return num{d: d, c: c, e: e, ok: ok}
}

// narrowMax is 10^18: a coefficient below it in magnitude has at most 18
// digits, narrowOf's bound.
const narrowMax = 1_000_000_000_000_000_000

// numNarrow is the num of exchange.NewDecimal(c, e): narrow as narrowOf
// would find it (at most 18 digits), without asking the decimal.
func numNarrow(c int64, e int32) num {
	return num{d: exchange.NewDecimal(c, e), c: c, e: e, ok: exchange.Abs64(c) < narrowMax}
}

// numFixed is the num of f.Decimal() (a bar's price).
func numFixed(f exchange.Fixed) num { return numNarrow(f.Coef, f.Exp) }

// amount is n as an amount: amountOf(n.d).
func (n num) amount() amount {
	if n.ok {
		return amount{coef: n.c, exp: n.e}
	}
	return amountOf(n.d)
}

// numOfAmount is the num of a.dec().
func numOfAmount(a amount) num {
	if a.wide {
		return numOf(a.d)
	}
	return numNarrow(a.coef, a.exp)
}

// mulNum is mulDec(a.d, b.d), split.
func mulNum(a, b num) num {
	if a.ok && b.ok {
		e := int64(a.e) + int64(b.e)
		hi, lo := bits.Mul64(exchange.Abs64(a.c), exchange.Abs64(b.c))
		if hi == 0 && lo <= math.MaxInt64 && e >= math.MinInt32 && e <= math.MaxInt32 {
			c := int64(lo)
			if (a.c < 0) != (b.c < 0) {
				c = -c
			}
			return numNarrow(c, int32(e))
		}
	}
	return numOf(a.d.Mul(b.d))
}

// floorQuotientNum is floorQuotient(n.d, d.d, qtyScale), split.
func floorQuotientNum(n, d num, qtyScale int32) num {
	if n.ok && d.ok {
		if c, e, ok := divFloor(n.c, n.e, d.c, d.e, int32(decimal.DivisionPrecision), qtyScale); ok {
			return numNarrow(c, e)
		}
	}
	return numOf(n.d.Div(d.d).Truncate(qtyScale))
}
