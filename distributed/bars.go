package distributed

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// barsMagic starts every encoding, so a stored object of another kind or
// version is refused by name instead of decoded into nonsense.
const barsMagic = "spotbot.bars/v1\n"

// EncodeBars is the canonical encoding of loaded bars: the symbols in
// name order, each with its bars in time order; times in Unix nanoseconds
// (UTC, as every loader gives them), decimals as their coefficient and
// exponent (decimal's binary form), so "1.50" comes back as "1.50", not
// "1.5", and a run on decoded bars prints what a run on the originals
// prints. It is what travels through the object store and what BarsHash
// hashes.
func EncodeBars(data map[string][]exchange.Kline) ([]byte, error) {
	syms := make([]string, 0, len(data))
	for s := range data {
		syms = append(syms, s)
	}
	slices.Sort(syms)
	buf := []byte(barsMagic)
	buf = binary.AppendUvarint(buf, uint64(len(syms)))
	for _, s := range syms {
		ks := data[s]
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
		buf = binary.AppendUvarint(buf, uint64(len(ks)))
		for i := range ks {
			k := &ks[i]
			if k.OpenTime.Location() != time.UTC || k.CloseTime.Location() != time.UTC {
				return nil, fmt.Errorf("bars: %s bar %d: times must be UTC", s, i)
			}
			buf = binary.AppendVarint(buf, k.OpenTime.UnixNano())
			buf = binary.AppendVarint(buf, k.CloseTime.UnixNano())
			for _, d := range [...]decimal.Decimal{k.Open, k.High, k.Low, k.Close, k.Volume, k.QuoteVolume} {
				b, err := d.MarshalBinary()
				if err != nil {
					return nil, fmt.Errorf("bars: %s bar %d: %w", s, i, err)
				}
				buf = binary.AppendUvarint(buf, uint64(len(b)))
				buf = append(buf, b...)
			}
		}
	}
	return buf, nil
}

// DecodeBars reads what EncodeBars wrote.
func DecodeBars(b []byte) (map[string][]exchange.Kline, error) {
	r := reader{b: b}
	if string(r.take(len(barsMagic))) != barsMagic {
		return nil, errors.New("bars: not a spotbot.bars/v1 encoding")
	}
	nsym := r.uvarint()
	out := make(map[string][]exchange.Kline, min(nsym, 1024))
	for range nsym {
		sym := string(r.take(int(r.uvarint())))
		n := r.uvarint()
		if r.err != nil || n > uint64(len(r.b)) { // every bar takes more than a byte
			return nil, errors.New("bars: truncated")
		}
		ks := make([]exchange.Kline, n)
		for i := range ks {
			k := &ks[i]
			k.OpenTime = time.Unix(0, r.varint()).UTC()
			k.CloseTime = time.Unix(0, r.varint()).UTC()
			for _, d := range [...]*decimal.Decimal{&k.Open, &k.High, &k.Low, &k.Close, &k.Volume, &k.QuoteVolume} {
				raw := r.take(int(r.uvarint()))
				if r.err != nil {
					return nil, errors.New("bars: truncated")
				}
				if err := d.UnmarshalBinary(raw); err != nil {
					return nil, fmt.Errorf("bars: %s bar %d: %w", sym, i, err)
				}
			}
		}
		out[sym] = ks
	}
	if r.err != nil {
		return nil, errors.New("bars: truncated")
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("bars: %d bytes after the last bar", len(r.b))
	}
	return out, nil
}

// BarsHash names bars by content: the hex SHA-256 of their canonical
// encoding. It is the one place that names bars, so a compact series with
// a hash of its own can take its place here.
func BarsHash(encoded []byte) string {
	h := sha256.Sum256(encoded)
	return hex.EncodeToString(h[:])
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
