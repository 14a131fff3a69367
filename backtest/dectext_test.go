package backtest

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// decimalString writes what String writes: exact cases, then random
// coefficients of every length (past 18 digits too) at exponents from -45
// to 25.
func TestDecimalString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    decimal.Decimal
		want string
	}{
		{decimal.Decimal{}, "0"},
		{decimal.New(0, -8), "0"},
		{decimal.New(0, 3), "0"},
		{decimal.New(-5, -3), "-0.005"},
		{decimal.New(1500, -3), "1.5"},
		{decimal.New(1500, 2), "150000"},
		{decimal.New(-12345678, -8), "-0.12345678"},
		{decimal.New(100000000, -8), "1"},
		{decimal.New(math.MaxInt64, -4), "922337203685477.5807"},
		{decimal.New(math.MinInt64, -30), "-0.000000000009223372036854775808"},
		{decimal.New(999999999999999999, -18), "0.999999999999999999"},
		// Past 64 bits: two words, then past 128.
		{decimal.NewFromBigInt(new(big.Int).Lsh(big.NewInt(1), 64), -16), "1844.6744073709551616"},
		{decimal.NewFromBigInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(19), nil), -3), "10000000000000000"},
		{decimal.NewFromBigInt(new(big.Int).Add(new(big.Int).Exp(big.NewInt(10), big.NewInt(19), nil), big.NewInt(7)), -19), "1.0000000000000000007"},
		{decimal.RequireFromString("50066.3851242619613613"), "50066.3851242619613613"},
		{decimal.NewFromBigInt(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1)), -38), "3.40282366920938463463374607431768211455"},
		{decimal.NewFromBigInt(new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 128)), -38), "-3.40282366920938463463374607431768211456"},
	} {
		if got := decimalString(tc.d); got != tc.want || got != tc.d.String() {
			t.Errorf("decimalString(%s) = %q, want %q", tc.d.String(), got, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(16, 5))
	for i := range 200_000 {
		var c *big.Int
		switch digits := rng.IntN(24); {
		case i%7 == 0:
			c = big.NewInt(rng.Int64N(1000) * 1000) // trailing zeros
		case digits < 19:
			c = big.NewInt(rng.Int64N(int64(math.Pow10(digits)) + 1))
		case digits < 21:
			c = new(big.Int).Mul(big.NewInt(rng.Int64()), big.NewInt(rng.Int64N(1e6)+1))
		default: // up to 57 digits, past 128 bits
			c = new(big.Int).Mul(big.NewInt(rng.Int64()), big.NewInt(rng.Int64()))
			c.Mul(c, big.NewInt(rng.Int64N(1<<uint(rng.IntN(63)))+1))
		}
		if rng.IntN(2) == 0 {
			c.Neg(c)
		}
		d := decimal.NewFromBigInt(c, int32(rng.IntN(71)-45))
		if got, want := decimalString(d), d.String(); got != want {
			t.Fatalf("decimalString(%s × 10^%d) = %q, want %q", c, d.Exponent(), got, want)
		}
	}
}
