package indicator

import (
	"math"
	"math/rand/v2"
	"testing"
)

// advancer is what Advance and Undo are checked on.
type advancer interface {
	Advance(v float64) (float64, bool)
	Undo()
	Update(v float64)
	Value() float64
	Ready() bool
}

// sameState fails unless a and b give the same Value (bit for bit) and Ready.
func sameState(t *testing.T, what string, a, b advancer) {
	t.Helper()
	if math.Float64bits(a.Value()) != math.Float64bits(b.Value()) || a.Ready() != b.Ready() {
		t.Fatalf("%s: %v, %v against %v, %v", what, a.Value(), a.Ready(), b.Value(), b.Ready())
	}
}

// checkAdvance feeds vals to adv with Advance, taking every third value
// back with Undo and advancing again, and to upd with Update: at each
// value Advance returns what upd's Value and Ready then are, and the two
// end alike. An Undo after an Update, or a second Undo, does nothing.
func checkAdvance(t *testing.T, adv, upd advancer, vals []float64) {
	t.Helper()
	for i, v := range vals {
		if i%3 == 1 {
			adv.Advance(v * 3)
			adv.Undo()
			sameState(t, "after an Undo", adv, upd)
		}
		got, ready := adv.Advance(v)
		upd.Update(v)
		if math.Float64bits(got) != math.Float64bits(upd.Value()) || ready != upd.Ready() {
			t.Fatalf("value %d (%v): Advance gave %v, %v; Update then Value, Ready %v, %v", i, v, got, ready, upd.Value(), upd.Ready())
		}
		sameState(t, "after Advance", adv, upd)
	}
	adv.Undo()
	adv.Undo()
	upd.Undo() // the last change was an Update: nothing to take back
	if len(vals) > 0 {
		adv.Advance(vals[len(vals)-1])
	}
	sameState(t, "at the end", adv, upd)
}

// TestSMAAdvance checks Advance and Undo over values whose Kahan sum
// carries a correction, across the window filling and wrapping, and
// non-finite values (ignored).
func TestSMAAdvance(t *testing.T) {
	vals := []float64{0.1, 1e16, 0.3, math.NaN(), -1e16, 0.7, 1.1, math.Inf(1), 2.2, 0.1, 5.5, 1e-3}
	a, _ := NewSMA(3)
	b, _ := NewSMA(3)
	checkAdvance(t, a, b, vals)
	// The window holds the last three finite values: the average of a
	// fresh SMA given only those.
	fresh, _ := NewSMA(3)
	for _, v := range []float64{0.1, 5.5, 1e-3} {
		fresh.Update(v)
	}
	if got, want := a.Value(), fresh.Value(); got != want {
		t.Fatalf("final value %v, want %v", got, want)
	}
	// A peek taken back with the value it looked past is forgotten.
	a.Peek(4)
	a.Advance(1)
	a.Undo()
	a.Update(4)
	b.Update(4)
	sameState(t, "a peek, an Advance taken back, then the peeked value", a, b)
	a.Advance(2)
	a.Peek(8)
	a.Undo()
	a.Update(8)
	b.Update(8)
	sameState(t, "an Advance, a peek, an Undo, then the peeked value", a, b)
}

// TestEMAAdvance is TestSMAAdvance for the EMA, through its seed and
// after.
func TestEMAAdvance(t *testing.T) {
	a, _ := NewEMA(3)
	b, _ := NewEMA(3)
	checkAdvance(t, a, b, []float64{1, math.NaN(), 2, 4, 3.5, math.Inf(-1), 9, 0.25, 7})
	a.Reset()
	b.Reset()
	a.Advance(5)
	a.Reset()
	a.Undo() // nothing to take back after a Reset
	sameState(t, "after a Reset", a, b)
}

// TestAdvancePair checks AdvancePair against Update bar by bar: over
// values that cross back and forth, with each pair of stop conditions,
// it stops exactly before the first bar whose standing (fast above slow,
// both ready) is a stop, and leaves both averages as Update over the
// values it took.
func TestAdvancePair(t *testing.T) {
	vals := []float64{10, 10, 10, 13, 14, 8, 9, math.NaN(), 20, 1e15, 3, 3, 3, 2.5, 4, 7, 1, 1, 1, 0.1, 5}
	for _, stop := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		for from := 0; from < len(vals); from++ {
			// fast, slow go through AdvancePair from value from on;
			// rf, rs through Update, which finds where it must stop.
			fast, _ := NewSMA(2)
			slow, _ := NewSMA(3)
			rf, _ := NewSMA(2)
			rs, _ := NewSMA(3)
			for _, v := range vals[:from] {
				fast.Update(v)
				slow.Update(v)
				rf.Update(v)
				rs.Update(v)
			}
			fast.Peek(99) // a peek is forgotten
			want := len(vals) - from
			for i, v := range vals[from:] {
				fv, fr := rf.Peek(v)
				sv, sr := rs.Peek(v)
				if fr && sr && (fv > sv && stop[0] || !(fv > sv) && stop[1]) {
					want = i
					break
				}
				rf.Update(v)
				rs.Update(v)
			}
			got := AdvancePair(fast, slow, vals[from:], stop[0], stop[1])
			if got != want {
				t.Fatalf("stops %v from %d: took %d values, want %d", stop, from, got, want)
			}
			sameState(t, "fast", fast, rf)
			sameState(t, "slow", slow, rs)
			// Both go on as the reference does.
			for _, v := range []float64{6, 2, 8} {
				fast.Update(v)
				slow.Update(v)
				rf.Update(v)
				rs.Update(v)
			}
			sameState(t, "fast after", fast, rf)
			sameState(t, "slow after", slow, rs)
		}
	}
}

