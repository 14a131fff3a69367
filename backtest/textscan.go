package backtest

// The reports' writers look through each text they write for the bytes
// that CSV must quote or JSON escape, which a trade's times, decimals and
// symbol never hold. These look eight bytes at a time: a word's bytes are
// subtracted from at once, and a byte below the one subtracted borrows,
// which sets its top bit where the byte's own was clear; a borrow carried
// on to the bytes above only follows such a byte, so whether any top bit
// ends up set is exact.

const (
	ones = 0x0101010101010101 // a byte of 1 in each place
	tops = 0x8080808080808080 // each byte's top bit
)

// word is the eight bytes of s from i on, the first the lowest.
func word(s string, i int) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// below has the top bit set in some byte when one of x's bytes is below c
// (c at most 0x80).
func below(x uint64, c byte) uint64 { return (x - ones*uint64(c)) &^ x & tops }

// equal has the top bit set in some byte when one of x's bytes is c.
func equal(x uint64, c byte) uint64 { return below(x^ones*uint64(c), 1) }

// bytesFrom says whether every byte of s is c or more (c at most 0x80).
func bytesFrom(s string, c byte) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if below(word(s, i), c) != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < c {
			return false
		}
	}
	return true
}

// jsonPlain says whether encoding/json writes s between its quotes as it
// is: printable ASCII (0x20 to 0x7e) without a quote, a backslash or an
// HTML character (<, >, &).
func jsonPlain(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := word(s, i)
		if below(x, 0x20)|x&tops|equal(x, 0x7f)|equal(x, '"')|equal(x, '\\')|equal(x, '<')|equal(x, '>')|equal(x, '&') != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
