package indicator

import "math"

// blockMax is the maximum of the last n values by the van Herk/Gil-Werman
// block method, used where two extremes are needed on every update (the
// Stochastic). The stream is cut into blocks of n values. For the block
// being filled it keeps the running maximum of its values so far; when a
// block completes it computes, once, the maxima of each of its suffixes.
// The window of the last n values is a suffix of the previous block plus
// the prefix of the current one, so its maximum is one max of two numbers.
//
// An update is O(1) amortised (the suffix pass is O(n) once every n
// updates) and, unlike the monotonic deque of Max, has no branch that
// depends on the data: the deque's pop loop is mispredicted about once per
// update on real prices, which costs more than this method's extra
// arithmetic.
type blockMax struct {
	cur  []float64 // the current block's values, cur[:pos]
	suf  []float64 // suf[j] = max of the previous block's values j..n−1
	pos  int
	pre  float64 // max of cur[:pos]; −Inf at a block start
	seen int
}

func newBlockMax(n int) blockMax {
	return blockMax{cur: make([]float64, n), suf: make([]float64, n), pre: math.Inf(-1)}
}

func (b *blockMax) push(v float64) {
	b.cur[b.pos] = v
	b.pre = max(b.pre, v)
	b.seen++
	if b.pos++; b.pos == len(b.cur) {
		m := math.Inf(-1)
		for j := len(b.cur) - 1; j >= 0; j-- {
			m = max(m, b.cur[j])
			b.suf[j] = m
		}
		b.pos, b.pre = 0, math.Inf(-1)
	}
}

// value is the maximum of the last n values once ready. At a block start
// the window is exactly the previous block: suf[0], with pre at −Inf.
func (b *blockMax) value() float64 { return max(b.suf[b.pos], b.pre) }

func (b *blockMax) ready() bool { return b.seen >= len(b.cur) }

func (b *blockMax) reset() { b.pos, b.pre, b.seen = 0, math.Inf(-1), 0 }
