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
// which the averages do not cross this way: one loop with both sums in
// registers, several times faster than Peek and Update on each bar.
func AdvancePair(fast, slow *SMA, vals []float64, stopAbove, stopBelow bool) int {
	fast.peek.ok, fast.undo.ok, slow.peek.ok, slow.undo.ok = false, false, false, false
	fb, sb := fast.buf, slow.buf
	fn, sn := float64(len(fb)), float64(len(sb))
	fs, ss := fast.sum, slow.sum
	fc, sc := fast.count, slow.count
	fi, si := fast.next, slow.next
	taken := len(vals)
	for i, v := range vals {
		nfs, nss := fs, ss
		nfc, nsc := fc, sc
		ok := finite(v) // Update ignores a value that is not
		if ok {
			if nfc == len(fb) {
				nfs.add(-fb[fi])
			} else {
				nfc++
			}
			nfs.add(v)
			if nsc == len(sb) {
				nss.add(-sb[si])
			} else {
				nsc++
			}
			nss.add(v)
		}
		if nfc == len(fb) && nsc == len(sb) {
			if above := nfs.value()/fn > nss.value()/sn; above && stopAbove || !above && stopBelow {
				taken = i
				break
			}
		}
		if !ok {
			continue
		}
		fs, ss, fc, sc = nfs, nss, nfc, nsc
		fb[fi], sb[si] = v, v
		if fi++; fi == len(fb) {
			fi = 0
		}
		if si++; si == len(sb) {
			si = 0
		}
	}
	fast.sum, fast.count, fast.next = fs, fc, fi
	slow.sum, slow.count, slow.next = ss, sc, si
	return taken
}
