package sim

import (
	"testing"
	"unsafe"
)

// account.order finds an order by its number in the history, which is in
// the order of the numbers, with gaps (other accounts' orders) and after
// the oldest were forgotten.
func TestAccountOrderByNumber(t *testing.T) {
	t.Parallel()
	a := newAccount("1", "")
	for _, n := range []int64{3, 4, 7, 10, 11, 20, 21, 22, 40} {
		a.history = append(a.history, &order{seq: n})
	}
	for n := int64(0); n <= 41; n++ {
		want := int64(0)
		for _, o := range a.history {
			if o.seq == n {
				want = n
			}
		}
		got := int64(0)
		if o := a.order(n); o != nil {
			got = o.seq
		}
		if got != want {
			t.Errorf("order(%d) found %d, want %d", n, got, want)
		}
	}
	a.history = a.history[:0]
	if o := a.order(3); o != nil {
		t.Errorf("empty history found order %d", o.seq)
	}
}

// A full block of order records, with the allocator's 8-byte header for
// objects with pointers, fits the 16 KiB size class (see orderSlab): a
// field added to the record must keep it there, or the block shrink.
func TestOrderSlabFits(t *testing.T) {
	t.Parallel()
	if n := int(unsafe.Sizeof(order{}))*orderSlab + 8; n > 16<<10 {
		t.Errorf("a block of %d order records of %d bytes takes %d bytes, over 16 KiB", orderSlab, unsafe.Sizeof(order{}), n)
	}
}
