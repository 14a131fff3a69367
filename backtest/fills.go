package backtest

import (
	"iter"
	"sort"
)

// Fills are a run's fills in the order they were recorded. They are the
// journal's own blocks, shared and read-only, rather than one slice: a
// fifty-million-bar run has two million fills, 400 MB, which joining into
// one slice at the end of the run would copy (8% of that run's time). The
// zero value holds no fills.
type Fills struct {
	blocks [][]Fill
	ends   []int // ends[k] is how many fills blocks[:k+1] hold
}

// fillsOf returns the fills in blocks, which must not be modified after.
func fillsOf(blocks [][]Fill) Fills {
	f := Fills{blocks: blocks, ends: make([]int, len(blocks))}
	n := 0
	for k, b := range blocks {
		n += len(b)
		f.ends[k] = n
	}
	return f
}

// Len is how many fills there are.
func (f Fills) Len() int {
	if len(f.ends) == 0 {
		return 0
	}
	return f.ends[len(f.ends)-1]
}

// At returns the i-th fill (from 0), which must not be modified. It
// panics when i is out of range, as indexing a slice does.
func (f Fills) At(i int) *Fill {
	if i < 0 || i >= f.Len() {
		panic("backtest: fill index out of range")
	}
	k := sort.SearchInts(f.ends, i+1)
	start := 0
	if k > 0 {
		start = f.ends[k-1]
	}
	return &f.blocks[k][i-start]
}

// All yields each fill with its index, in order. The fills must not be
// modified.
func (f Fills) All() iter.Seq2[int, *Fill] {
	return func(yield func(int, *Fill) bool) {
		i := 0
		for _, b := range f.blocks {
			for j := range b {
				if !yield(i, &b[j]) {
					return
				}
				i++
			}
		}
	}
}

// Slice returns the fills in a new slice of their own.
func (f Fills) Slice() []Fill {
	out := make([]Fill, 0, f.Len())
	for _, b := range f.blocks {
		out = append(out, b...)
	}
	return out
}
