package strategy

import (
	"strconv"
	"testing"
)

// TestHashIndex enters keys with a hash that collides on purpose (seven
// values for thousands of keys, so probes run long and wrap around the
// array) across several growths, and finds each key's position, none of
// the keys not entered, and every repeated key refused.
func TestHashIndex(t *testing.T) {
	t.Parallel()
	var x hashIndex
	var keys []string
	hash := func(k string) uint32 { return uint32(len(k)*7919) % 7 << 29 } // top bits: probes start at slot 0 or wrap
	find := func(k string) (int32, bool) {
		if len(x.slots) == 0 {
			return 0, false
		}
		h := hash(k)
		for i := x.start(h); ; i = x.next(i) {
			sh, pos, used := x.at(i)
			if !used {
				return 0, false
			}
			if sh == h && keys[pos] == k {
				return pos, true
			}
		}
	}
	add := func(k string) bool {
		h := hash(k)
		x.reserve()
		i := x.start(h)
		for ; ; i = x.next(i) {
			sh, pos, used := x.at(i)
			if !used {
				break
			}
			if sh == h && keys[pos] == k {
				return false
			}
		}
		x.put(i, h, int32(len(keys)))
		keys = append(keys, k)
		return true
	}
	for i := range 3000 {
		if !add("k" + strconv.Itoa(i)) {
			t.Fatalf("k%d refused on first entry", i)
		}
		if i%100 == 0 && add("k"+strconv.Itoa(i/2)) {
			t.Fatalf("k%d entered twice", i/2)
		}
	}
	if x.n != 3000 || len(x.slots) != 4096 || 4*x.n > 3*len(x.slots) {
		t.Fatalf("%d entries in %d slots", x.n, len(x.slots))
	}
	for i := range 3000 {
		if pos, ok := find("k" + strconv.Itoa(i)); !ok || pos != int32(i) {
			t.Fatalf("k%d at %d, %v", i, pos, ok)
		}
	}
	for _, k := range []string{"k3000", "k-1", "", "x1"} {
		if _, ok := find(k); ok {
			t.Errorf("%q found", k)
		}
	}
}
