package marketdata

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// hashVersion starts the canonical encoding; a change of the encoding
// changes it.
const hashVersion = "spotbot.series.v1\n"

// Hash returns the SHA-256 of the series' canonical encoding, so equal
// bars have equal hashes whatever file, format or scale they came from
// (a CSV writing 16713.080000 and a store holding 16713.08 agree).
//
// The encoding: hashVersion; the interval and "\n"; the bar count as a
// little-endian uint64; the price and volume exponents as little-endian
// int32 after dropping the trailing zeros every coefficient of the columns
// shares (so the scale a source chose does not count; an all-zero column
// has exponent 0); then the open-time column and the open, high, low,
// close and volume columns in that order, each value a little-endian int64
// at those exponents. The symbol is not part of the content.
func (s *Series) Hash() [32]byte {
	h := sha256.New()
	h.Write([]byte(hashVersion))
	h.Write([]byte(string(s.interval) + "\n"))
	pk := commonZeros(s.cols[Open], s.cols[High], s.cols[Low], s.cols[Close])
	vk := commonZeros(s.cols[Volume])
	pexp, vexp := s.priceExp+int32(pk), s.volExp+int32(vk)
	if allZero(s.cols[Volume]) {
		vexp = 0
	}
	if len(s.t) == 0 {
		pexp, vexp = 0, 0
	}
	var head [16]byte
	binary.LittleEndian.PutUint64(head[0:], uint64(len(s.t)))
	binary.LittleEndian.PutUint32(head[8:], uint32(pexp))
	binary.LittleEndian.PutUint32(head[12:], uint32(vexp))
	h.Write(head[:])
	buf := make([]byte, 0, 64<<10)
	put := func(col []int64, div int64) {
		for _, v := range col {
			if len(buf)+8 > cap(buf) {
				h.Write(buf)
				buf = buf[:0]
			}
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v/div))
		}
	}
	put(s.t, 1)
	for f := Open; f <= Close; f++ {
		put(s.cols[f], pow10i[pk])
	}
	put(s.cols[Volume], pow10i[vk])
	h.Write(buf)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// HashString is Hash in lowercase hex.
func (s *Series) HashString() string {
	h := s.Hash()
	return hex.EncodeToString(h[:])
}

// commonZeros is how many trailing decimal zeros every non-zero value of
// the columns has (at most 18).
func commonZeros(cols ...[]int64) int {
	k := len(pow10i) - 1
	for _, col := range cols {
		for _, v := range col {
			if k == 0 {
				return 0
			}
			if v == 0 {
				continue
			}
			for k > 0 && v%pow10i[k] != 0 {
				k--
			}
		}
	}
	return k
}

func allZero(col []int64) bool {
	for _, v := range col {
		if v != 0 {
			return false
		}
	}
	return true
}
