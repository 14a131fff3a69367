package marketdata

import (
	"fmt"
)

// jsonScan walks freqtrade's JSON, [[ms,o,h,l,c,v],...], counting lines
// for errors.
type jsonScan struct {
	b    []byte
	i    int
	line int
}

func (s *jsonScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		s.i++
	}
}

// expect consumes c after white space.
func (s *jsonScan) expect(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// value returns the text of the next number (quotes dropped).
func (s *jsonScan) value() []byte {
	s.space()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '"' {
		s.i++
		for s.i < len(s.b) && s.b[s.i] != '"' && s.b[s.i] != '\n' {
			s.i++
		}
		v := s.b[start+1 : s.i]
		if s.i < len(s.b) && s.b[s.i] == '"' {
			s.i++
		}
		return v
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == ',' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			break
		}
		s.i++
	}
	return s.b[start:s.i]
}

// readJSON reads freqtrade's JSON. A bad row is skipped whole with
// SkipBad; bad JSON structure stops the read.
func readJSON(all []byte, o ReadOptions) (*Series, Report, error) {
	rep := Report{Format: FormatFreqtrade}
	s := &jsonScan{b: all, line: 1}
	if len(all) >= 3 && string(all[:3]) == "\ufeff" {
		s.i = 3
	}
	b := newBuilder(o.Symbol, o.Interval, len(all)/60+16)
	l := layout{format: FormatFreqtrade, timeName: "open_time"}
	structure := func(what string) error {
		return &RowError{Line: s.line, Problem: "not freqtrade JSON ([[ms,open,high,low,close,volume],...]): " + what}
	}
	if !s.expect('[') {
		return nil, rep, structure("no opening [")
	}
	first := true
	for {
		if s.expect(']') {
			if !first {
				return nil, rep, structure("a ] after a comma")
			}
			break
		}
		if !s.expect('[') {
			return nil, rep, structure("a row must start with [")
		}
		line := s.line
		var vals [6][]byte
		n := 0
		for {
			v := s.value()
			if n < 6 {
				vals[n] = v
			}
			n++
			if s.expect(']') {
				break
			}
			if !s.expect(',') {
				return nil, rep, structure("a value must be followed by , or ]")
			}
		}
		rerr := jsonRow(b, &l, vals, n)
		if rerr != nil {
			rerr.Line = line
			if !o.SkipBad {
				return nil, rep, rerr
			}
			rep.Skipped = append(rep.Skipped, rerr)
		}
		first = false
		if s.expect(']') {
			break
		}
		if !s.expect(',') {
			return nil, rep, structure("rows must be separated by commas")
		}
		if s.expect(']') {
			return nil, rep, structure("a ] after a comma")
		}
		s.space()
	}
	if s.space(); s.i != len(s.b) {
		return nil, rep, structure("text after the closing ]")
	}
	rep.TimeUnit, rep.UnitGuessed = l.unit, l.unit != UnitDate
	return b.series(), rep, nil
}

func jsonRow(b *builder, l *layout, vals [6][]byte, n int) *RowError {
	if n != 6 {
		return &RowError{Problem: fmt.Sprintf("%d values, want 6 (open time ms, open, high, low, close, volume)", n)}
	}
	t := vals[0]
	// freqtrade writes times as integers, some writers as 1.5e12 floats.
	if x, p := parseNum(t, true); p == numOK && x.dec == 0 && x.mant > 0 {
		t = fmt.Appendf(nil, "%d", x.mant)
	}
	ms, rerr := l.time(t)
	if rerr != nil {
		return rerr
	}
	if rerr := b.checkTime(ms, l.timeName); rerr != nil {
		return rerr
	}
	var v [5]num
	var texts [5][]byte
	for f := range v {
		texts[f] = vals[f+1]
		x, p := parseNum(vals[f+1], true)
		if p != numOK {
			return numError(seriesFieldNames[f], vals[f+1], p)
		}
		v[f] = x
	}
	return b.add(ms, v, &texts)
}