// TestAdvanceCross checks AdvanceCross against Update bar by bar over a
// random walk with non-finite values in it, offered in slices of random
// length: cross is called exactly at the values after which the standing
// changes, with the averages as Update over the values before it; taking
// some crosses and refusing others, it stops exactly before the first
// refused one, reports the standing after the last value taken, and
// leaves both averages as Update over the values it took, to the bit.
func TestAdvanceCross(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 9))
	vals := randomWalk(r, 50_000, 1000, 100, 500)
	fast, _ := NewSMA(4)
	slow, _ := NewSMA(9)
	rf, _ := NewSMA(4)
	rs, _ := NewSMA(9)
	if n, a := AdvanceCross(fast, slow, vals, true, nil); n != 0 || !a {
		t.Fatalf("not ready: took %d, %v", n, a)
	}
	for _, v := range vals[:9] {
		fast.Update(v)
		slow.Update(v)
		rf.Update(v)
		rs.Update(v)
	}
	above := rf.Value() > rs.Value()
	// pos is the reference's next value; catchUp takes values up to to,
	// none of which may change the standing (a cross not reported).
	pos := 9
	catchUp := func(to int) {
		for ; pos < to; pos++ {
			rf.Update(vals[pos])
			rs.Update(vals[pos])
			if rf.Value() > rs.Value() != above {
				t.Fatalf("value %d changes the standing to %v: no cross reported", pos, !above)
			}
		}
	}
	crosses, refused := 0, 0
	for i := 9; i < len(vals); {
		end := min(i+r.IntN(300)+1, len(vals))
		stop := -1
		n, a := AdvanceCross(fast, slow, vals[i:end], above, func(j int, a bool) bool {
			catchUp(i + j)
			sameState(t, "fast at a cross", fast, rf)
			sameState(t, "slow at a cross", slow, rs)
			fv, _ := rf.Peek(vals[i+j])
			sv, _ := rs.Peek(vals[i+j])
			if a != (fv > sv) || a == above {
				t.Fatalf("value %d: a cross to %v; the reference stands %v after it, %v before", i+j, a, fv > sv, above)
			}
			crosses++
			if r.IntN(4) == 0 {
				stop = i + j
				return false
			}
			rf.Update(vals[pos])
			rs.Update(vals[pos])
			pos++
			above = a
			return true
		})
		catchUp(i + n)
		if a != above {
			t.Fatalf("after value %d: standing %v, the reference %v", i+n, a, above)
		}
		sameState(t, "fast", fast, rf)
		sameState(t, "slow", slow, rs)
		switch {
		case stop >= 0 && i+n != stop:
			t.Fatalf("refused value %d, took up to %d", stop, i+n)
		case stop < 0 && i+n != end:
			t.Fatalf("took %d of %d values, none refused", n, end-i)
		case stop >= 0:
			// The refused value is taken as OnKline takes it.
			for _, a := range []*SMA{fast, slow, rf, rs} {
				a.Update(vals[stop])
			}
			above = rf.Value() > rs.Value()
			pos, end = stop+1, stop+1
			refused++
		}
		i = end
	}
	if crosses < 1000 || refused < 200 {
		t.Fatalf("only %d crosses, %d refused", crosses, refused)
	}
}

// randomWalk is n values of a walk from start by steps of up to cents
// hundredths either way, one value in nanOneIn (when positive) a NaN
// instead (the walk goes on from the value it stands for), drawn from r.
func randomWalk(r *rand.Rand, n int, start float64, cents, nanOneIn int) []float64 {
	vals := make([]float64, n)
	p := start
	for i := range vals {
		p += float64(r.IntN(2*cents+1)-cents) / 100
		vals[i] = p
		if nanOneIn > 0 && r.IntN(nanOneIn) == 0 {
			vals[i] = math.NaN()
		}
	}
	return vals
}
