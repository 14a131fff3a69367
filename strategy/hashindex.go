package strategy

// hashIndex finds entries of a list its owner keeps (the memory journal's
// intents, its fills' keys) by a hash of their key: open addressing over a
// power-of-two array of slots, each the key's 32-bit hash and the entry's
// position in the list. It holds no key: the owner compares its entry's.
// A backtest enters every order and fill of the run: growing a Go map of
// them rehashed every key at each doubling, a cost the stored hashes
// avoid. Slots are at most three quarters full.
type hashIndex struct {
	slots []uint64 // hash<<32 | position+1; 0 is an empty slot
	n     int
}

// start returns the slot a probe for hash h begins at.
func (x *hashIndex) start(h uint32) int { return int(h) & (len(x.slots) - 1) }

// next returns the slot after i, wrapping.
func (x *hashIndex) next(i int) int { return (i + 1) & (len(x.slots) - 1) }

// at returns slot i's hash and position, and false for an empty slot.
func (x *hashIndex) at(i int) (uint32, int32, bool) {
	s := x.slots[i]
	return uint32(s >> 32), int32(uint32(s)) - 1, s != 0
}

// find probes for hash h, asking same whether the entry at a position
// with that hash is the one sought: it returns that position, or -1 and
// the empty slot where a probe for h ends (for put). The index must have
// slots (reserve).
func (x *hashIndex) find(h uint32, same func(position int32) bool) (slot int, position int32) {
	for i := x.start(h); ; i = x.next(i) {
		sh, pos, used := x.at(i)
		if !used {
			return i, -1
		}
		if sh == h && same(pos) {
			return i, pos
		}
	}
}

// put fills the empty slot i, where a probe for h ended, with position.
func (x *hashIndex) put(i int, h uint32, position int32) {
	x.slots[i] = uint64(h)<<32 | uint64(uint32(position+1))
	x.n++
}

// reserve makes room for one more entry: call it before a probe that
// may end in put.
func (x *hashIndex) reserve() {
	if 4*(x.n+1) <= 3*len(x.slots) {
		return
	}
	old := x.slots
	x.slots = make([]uint64, max(16, 2*len(old)))
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := x.start(uint32(s >> 32))
		for x.slots[i] != 0 {
			i = x.next(i)
		}
		x.slots[i] = s
	}
}
