package exchange

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// slowDepth decodes a depth reply with encoding/json, as a reference.
func slowDepth(b []byte) (*OrderBook, error) {
	var w struct {
		LastUpdateID *FlexInt        `json:"lastUpdateId"`
		Bids         [][]FlexDecimal `json:"bids"`
		Asks         [][]FlexDecimal `json:"asks"`
		Extra        map[string]any  `json:"-"`
		_            json.RawMessage `json:"-"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, err
	}
	if w.LastUpdateID == nil {
		return nil, fmt.Errorf("no lastUpdateId")
	}
	conv := func(ls [][]FlexDecimal) ([]PriceLevel, error) {
		var out []PriceLevel
		for _, l := range ls {
			if len(l) < 2 {
				return nil, fmt.Errorf("short level")
			}
			out = append(out, PriceLevel{l[0].Decimal, l[1].Decimal})
		}
		return out, nil
	}
	bids, err := conv(w.Bids)
	if err != nil {
		return nil, err
	}
	asks, err := conv(w.Asks)
	if err != nil {
		return nil, err
	}
	return &OrderBook{LastUpdateID: int64(*w.LastUpdateID), Bids: bids, Asks: asks}, nil
}

func sameBook(a, b *OrderBook) bool {
	if a.LastUpdateID != b.LastUpdateID || len(a.Bids) != len(b.Bids) || len(a.Asks) != len(b.Asks) {
		return false
	}
	for i := range a.Bids {
		if !a.Bids[i].Price.Equal(b.Bids[i].Price) || !a.Bids[i].Qty.Equal(b.Bids[i].Qty) {
			return false
		}
	}
	for i := range a.Asks {
		if !a.Asks[i].Price.Equal(b.Asks[i].Price) || !a.Asks[i].Qty.Equal(b.Asks[i].Qty) {
			return false
		}
	}
	return true
}

func depthReply(levels int) []byte {
	var b strings.Builder
	b.WriteString(`{"lastUpdateId":3790321,"bids":[`)
	for i := 0; i < levels; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["%s","%s"]`, decimal.NewFromInt(2000000-int64(i)).Shift(-2), decimal.NewFromInt(int64(i*7%1000+1)).Shift(-4))
	}
	b.WriteString(`],"asks":[`)
	for i := 0; i < levels; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `["%s","%s"]`, decimal.NewFromInt(2000001+int64(i)).Shift(-2), decimal.NewFromInt(int64(i*13%1000+1)).Shift(-4))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func TestDecodeDepthAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	inputs := []string{
		string(depthReply(50)),
		`{"lastUpdateId":"7","bids":[],"asks":[]}`,
		` { "asks" : [ [ 1.5 , "2" ] ] , "lastUpdateId" : 9 , "bids" : [ [ "1" , 3 , 0 ] ] , "_extend" : null , "x" : {"a":[1,{"b":"\""}]} } `,
		`{"lastUpdateId":1,"bids":null,"asks":[["0.00000001","123456789.123456789"]]}`,
	}
	for _, in := range inputs {
		got, err := DecodeDepth([]byte(in))
		if err != nil {
			t.Fatalf("DecodeDepth(%.60s): %v", in, err)
		}
		want, err := slowDepth([]byte(in))
		if err != nil {
			t.Fatalf("reference decoder: %v", err)
		}
		if !sameBook(got, want) {
			t.Errorf("books differ for %.60s:\n got %+v\nwant %+v", in, got, want)
		}
	}
	b, _ := DecodeDepth(depthReply(3))
	if b.Bids[0].Price.String() != "20000" || b.Bids[2].Price.String() != "19999.98" || b.Asks[1].Qty.String() != "0.0014" {
		t.Errorf("levels %+v", b)
	}
}

func TestDecodeDepthRejectsMalformed(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `[]`, `{`, `{"lastUpdateId":1,"bids":[["1"]]}`, `{"lastUpdateId":1,"bids":[["1","x"]]}`,
		`{"bids":[]}`, `{"lastUpdateId":1.5}`, `{"lastUpdateId":1} trailing`, `{"lastUpdateId":1,"bids":[["1","2"]`,
		`{"lastUpdateId":1,"bids":[["1\"","2"]]}`, `{"lastUpdateId":1,"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`} {
		if b, err := DecodeDepth([]byte(in)); err == nil {
			t.Errorf("DecodeDepth(%q) = %+v, want an error", in, b)
		}
	}
}

func FuzzDecodeDepth(f *testing.F) {
	f.Add(depthReply(3))
	f.Add([]byte(`{"lastUpdateId":"7","bids":[[1,2]],"asks":null}`))
	f.Add([]byte(`{"lastUpdateId":1,"bids":[["1","2","3"]],"z":[{"a":"\\"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeDepth(b)
		want, werr := slowDepth(b)
		if err == nil && werr == nil && !sameBook(got, want) {
			t.Fatalf("decoders disagree on %q", b)
		}
	})
}

// BenchmarkDecodeDepth5000 decodes a 5000-level book (10,000 levels in
// all). Target: ≤ 4 ms per op.
func BenchmarkDecodeDepth5000(b *testing.B) {
	body := depthReply(5000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeDepth(body); err != nil {
			b.Fatal(err)
		}
	}
}
