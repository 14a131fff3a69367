package backtest

import (
	"io"
	"math"
	"sort"
)

// EquityStream writes one run's equity.csv while the run goes on: the
// bytes WriteEquityCSV would write from the finished result, formatted on
// the goroutine that calls WriteCSV as the curve grows, so that on a
// machine with a spare core the file is all but written when the run
// ends. Set it as Spec.Equity and call WriteCSV on another goroutine
// before or while Run runs: the run hands its points over in chunks and
// waits when a few are queued that WriteCSV has not taken. A point is
// handed over once it can no longer change (the last one, revalued at the
// end of the run, goes last); the stream ends when Run returns. A stream
// serves one Run; Sweep and WalkForward refuse a Spec with one.
type EquityStream struct {
	chunks chan equityChunk
	every  int // points a chunk holds, but the last

	// The run's side (its goroutine alone): the points handed over, and
	// whether the stream was ended (by the last chunk or an error).
	sent int
	done bool
}

// equityChunk is rows lo to hi, or the error that ended the run.
type equityChunk struct {
	rows   curveRows
	lo, hi int
	err    error
}

// equityChunkPoints is the points a chunk holds: about 1.5 MB of text,
// handed over some 30 times in a million-bar run.
const equityChunkPoints = 32 << 10

// NewEquityStream returns a stream for one run.
func NewEquityStream() *EquityStream {
	return newEquityStream(equityChunkPoints)
}

// newEquityStream is NewEquityStream with chunks of every points (tests
// choose small ones).
func newEquityStream(every int) *EquityStream {
	return &EquityStream{chunks: make(chan equityChunk, 4), every: every}
}

// WriteCSV writes the header and the rows as the run hands them over,
// and returns when the run has ended: nil once every row is written, the
// run's error when it failed (the rows written so far are then a part of
// a file to be thrown away), or w's first error. After a write error it
// goes on taking the run's chunks, unwritten, so that the run never waits
// for it.
func (s *EquityStream) WriteCSV(w io.Writer) error {
	b := append(make([]byte, 0, 64<<10), equityHeader...)
	peak := math.Inf(-1)
	var err error
	for c := range s.chunks {
		switch {
		case err != nil:
		case c.err != nil:
			err = c.err
		default:
			for lo := c.lo; lo < c.hi && err == nil; lo += 1024 {
				b, peak = appendEquityRows(b, &c.rows, peak, lo, min(lo+1024, c.hi))
				_, err = w.Write(b)
				b = b[:0]
			}
		}
	}
	if err == nil && len(b) > 0 {
		_, err = w.Write(b) // the header of a curve without points
	}
	return err
}

// due reports whether a chunk's worth of points up to hi (exclusive) is
// waiting.
func (s *EquityStream) due(hi int) bool { return hi-s.sent >= s.every }

// handOver gives WriteCSV the points of c from the last handed over up
// to point hi (exclusive).
func (s *EquityStream) handOver(c *Curve, e Exposure, hi int) {
	lo := s.sent
	if !s.done && hi > lo {
		// The values are read in place: the run writes no point it has
		// handed over (and appends past hi, into this array or a copy).
		// The last time run and exposure word may still grow, so the
		// chunk has copies of those it needs.
		k := sort.Search(len(c.runs), func(k int) bool { return c.runs[k].from+c.runs[k].n > lo })
		m := sort.Search(len(c.runs), func(m int) bool { return c.runs[m].from >= hi })
		w0, w1 := lo/64, (hi-1)/64+1
		s.chunks <- equityChunk{lo: lo, hi: hi, rows: curveRows{values: c.Values[:hi],
			runs: append([]timeRun(nil), c.runs[k:m]...), held: append(Exposure(nil), e[w0:min(w1, len(e))]...), word0: w0}}
		s.sent = hi
	}
}

// end ends the stream, with the run's error when it failed.
func (s *EquityStream) end(err error) {
	if s.done {
		return
	}
	s.done = true
	if err != nil {
		s.chunks <- equityChunk{err: err}
	}
	close(s.chunks)
}
