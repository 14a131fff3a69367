package indicator

// VWAP is the volume-weighted average price of bars, each bar weighted at
// its typical price (high + low + close)/3. NewVWAP makes a cumulative VWAP
// over every bar since construction or the last Reset (call Reset at a
// session start to anchor it there); NewRollingVWAP one over the last n
// bars.
//
// The VWAP is defined (Ready) once the bars it covers hold some volume: a
// run of zero-volume bars has no average price. A bar with a negative
// volume or a non-finite field is ignored.
type VWAP struct {
	// A cumulative VWAP has no buffers; a rolling one keeps each bar's
	// price × volume and volume in rings.
	pvs, vols []float64
	next      int
	count     int
	pv, vol   ksum
	// traded counts the covered bars with a positive volume: Ready asks
	// it rather than whether the volume sum is positive, which rounding
	// residue of bars that left the window could fake.
	traded int
}

// NewVWAP returns a cumulative VWAP.
func NewVWAP() *VWAP { return &VWAP{} }

// NewRollingVWAP returns a VWAP over the last n bars; n must be at least 1.
func NewRollingVWAP(n int) (*VWAP, error) {
	if n < 1 {
		return nil, periodError("NewRollingVWAP", "n", n, 1)
	}
	return &VWAP{pvs: make([]float64, n), vols: make([]float64, n)}, nil
}

// Update adds a bar.
func (w *VWAP) Update(high, low, close, volume float64) {
	if !finite(high) || !finite(low) || !finite(close) || !finite(volume) || volume < 0 {
		return
	}
	pv := volume * ((high + low + close) / 3)
	if n := len(w.pvs); n > 0 {
		if w.count == n {
			if w.vols[w.next] > 0 {
				w.traded--
			}
			w.pv.add(-w.pvs[w.next])
			w.vol.add(-w.vols[w.next])
		} else {
			w.count++
		}
		w.pvs[w.next], w.vols[w.next] = pv, volume
		if w.next++; w.next == n {
			w.next = 0
		}
	}
	if volume > 0 {
		w.traded++
	}
	if w.traded == 0 {
		// Nothing traded in the window: the sums are exactly zero, not
		// whatever residue subtracting the departed bars left.
		w.pv, w.vol = ksum{}, ksum{}
		return
	}
	w.pv.add(pv)
	w.vol.add(volume)
}

// Ready reports whether the bars covered hold a positive volume (for a
// rolling VWAP, also whether n bars have arrived).
func (w *VWAP) Ready() bool { return w.count == len(w.pvs) && w.traded > 0 }

// Value returns the VWAP, or 0 before Ready.
func (w *VWAP) Value() float64 {
	if !w.Ready() {
		return 0
	}
	return w.pv.value() / w.vol.value()
}

// Period returns n for a rolling VWAP and 0 for a cumulative one.
func (w *VWAP) Period() int { return len(w.pvs) }

// Reset forgets all bars.
func (w *VWAP) Reset() { w.next, w.count, w.pv, w.vol, w.traded = 0, 0, ksum{}, ksum{}, 0 }
