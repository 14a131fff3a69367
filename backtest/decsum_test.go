package backtest

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/shopspring/decimal"
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
			switch r.Intn(4) {
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
