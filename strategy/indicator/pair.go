package indicator

// AdvancePair advances fast and slow, two simple averages of one input,
// over vals in order, as Update on each would, for as long as their
// standing allows: at each value after which both are ready, the fast
// average stands above the slow one (fast.Value() > slow.Value()) or not,
// and AdvancePair stops before a value after which it stands above when
// stopAbove is set, or not above when stopBelow is set. It returns how
// many values it took; the value it stopped at is not taken. The averages
// end exactly (bit for bit) as Update over the values taken leaves them.
//
// A crossover strategy's fast path (strategy.Skipper) takes the bars on
// which the averages do not cross this way: once both windows are full,
// one loop with both sums in registers, about twice as fast as Peek and
// Update on each bar.
func AdvancePair(fast, slow *SMA, vals []float64, stopAbove, stopBelow bool) int {
	stop := func(fv, sv float64) bool { above := fv > sv; return above && stopAbove || !above && stopBelow }
	i := 0
	for ; i < len(vals) && (!fast.Ready() || !slow.Ready()); i++ {
		fv, fr := fast.Advance(vals[i])
		sv, sr := slow.Advance(vals[i])
		if fr && sr && stop(fv, sv) {
			fast.Undo()
			slow.Undo()
			return i
		}
	}
	fast.peek.ok, fast.undo.ok, slow.peek.ok, slow.undo.ok = false, false, false, false
	if i == len(vals) {
		return i
	}
	return i + advanceFull(fast, slow, vals[i:], stopAbove, stopBelow)
}

// slide is a full window's Kahan pair (s, c) after out leaves it and in
// enters: ksum.add(-out) then ksum.add(in), over scalars so that a loop
// calling it (inlined) keeps its sums in registers.
func slide(s, c, out, in float64) (float64, float64) {
	x := -out
	t := s + x
	z := t - s
	c += (s - (t - z)) + (x - z)
	s = t + in
	z = s - t
	c += (t - (s - z)) + (in - z)
	return s, c
}

// push writes v at position i of a window's ring buf and returns the
// next position.
func push(buf []float64, i int, v float64) int {
	if buf[i] = v; i+1 < len(buf) {
		return i + 1
	}
	return 0
}

// advanceFull is AdvancePair for two averages whose windows are full: the
// counts stay put, and each sum is a Kahan pair moved by slide, so the
// compiler keeps all four in registers.
func advanceFull(fast, slow *SMA, vals []float64, stopAbove, stopBelow bool) int {
	fb, sb := fast.buf, slow.buf
	fn, sn := float64(len(fb)), float64(len(sb))
	fs, fc := fast.sum.s, fast.sum.c
	ss, sc := slow.sum.s, slow.sum.c
	fi, si := fast.next, slow.next
	taken := len(vals)
	for i, v := range vals {
		if !finite(v) {
			// Update ignores it: the standing is the current one.
			if above := (fs+fc)/fn > (ss+sc)/sn; above && stopAbove || !above && stopBelow {
				taken = i
				break
			}
			continue
		}
		nfs, nfc := slide(fs, fc, fb[fi], v)
		nss, nsc := slide(ss, sc, sb[si], v)
		if above := (nfs+nfc)/fn > (nss+nsc)/sn; above && stopAbove || !above && stopBelow {
			taken = i
			break
		}
		fs, fc, ss, sc = nfs, nfc, nss, nsc
		fi, si = push(fb, fi, v), push(sb, si, v)
	}
	fast.sum, fast.next = ksum{fs, fc}, fi
	slow.sum, slow.next = ksum{ss, sc}, si
	return taken
}

// AdvanceCross advances fast and slow, two simple averages of one input
// that are both Ready, over vals in order, as Update on each would, while
// their standing stays as above says (fast.Value() > slow.Value() after
// the last value taken). At a value after which it would change (a
// cross), it calls cross with the value's index and the new standing,
// fast and slow then standing as Update over the values before it left
// them: true takes the value and goes on from the new standing, false
// stops before it. It returns how many values it took and the standing
// after the last. Averages not both ready take nothing (0, above). The
// averages end exactly (bit for bit) as Update over the values taken
// leaves them.
//
// A crossover strategy's fast path (strategy.Skipper) takes the crosses
// on which it would do nothing (cross returns true) without leaving the
// loop: AdvancePair stops at each.
func AdvanceCross(fast, slow *SMA, vals []float64, above bool, cross func(i int, above bool) bool) (int, bool) {
	if !fast.Ready() || !slow.Ready() {
		return 0, above
	}
	fast.peek.ok, fast.undo.ok, slow.peek.ok, slow.undo.ok = false, false, false, false
	fb, sb := fast.buf, slow.buf
	fn, sn := float64(len(fb)), float64(len(sb))
	fs, fc := fast.sum.s, fast.sum.c
	ss, sc := slow.sum.s, slow.sum.c
	fi, si := fast.next, slow.next
	taken := len(vals)
	for i, v := range vals {
		if !finite(v) {
			continue // Update ignores it: the standing stays
		}
		nfs, nfc := slide(fs, fc, fb[fi], v)
		nss, nsc := slide(ss, sc, sb[si], v)
		if a := (nfs+nfc)/fn > (nss+nsc)/sn; a != above {
			fast.sum, fast.next = ksum{fs, fc}, fi
			slow.sum, slow.next = ksum{ss, sc}, si
			if !cross(i, a) {
				taken = i
				break
			}
			above = a
		}
		fs, fc, ss, sc = nfs, nfc, nss, nsc
		fi, si = push(fb, fi, v), push(sb, si, v)
	}
	fast.sum, fast.next = ksum{fs, fc}, fi
	slow.sum, slow.next = ksum{ss, sc}, si
	return taken, above
}
