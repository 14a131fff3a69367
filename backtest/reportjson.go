package backtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// WriteJSON writes the report as indented JSON. Maps are written with
// sorted keys, so the same run gives the same bytes.
//
// A million-bar run has thousands of trades, most of the file; encoding
// them by reflection and then indenting the result took most of the
// writing. So the report is encoded with its trades left empty and the
// trades are appended by hand into the place of the empty list, as
// encoding/json writes them (TestWriteJSONAsEncoder).
func (r Report) WriteJSON(w io.Writer) error {
	if len(r.Trades) == 0 {
		return r.encode(w)
	}
	trades := r.Trades
	r.Trades = []TradeRow{}
	var head bytes.Buffer
	if err := r.encode(&head); err != nil {
		return err
	}
	// Only the top level is indented by two spaces, so the marker is the
	// report's own trades field.
	const marker = "\n  \"trades\": []"
	at := bytes.Index(head.Bytes(), []byte(marker))
	if at < 0 { // cannot happen: the layout is the Report's own
		r.Trades = trades
		return r.encode(w)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head.Bytes()[:at+len(marker)-1])
	b := make([]byte, 0, 1024)
	for i := range trades {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendTradeJSON(b, &trades[i]); err != nil {
			return err
		}
		bw.Write(b)
	}
	bw.WriteString("\n  ]")
	bw.Write(head.Bytes()[at+len(marker):])
	return bw.Flush()
}

// encode is WriteJSON by reflection alone.
func (r Report) encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// appendTradeJSON appends a trade as an element of the report's trades
// list, indented as the encoder indents it.
func appendTradeJSON(b []byte, t *TradeRow) ([]byte, error) {
	b = append(b, "\n    {"...)
	if t.Instance != "" {
		b = appendJSONField(b, "instance", t.Instance)
		b = append(b, ',')
	}
	for _, f := range [...]struct{ k, v string }{{"symbol", t.Symbol}, {"entry_time", t.EntryTime}, {"exit_time", t.ExitTime},
		{"qty", t.Qty}, {"entry_price", t.EntryPrice}, {"exit_price", t.ExitPrice}, {"fees", t.Fees}, {"pnl", t.PnL}} {
		b = appendJSONField(b, f.k, f.v)
		b = append(b, ',')
	}
	b = append(b, "\n      \"return_pct\": "...)
	b, err := appendJSONFloat(b, t.ReturnPct)
	if err != nil {
		return nil, err
	}
	b = append(b, ',')
	b = appendJSONField(b, "exit_reason", t.ExitReason)
	return append(b, "\n    }"...), nil
}

func appendJSONField(b []byte, key, v string) []byte {
	b = append(b, "\n      \""...)
	b = append(b, key...)
	b = append(b, "\": "...)
	return appendJSONString(b, v)
}

// appendJSONString appends s quoted as encoding/json quotes it (HTML
// characters escaped): by hand when nothing in it needs escaping
// (jsonPlain), else by the encoder.
func appendJSONString(b []byte, s string) []byte {
	if !jsonPlain(s) {
		q, _ := json.Marshal(s) // a string always encodes
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest 'f' form between 1e-6 and 1e21, else by the encoder (exponent
// form, and the error for a NaN or an infinity).
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	q, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return append(b, q...), nil
}
