package marketdata

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// A large CSV is parsed on every core: once its first lines have fixed
// the layout and the time unit, the rest is cut at line boundaries into
// chunks that goroutines (GOMAXPROCS of them) parse at once, each into its
// own stretch of the series' columns, counted beforehand. A chunk knows
// nothing of the rows before it, so what depends on them is checked when
// the chunks are joined: each chunk's first open time after the last of
// the chunk before, one scale for all (every chunk's values widened to the
// most decimals any row wrote, each fitting). A bad row anywhere, or a
// join that fails these checks, sends the whole input back through the
// sequential reading, whose result (the first bad line's error, the rows
// SkipBad passes over) the parallel one must equal in every other case.

// parallelMin is the least input a parallel read is worth: smaller input
// is read sequentially.
const parallelMin = 4 << 20

// section is input Read can read at any offset (an *os.File, a
// *bytes.Reader): base is where the reader stood, size what follows.
type section struct {
	ra       io.ReaderAt
	base     int64
	size     int64
	workers  int
	minChunk int64 // the least bytes a chunk is given
}

// sectionOf returns the section of r for a parallel read, or nil when r
// cannot be read at offsets, is smaller than min or only one core runs.
func sectionOf(r io.Reader, workers int, min int64) *section {
	ra, ok := r.(io.ReaderAt)
	sk, ok2 := r.(io.Seeker)
	if !ok || !ok2 || workers < 2 {
		return nil
	}
	base, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil
	}
	end, err := sk.Seek(0, io.SeekEnd)
	if _, err2 := sk.Seek(base, io.SeekStart); err != nil || err2 != nil || end-base < min {
		return nil
	}
	return &section{ra: ra, base: base, size: end - base, workers: workers, minChunk: min / 16}
}

// defaultWorkers is the number of goroutines a parallel read uses.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

// from reads the section from off on.
func (sec *section) from(off int64) *io.SectionReader {
	return io.NewSectionReader(sec.ra, sec.base+off, sec.size-off)
}

// chunk is one stretch of lines, [start, end) of the section.
type chunk struct {
	start, end int64
	lines      int // lines in it, counted before parsing
	at         int // where its rows go in the columns
	b          *builder
	l          layout
	failed     bool
}

// parallel parses the section from st.off on in chunks and joins them
// after st's rows; false when the sequential reading must decide.
func (st *csvState) parallel(sec *section) (*Series, bool) {
	cuts, ok := sec.cuts(st.off)
	if !ok {
		return nil, false
	}
	chunks := make([]chunk, len(cuts)-1)
	for i := range chunks {
		chunks[i] = chunk{start: cuts[i], end: cuts[i+1], l: st.l}
	}
	last := &chunks[len(chunks)-1]
	sec.each(chunks, func(c *chunk, buf []byte, _ *bufio.Reader, _ *[maxCols][]byte) {
		c.lines, c.failed = sec.countLines(c.start, c.end, buf, c == last)
	})
	prev := st.b.s.Len()
	total := prev
	for i := range chunks {
		if chunks[i].failed {
			return nil, false
		}
		chunks[i].at = total
		total += chunks[i].lines
	}
	// One allocation of the columns, which the chunks fill in place.
	var cols [6][]int64
	for f := range cols {
		cols[f] = make([]int64, total)
	}
	copy(cols[0], st.b.s.t)
	for f := range st.b.s.cols {
		copy(cols[f+1], st.b.s.cols[f])
	}
	for i := range chunks {
		c := &chunks[i]
		b := &builder{s: Series{symbol: st.o.Symbol, interval: st.o.Interval}, ivMs: st.b.ivMs, fixed: st.b.fixed}
		b.s.t = cols[0][c.at : c.at : c.at+c.lines]
		for f := range b.s.cols {
			b.s.cols[f] = cols[f+1][c.at : c.at : c.at+c.lines]
		}
		c.b = b
	}
	sec.each(chunks, func(c *chunk, _ []byte, br *bufio.Reader, fields *[maxCols][]byte) {
		br.Reset(sec.from(c.start))
		c.failed = !c.parse(br, c.end-c.start, fields)
	})
	return st.join(chunks, cols, prev)
}

// cuts returns the offsets where chunks start, each at a line's start,
// and the section's size last.
func (sec *section) cuts(from int64) ([]int64, bool) {
	rest := sec.size - from
	n := int64(sec.workers) * 4
	n = max(min(n, rest/sec.minChunk), 1)
	cuts := []int64{from}
	buf := make([]byte, maxLine+1)
	for k := int64(1); k < n; k++ {
		at := from + rest*k/n
		if at <= cuts[len(cuts)-1] {
			continue
		}
		// The chunk starts after the first line end at or past at-1.
		m, err := sec.ra.ReadAt(buf, sec.base+at-1)
		i := bytes.IndexByte(buf[:m], '\n')
		if i < 0 {
			if err == io.EOF {
				break // the last line runs to the end
			}
			return nil, false // a line longer than maxLine, or a read error
		}
		if next := at + int64(i); next > cuts[len(cuts)-1] && next < sec.size {
			cuts = append(cuts, next)
		}
	}
	return append(cuts, sec.size), true
}

