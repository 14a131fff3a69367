package sim

import "strconv"

// idBlockLen is how many consecutive ids one text holds.
const idBlockLen = 32

// idText hands out the decimal text of order and trade numbers, cut from
// one string written for idBlockLen consecutive numbers: the exchange
// numbers its orders and trades one after the other, so one allocation
// serves idBlockLen of them instead of one each. A number outside the
// block (the first, or a counter an import moved) starts a new block.
type idText struct {
	first int64 // the number of the block's first id
	text  string
	ends  [idBlockLen]uint16 // where each id ends in text
}

// of returns n as decimal text.
func (t *idText) of(n int64) string {
	if i := n - t.first; t.text != "" && i >= 0 && i < idBlockLen {
		start := 0
		if i > 0 {
			start = int(t.ends[i-1])
		}
		return t.text[start:t.ends[i]]
	}
	var buf [idBlockLen * 20]byte // 20 bytes hold any int64
	b := buf[:0]
	for k := range int64(idBlockLen) {
		b = strconv.AppendInt(b, n+k, 10)
		t.ends[k] = uint16(len(b))
	}
	t.text, t.first = string(b), n
	return t.text[:t.ends[0]]
}
