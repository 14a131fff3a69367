package simserver

import (
	"strings"
	"testing"
)

// Invalid UTF-8 and lone surrogates in a JSON body, values and names
// alike, are refused as in the query form (700008). Before, json.Unmarshal
// turned them into U+FFFD and the order was stored with another id than
// the one sent.
func TestJSONBodyIllegalCharacters(t *testing.T) {
	t.Parallel()
	_, hs, _ := protoServer(t, Options{Limits: Limits{Off: true}})
	tests := []struct{ name, body, want string }{
		{"lone high surrogate in a value", `{"newClientOrderId":"a\ud800b"}`,
			`{"code":700008,"msg":"parameter \"newClientOrderId\": lone surrogate \\ud800"}`},
		{"lone low surrogate in a value", `{"newClientOrderId":"\uDC00"}`,
			`{"code":700008,"msg":"parameter \"newClientOrderId\": lone surrogate \\uDC00"}`},
		{"high surrogate before a non-surrogate", `{"newClientOrderId":"\ud800\u0041"}`,
			`{"code":700008,"msg":"parameter \"newClientOrderId\": lone surrogate \\ud800"}`},
		{"lone surrogate in a name", `{"sym\ud800bol":"BTCUSDT"}`,
			`{"code":700008,"msg":"parameter name: lone surrogate \\ud800"}`},
		{"invalid UTF-8 in a value", "{\"newClientOrderId\":\"a\xffb\"}",
			`{"code":700008,"msg":"parameter \"newClientOrderId\": invalid UTF-8"}`},
		{"invalid UTF-8 in a name", "{\"sym\xc3bol\":\"BTCUSDT\"}",
			`{"code":700008,"msg":"parameter name: invalid UTF-8"}`},
		{"UTF-8 encoded surrogate", "{\"newClientOrderId\":\"\xed\xa0\x80\"}",
			`{"code":700008,"msg":"parameter \"newClientOrderId\": invalid UTF-8"}`},
		{"in a nested batch item", `{"batchOrders":[{"newClientOrderId":"\udfff"}]}`,
			`{"code":700008,"msg":"parameter \"batchOrders\": lone surrogate \\udfff"}`},
	}
	for _, tt := range tests {
		q := "timestamp=1644489390087"
		st, body, _ := do(t, "POST", hs.URL+"/api/v3/order?"+q+"&signature="+sign(q+tt.body), tt.body, keyHdr)
		if st != 400 || body != tt.want {
			t.Errorf("%s: %d %s, want 400 %s", tt.name, st, body, tt.want)
		}
	}
	// A proper pair is one character and is kept.
	body := `{"note":"\ud83d\ude00"}`
	q := "timestamp=1644489390087"
	if st, got, _ := do(t, "POST", hs.URL+"/api/v3/order?"+q+"&signature="+sign(q+body), body, keyHdr); st != 200 || got != `{"note":"😀","timestamp":"1644489390087"}` {
		t.Errorf("surrogate pair: %d %s", st, got)
	}
}

// A signature may travel inside a JSON body (spec §5.2: "sent in the query
// string or in the body"). What is signed is the query followed by the
// body with the signature member cut out together with the comma that
// joins it to a neighbour. Before, it was refused with 33333.
func TestSignatureInJSONBody(t *testing.T) {
	t.Parallel()
	_, hs, _ := protoServer(t, Options{Limits: Limits{Off: true}})
	q := "symbol=BTCUSDT"
	tests := []struct {
		name, signed, sent string // sent has SIG where the signature goes
		status             int
		want               string
	}{
		{"last member", `{"side":"BUY","timestamp":1644489390087}`, `{"side":"BUY","timestamp":1644489390087,"signature":"SIG"}`,
			200, `{"side":"BUY","symbol":"BTCUSDT","timestamp":"1644489390087"}`},
		{"first member", `{"side":"BUY","timestamp":1644489390087}`, `{"signature":"SIG","side":"BUY","timestamp":1644489390087}`,
			200, `{"side":"BUY","symbol":"BTCUSDT","timestamp":"1644489390087"}`},
		{"middle, with spaces", `{ "side": "BUY", "timestamp": 1644489390087 }`, `{ "side": "BUY", "signature": "SIG", "timestamp": 1644489390087 }`,
			200, `{"side":"BUY","symbol":"BTCUSDT","timestamp":"1644489390087"}`},
		{"only member", `{}`, `{"signature":"SIG"}`,
			400, `{"code":44444,"msg":"parameter timestamp cannot be null"}`},
		{"signed with the signature member left in", `{"side":"BUY","timestamp":1644489390087,"signature":""}`, `{"side":"BUY","timestamp":1644489390087,"signature":"SIG"}`,
			400, `{"code":700002,"msg":"signature for this request is not valid"}`},
	}
	for _, tt := range tests {
		body := strings.Replace(tt.sent, "SIG", sign(q+tt.signed), 1)
		st, got, _ := do(t, "POST", hs.URL+"/api/v3/order?"+q, body, keyHdr)
		if st != tt.status || got != tt.want {
			t.Errorf("%s: %d %s, want %d %s", tt.name, st, got, tt.status, tt.want)
		}
	}
	// In the query and in the body: refused as a signature sent twice.
	qs := q + "&signature=" + sign(q)
	body := `{"timestamp":1644489390087,"signature":"` + sign(q) + `"}`
	if st, got, _ := do(t, "POST", hs.URL+"/api/v3/order?"+qs, body, keyHdr); st != 400 || got != `{"code":33333,"msg":"signature sent twice"}` {
		t.Errorf("signature twice: %d %s", st, got)
	}
}
