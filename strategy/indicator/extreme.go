package indicator

// Max is the largest of the last n values. Its first value is defined by
// the n-th update.
//
// It keeps a monotonic deque: the values of the window that are larger
// than every later one, in arrival order, so the front is the maximum. A
// new value first removes the smaller values behind it, and the front
// leaves when it falls out of the window. Each value enters and leaves the
// deque once, so an update is O(1) amortised (O(n) at worst). The deque
// lives in a fixed ring allocated by the constructor; it never holds more
// than n values.
type Max struct{ d deque }

// NewMax returns a rolling maximum over n values; n must be at least 1.
func NewMax(n int) (*Max, error) {
	if n < 1 {
		return nil, periodError("NewMax", "n", n, 1)
	}
	return &Max{d: newDeque(n)}, nil
}

// Update adds a value, dropping the oldest once the window is full.
// A non-finite v is ignored.
func (m *Max) Update(v float64) {
	if finite(v) {
		m.d.push(v)
	}
}

// Ready reports whether n values have arrived.
func (m *Max) Ready() bool { return m.d.ready() }

// Value returns the largest of the last n values, or 0 before Ready.
func (m *Max) Value() float64 {
	if !m.d.ready() {
		return 0
	}
	return m.d.front()
}

// Period returns n.
func (m *Max) Period() int { return m.d.n }

// Reset forgets all values.
func (m *Max) Reset() { m.d.reset() }

// Min is the smallest of the last n values, kept like Max (as the maximum
// of the negated values, negation being exact). Its first value is defined
// by the n-th update.
type Min struct{ d deque }

// NewMin returns a rolling minimum over n values; n must be at least 1.
func NewMin(n int) (*Min, error) {
	if n < 1 {
		return nil, periodError("NewMin", "n", n, 1)
	}
	return &Min{d: newDeque(n)}, nil
}

// Update adds a value, dropping the oldest once the window is full.
// A non-finite v is ignored.
func (m *Min) Update(v float64) {
	if finite(v) {
		m.d.push(-v)
	}
}

// Ready reports whether n values have arrived.
func (m *Min) Ready() bool { return m.d.ready() }

// Value returns the smallest of the last n values, or 0 before Ready.
func (m *Min) Value() float64 {
	if !m.d.ready() {
		return 0
	}
	return -m.d.front()
}

// Period returns n.
func (m *Min) Period() int { return m.d.n }

// Reset forgets all values.
func (m *Min) Reset() { m.d.reset() }

// deque is a double-ended queue of (arrival number, value) pairs holding a
// decreasing run of values: the sliding-window maximum of the last n
// values. It lives in a ring whose size is the power of two at or above n,
// so positions wrap with a mask; head and tail count up for ever and are
// masked on use.
type deque struct {
	vals []float64
	seqs []int // arrival number of each value
	mask int
	n    int
	head int // position of the front
	tail int // position after the back
	seen int // values pushed so far
}

func newDeque(n int) deque {
	size := 1
	for size < n {
		size <<= 1
	}
	return deque{vals: make([]float64, size), seqs: make([]int, size), mask: size - 1, n: n}
}

func (d *deque) push(v float64) {
	if d.head != d.tail && d.seqs[d.head&d.mask] <= d.seen-d.n {
		d.head++
	}
	for d.tail != d.head && d.vals[(d.tail-1)&d.mask] <= v {
		d.tail--
	}
	// After expiring the front, at most n−1 values of the window remain,
	// so there is always a free slot.
	i := d.tail & d.mask
	d.vals[i], d.seqs[i] = v, d.seen
	d.tail++
	d.seen++
}

func (d *deque) ready() bool    { return d.seen >= d.n }
func (d *deque) front() float64 { return d.vals[d.head&d.mask] }
func (d *deque) reset()         { d.head, d.tail, d.seen = 0, 0, 0 }