// each runs f on every chunk, GOMAXPROCS-bounded goroutines taking the
// next chunk as they finish one, each with buffers of its own.
func (sec *section) each(chunks []chunk, f func(c *chunk, buf []byte, br *bufio.Reader, fields *[maxCols][]byte)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(sec.workers, len(chunks)) {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			br := bufio.NewReaderSize(nil, 64<<10)
			var fields [maxCols][]byte
			for {
				i := int(next.Add(1) - 1)
				if i >= len(chunks) {
					return
				}
				f(&chunks[i], buf, br, &fields)
			}
		})
	}
	wg.Wait()
}

// countLines counts the lines of [start, end): its line ends, and one
// more for the input's last line when no line end closes it.
func (sec *section) countLines(start, end int64, buf []byte, last bool) (int, bool) {
	n := 0
	var lastByte byte = '\n'
	for off := start; off < end; {
		m, err := sec.ra.ReadAt(buf[:min(int64(len(buf)), end-off)], sec.base+off)
		n += bytes.Count(buf[:m], []byte{'\n'})
		if m > 0 {
			lastByte = buf[m-1]
		}
		off += int64(m)
		if err != nil && !(err == io.EOF && off == end) {
			return 0, true
		}
	}
	if last && lastByte != '\n' {
		n++
	}
	return n, false
}

// parse reads the chunk's lines (size bytes) into its builder; false at
// anything the sequential reading must see in order: a bad row, a line too
// long, a read error, a time unit that changes.
func (c *chunk) parse(br *bufio.Reader, size int64, fields *[maxCols][]byte) bool {
	unit := c.l.unit
	var off int64
	lines := 0
	for off < size {
		text, n, err := readLine(br)
		if err == io.EOF && text == nil {
			break
		}
		if err != nil && err != io.EOF {
			return false
		}
		off += int64(n)
		lines++
		if len(text) == 0 || c.l.fast && c.l.fastRow(c.b, text) {
			continue
		}
		if c.l.row(c.b, text, fields) != nil {
			return false
		}
	}
	return off == size && lines == c.lines && c.l.unit == unit
}

// join checks the chunks against each other, brings them to one scale and
// closes the gaps blank lines left; prev rows came before them.
func (st *csvState) join(chunks []chunk, cols [6][]int64, prev int) (*Series, bool) {
	last, haveLast := st.b.last, st.b.haveLast
	pd, vd := st.b.priceDec, st.b.volDec
	for i := range chunks {
		c := &chunks[i]
		if c.failed {
			return nil, false
		}
		if c.b.s.Len() == 0 {
			continue
		}
		if haveLast && c.b.s.t[0] <= last {
			return nil, false
		}
		last, haveLast = c.b.last, true
		pd, vd = max(pd, c.b.priceDec), max(vd, c.b.volDec)
	}
	// Widen every part written at fewer decimals; a value that does not
	// fit is the sequential reading's error to word.
	parts := make([]*builder, 0, len(chunks)+1)
	head := *st.b
	head.s.t = cols[0][:prev]
	for f := range head.s.cols {
		head.s.cols[f] = cols[f+1][:prev]
	}
	parts = append(parts, &head)
	for i := range chunks {
		parts = append(parts, chunks[i].b)
	}
	for _, p := range parts {
		if p.priceDec < pd {
			if p.widen(pd, Open, Close) != nil {
				return nil, false
			}
			p.priceDec = pd
		}
		if p.volDec < vd {
			if p.widen(vd, Volume, Volume) != nil {
				return nil, false
			}
			p.volDec = vd
		}
	}
	n := prev
	for i := range chunks {
		c := &chunks[i]
		if k := c.b.s.Len(); c.at != n {
			for f := range cols {
				copy(cols[f][n:n+k], cols[f][c.at:c.at+k])
			}
		}
		n += c.b.s.Len()
	}
	b := &builder{s: Series{symbol: st.o.Symbol, interval: st.o.Interval, t: cols[0][:n]}, priceDec: pd, volDec: vd}
	for f := range b.s.cols {
		b.s.cols[f] = cols[f+1][:n]
	}
	st.rep.Format, st.rep.TimeUnit, st.rep.UnitGuessed = st.l.format, st.l.unit, !st.l.declared && st.l.unit != UnitDate
	return b.series(), true
}
