package backtest

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

func sumOf(ds ...string) decSum {
	var s decSum
	for _, d := range ds {
		s.Add(decimal.RequireFromString(d))
	}
	return s
}

func TestQuoRounding(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b, want string }{
		{"1", "3", "0.3333333333333333"},
		{"2", "3", "0.6666666666666667"},
		{"-2", "3", "-0.6666666666666667"},
		{"2", "-3", "-0.6666666666666667"},
		{"0.00000000000000005", "1", "0.0000000000000001"}, // half rounds away from zero
		{"-0.00000000000000005", "1", "-0.0000000000000001"},
		{"0.00000000000000004999", "1", "0"},
		{"12.5", "0.25", "50"},
		{"0", "7", "0"},
		{"99999999999999999", "0.0000001", "999999999999999990000000"}, // beyond 64 bits: the decimal's own division
	} {
		a, b := sumOf(c.a), sumOf(c.b)
		if got := quo(&a, &b).String(); got != c.want {
			t.Errorf("%s/%s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

// An average price past about 922 has a coefficient of 16 decimals that
// needs a second word: quo gives decimal's own quotient (its coefficient
// and exponent), and average hands back the one fill's price itself, or
// the quotient, with the coefficient short of its trailing zeros when
// that fits an int64.
func TestAverageWide(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	for _, c := range []struct {
		amount, qty string
		n           int
		price       string
		want        string
		qc          int64
		qe          int32
		compact     bool
		samePrice   bool
	}{
		// One buy of 0.998 at 50012.37: the price itself.
		{"49912.34526", "0.998", 1, "50012.37", "50012.37", 5001237, -2, true, true},
		{"50500.00", "1", 1, "50500.00", "50500", 505, 2, true, true},
		// Two buys: 0.2 at 50012.37 and 0.1 at 49871.05.
		{"14989.579", "0.3", 2, "49871.05", "49965.2633333333333333", 0, 0, false, false},
		// Two buys averaging a price of 2 decimals: 0.5 at 50000 and 0.5 at 50000.02.
		{"50000.01", "1", 2, "50000.02", "50000.01", 5000001, -2, true, false},
		// A coefficient of 26 digits and no trailing zero: no int64.
		{"27900000001", "3", 2, "1", "9300000000.3333333333333333", 0, 0, false, false},
	} {
		a, q, p := sumOf(c.amount), sumOf(c.qty), termOf(d(c.price))
		want := d(c.amount).DivRound(d(c.qty), int32(decimal.DivisionPrecision))
		if got := quo(&a, &q); got.String() != want.String() || got.Exponent() != want.Exponent() || got.Coefficient().Cmp(want.Coefficient()) != 0 {
			t.Errorf("quo(%s, %s) = %se%d, want %se%d", c.amount, c.qty, got.Coefficient(), got.Exponent(), want.Coefficient(), want.Exponent())
		}
		avg, qc, qe, compact := average(&a, &q, c.n, &p)
		if avg.String() != c.want || qc != c.qc || qe != c.qe || compact != c.compact {
			t.Errorf("average(%s, %s) = %s, %de%d %v; want %s, %de%d %v", c.amount, c.qty, avg, qc, qe, compact, c.want, c.qc, c.qe, c.compact)
		}
		if !avg.Equal(want) {
			t.Errorf("average(%s, %s) = %s, decimal gives %s", c.amount, c.qty, avg, want)
		}
		if same := avg.Coefficient().Cmp(p.d.Coefficient()) == 0 && avg.Exponent() == p.d.Exponent(); same != c.samePrice {
			t.Errorf("average(%s, %s): the price's own decimal %v, want %v", c.amount, c.qty, same, c.samePrice)
		}
	}
}

// decSum's float is Decimal.InexactFloat64's, bit for bit, past 2^53 too
// (where it parses the exact text rather than dividing): coefficients
// over the whole int64 range at exponents 0 to -22, and the edges.
func TestDecSumFloatPast2To53(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(53))
	check := func(c int64, exp int32) {
		s := decSum{c: c, exp: exp}
		want := decimal.New(c, exp).InexactFloat64()
		if got := s.Float(); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%de%d: Float %v (%b), Decimal's %v (%b)", c, exp, got, got, want, want)
		}
	}
	for _, c := range []int64{1<<53 + 1, -(1<<53 + 1), 1<<53 + 3, 1 << 54, math.MaxInt64, math.MinInt64 + 1, math.MinInt64,
		9_007_199_254_740_993, 2_843_812_345_678_901, 123_456_789_012_345_678} {
		for exp := int32(0); exp >= -22; exp-- {
			check(c, exp)
		}
	}
	for range 100_000 {
		c := r.Int63() >> uint(r.Intn(10))
		if r.Intn(2) == 0 {
			c = -c
		}
		check(c, -int32(r.Intn(23)))
	}
}

// randomDecimal is mostly a decimal of the sizes fills have, sometimes one
// of up to 20 digits (beyond an int64's 18 safe ones) at an exponent down
// to -20.
func randomDecimal(r *rand.Rand) decimal.Decimal {
	digits, exp := 1+r.Intn(10), r.Intn(11)-10
	if r.Intn(4) == 0 {
		digits, exp = 1+r.Intn(20), r.Intn(23)-20
	}
	v := new(big.Int).Rand(r, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil))
	if r.Intn(3) == 0 {
		v.Neg(v)
	}
	return decimal.NewFromBigInt(v, int32(exp))
}

func TestDecSumMatchesDecimal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(1))
	for range 2000 {
		var s, u decSum
		want, wantU := decimal.Zero, decimal.Zero
		for range 1 + r.Intn(8) {
			d, e := randomDecimal(r), randomDecimal(r)
			switch r.Intn(5) {
			case 4: // a holding (u) at a close: e as a Fixed when it fits one
				u.Add(d)
				wantU = wantU.Add(d)
				if p, ok := exchange.FixedOf(e); ok {
					s.addMulFixed(&u, p)
					want = want.Add(wantU.Mul(e))
				}
			case 0:
				s.Add(d)
				want = want.Add(d)
			case 1:
				s.Sub(d)
				want = want.Sub(d)
			case 2:
				s.SubMul(d, e)
				want = want.Sub(d.Mul(e))
			case 3:
				u.Add(d)
				wantU = wantU.Add(d)
				neg := r.Intn(2) == 0
				s.AddSum(u, neg)
				if neg {
					want = want.Sub(wantU)
				} else {
					want = want.Add(wantU)
				}
			}
			if got := s.Decimal(); !got.Equal(want) {
				t.Fatalf("sum %s, want %s", got, want)
			}
			if got, w := s.Float(), want.InexactFloat64(); got != w {
				t.Fatalf("%s as float = %v, want %v", want, got, w)
			}
			if s.Sign() != want.Sign() {
				t.Fatalf("sign of %s: %d", want, s.Sign())
			}
			if got, w := s.Cmp(d), want.Cmp(d); got != w {
				t.Fatalf("%s cmp %s = %d, want %d", want, d, got, w)
			}
		}
		if wantU.IsZero() {
			continue
		}
		if got, w := quo(&s, &u), want.Div(wantU); got.String() != w.String() {
			t.Fatalf("%s/%s = %s, want %s", want, wantU, got, w)
		}
		if got, w := quoFloat(&s, &u), want.Div(wantU).InexactFloat64(); got != w {
			t.Fatalf("%s/%s as float = %v, want %v", want, wantU, got, w)
		}
	}
}
