package exchange

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestPlainDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want bool
	}{
		{"0", true}, {"1", true}, {"-1", true}, {"0.5", true}, {"12.034", true}, {"007", true}, {"-0", true},
		{strings.Repeat("9", MaxDecimalText), true},
		{strings.Repeat("9", MaxDecimalText+1), false},
		{"", false}, {"+1", false}, {"1.", false}, {".5", false}, {"-.5", false}, {"+.5", false}, {".", false}, {"-", false},
		{"1e3", false}, {"1E3", false}, {"NaN", false}, {"Inf", false}, {"1.2.3", false}, {"1,5", false}, {" 1", false}, {"1 ", false},
		{"--1", false}, {"0x1", false}, {"١", false},
	}
	for _, tt := range tests {
		if got := PlainDecimal(tt.s); got != tt.want {
			t.Errorf("PlainDecimal(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// FuzzDecimalEncoding checks that whatever decimal the client sends, it
// writes text the server's grammar accepts, meaning the same number.
func FuzzDecimalEncoding(f *testing.F) {
	for _, c := range [][2]int64{{1, 0}, {5, -1}, {-5, -1}, {1, -30}, {123456789, 5}, {-9223372036854775808, -3}, {9223372036854775807, -18}, {10, -1}} {
		f.Add(c[0], int32(c[1]))
	}
	f.Fuzz(func(t *testing.T, coef int64, exp int32) {
		if exp < -40 || exp > 40 {
			return
		}
		d := decimal.New(coef, exp)
		text := string(appendDecimal(nil, d))
		if len(text) > MaxDecimalText {
			return // beyond the wire's length: the server refuses it, as it should
		}
		if !PlainDecimal(text) {
			t.Fatalf("%s written as %q, which the wire refuses", d, text)
		}
		if back, err := decimal.NewFromString(text); err != nil || !back.Equal(d) {
			t.Fatalf("%s written as %q, read back as %s %v", d, text, back, err)
		}
	})
}
