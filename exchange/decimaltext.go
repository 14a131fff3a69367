package exchange

// MaxDecimalText is the longest decimal text the wire accepts.
const MaxDecimalText = 64

// PlainDecimal reports whether s is decimal text as this project writes
// and accepts it on the wire: an optional '-', one or more digits, and
// optionally a '.' followed by one or more digits; at most MaxDecimalText
// characters. No '+', no bare point at either end ("1.", ".5"), no
// exponent, no NaN or infinity. The client only ever writes this form (its
// encoder writes what decimal.String writes), and the simulated server
// refuses anything else with 33333, so a bot that passes against the
// simulator never relies on a leniency the live service may not have.
func PlainDecimal(s string) bool {
	if len(s) == 0 || len(s) > MaxDecimalText {
		return false
	}
	i := 0
	if s[0] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
