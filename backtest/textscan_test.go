package backtest

import (
	"math/rand/v2"
	"testing"
)

// bytesFrom and jsonPlain, eight bytes at a time, say what a look at
// each byte says: every byte value at every place of texts of 0 to 24
// bytes, over backgrounds of bytes that pass and bytes just past the
// edges, then random texts.
func TestTextScan(t *testing.T) {
	t.Parallel()
	fromRef := func(s string, c byte) bool {
		for i := range len(s) {
			if s[i] < c {
				return false
			}
		}
		return true
	}
	plainRef := func(s string) bool {
		for i := range len(s) {
			if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	}
	check := func(s string) {
		for _, c := range []byte{0, 1, ' ', ',', '-', '0', 0x7f, 0x80} {
			if got, want := bytesFrom(s, c), fromRef(s, c); got != want {
				t.Fatalf("bytesFrom(%q, %#x) = %v, want %v", s, c, got, want)
			}
		}
		if got, want := jsonPlain(s), plainRef(s); got != want {
			t.Fatalf("jsonPlain(%q) = %v, want %v", s, got, want)
		}
	}
	for _, bg := range []byte{'-', '0', 'z', ' ', 0x7e, 0x7f, 0x80, 0xff, 0x2c, 0x21, 0x3d} {
		for n := range 25 {
			b := make([]byte, n)
			for i := range b {
				b[i] = bg
			}
			check(string(b))
			for at := range n {
				for v := range 256 {
					b[at] = byte(v)
					check(string(b))
				}
				b[at] = bg
			}
		}
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200_000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(0x20 + rng.IntN(0x60))
			if rng.IntN(30) == 0 {
				b[i] = byte(rng.IntN(256))
			}
		}
		check(string(b))
	}
}
