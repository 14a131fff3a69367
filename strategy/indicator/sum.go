package indicator

import "fmt"

// finite reports whether v is neither NaN nor ±Inf: v-v is 0 for every
// finite v and NaN otherwise.
func finite(v float64) bool { return v-v == 0 }

// periodError is the constructors' error for a window length below min.
func periodError(indicator, param string, v, min int) error {
	return fmt.Errorf("indicator: %s: %s must be at least %d, got %d", indicator, param, min, v)
}

// ksum is a running sum with Knuth's two-sum error compensation. Rolling
// windows add each value once and subtract it once; a plain float64 sum
// would keep the rounding error of every one of those operations forever,
// and after a fall in price scale (a coin going from 1e3 to 1e-3) that
// residue would dwarf the window's true sum. With compensation the error
// stays about one rounding of the current sum.
type ksum struct{ s, c float64 }

func (k *ksum) add(x float64) {
	t := k.s + x
	z := t - k.s
	k.c += (k.s - (t - z)) + (x - z)
	k.s = t
}

func (k *ksum) value() float64 { return k.s + k.c }
