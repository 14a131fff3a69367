package distributed

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// barsMagic starts every encoding, so a stored object of another kind or
// version is refused by name instead of decoded into nonsense.
const barsMagic = "spotbot.bars/v2\n"

// EncodeBars is the canonical encoding of loaded bars: the symbols in
// name order, each as its compact series (marketdata.Series): the symbol,
// the interval, the price and volume exponents, the bar count, then the
// open-time column and the open, high, low, close and volume columns, each
// value a zigzag varint of its difference from the value before it. The
// exponents travel with the coefficients, so "1.50" comes back as "1.50",
// not "1.5", and a run on decoded bars prints what a run on the originals
// prints. It is what travels through the object store.
func EncodeBars(data map[string]*marketdata.Series) ([]byte, error) {
	syms := sortedSymbols(data)
	n := len(barsMagic) + 10
	for _, sym := range syms {
		n += len(sym) + 32 + 6*3*data[sym].Len() // about 3 bytes a value
	}
	buf := append(make([]byte, 0, n), barsMagic...)
	buf = binary.AppendUvarint(buf, uint64(len(syms)))
	for _, sym := range syms {
		s := data[sym]
		if s == nil {
			return nil, fmt.Errorf("bars: no series for %s", sym)
		}
		iv := string(s.Interval())
		buf = binary.AppendUvarint(buf, uint64(len(sym)))
		buf = append(buf, sym...)
		buf = binary.AppendUvarint(buf, uint64(len(iv)))
		buf = append(buf, iv...)
		buf = binary.AppendVarint(buf, int64(s.Exp(marketdata.Close)))
		buf = binary.AppendVarint(buf, int64(s.Exp(marketdata.Volume)))
		buf = binary.AppendUvarint(buf, uint64(s.Len()))
		buf = appendDeltas(buf, s.Times())
		for f := marketdata.Open; f <= marketdata.Volume; f++ {
			buf = appendDeltas(buf, s.Ints(f))
		}
	}
	return buf, nil
}

func appendDeltas(buf []byte, col []int64) []byte {
	var prev int64
	for _, v := range col {
		buf = binary.AppendVarint(buf, v-prev)
		prev = v
	}
	return buf
}

// DecodeBars reads what EncodeBars wrote; every series is checked as a
// loader checks it (marketdata.NewSeries).
func DecodeBars(b []byte) (map[string]*marketdata.Series, error) {
	r := reader{b: b}
	if string(r.take(len(barsMagic))) != barsMagic {
		return nil, errors.New("bars: not a spotbot.bars/v2 encoding")
	}
	nsym := r.uvarint()
	out := make(map[string]*marketdata.Series, min(nsym, 1024))
	for range nsym {
		sym := string(r.take(int(r.uvarint())))
		iv := exchange.Interval(r.take(int(r.uvarint())))
		pexp, vexp := r.varint(), r.varint()
		n := r.uvarint()
		if r.err != nil || n > uint64(len(r.b))/6 { // every bar takes at least six bytes
			return nil, errors.New("bars: truncated")
		}
		var cols [6][]int64
		for c := range cols {
			col := make([]int64, n)
			var prev int64
			for i := range col {
				prev += r.varint()
				col[i] = prev
			}
			cols[c] = col
		}
		if r.err != nil {
			return nil, errors.New("bars: truncated")
		}
		if pexp != int64(int32(pexp)) || vexp != int64(int32(vexp)) {
			return nil, fmt.Errorf("bars: %s: exponents %d and %d out of range", sym, pexp, vexp)
		}
		s, err := marketdata.NewSeries(sym, iv, int32(pexp), int32(vexp), cols[0], cols[1], cols[2], cols[3], cols[4], cols[5])
		if err != nil {
			return nil, fmt.Errorf("bars: %s: %w", sym, err)
		}
		out[sym] = s
	}
	if r.err != nil {
		return nil, errors.New("bars: truncated")
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("bars: %d bytes after the last bar", len(r.b))
	}
	return out, nil
}

// BarsHash names bars by content: the hex SHA-256 of barsMagic and, for
// each symbol in name order, its name, its series' price and volume
// exponents and its content hash (marketdata.Series.Hash, the one home of
// hashing bars). Series.Hash leaves out the scale a source chose; the
// exponents are named here because a run reads them (the default rules'
// price precision), so bars differing only in scale are other bars to a
// queue that hands them to workers.
func BarsHash(data map[string]*marketdata.Series) string {
	h := sha256.New()
	h.Write([]byte(barsMagic))
	var num [binary.MaxVarintLen64]byte
	for _, sym := range sortedSymbols(data) {
		s := data[sym]
		h.Write(binary.AppendUvarint(num[:0], uint64(len(sym))))
		h.Write([]byte(sym))
		if s == nil {
			continue
		}
		h.Write(binary.AppendVarint(num[:0], int64(s.Exp(marketdata.Close))))
		h.Write(binary.AppendVarint(num[:0], int64(s.Exp(marketdata.Volume))))
		sum := s.Hash()
		h.Write(sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sortedSymbols(data map[string]*marketdata.Series) []string {
	syms := make([]string, 0, len(data))
	for s := range data {
		syms = append(syms, s)
	}
	slices.Sort(syms)
	return syms
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errors.New("short")
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("short")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errors.New("short")
		return 0
	}
	r.b = r.b[n:]
	return v
}
