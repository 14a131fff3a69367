package exchange

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestSignVectors(t *testing.T) {
	t.Parallel()
	secret := NewSecret(testSecret)
	tests := []struct {
		name, query, body, want string
	}{
		{"all in query", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1&price=11&recvWindow=5000&timestamp=1644489390087", "",
			"fd3e4e8543c5188531eb7279d68ae7d26a573d0fc5ab0d18eb692451654d837a"},
		{"mixed query and body", "symbol=BTCUSDT&side=BUY&type=LIMIT", "quantity=1&price=11&recvWindow=5000&timestamp=1644489390087",
			"d1a676610ceb39174c8039b3f548357994b2a34139a8addd33baadba65684592"},
		{"timestamp before recvWindow", "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1&price=11&timestamp=1644489390087&recvWindow=5000", "",
			"cde30661a0504b2b922f1b00c74dc328308279854bb4899494e675e87a61f452"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sign(secret, tt.query, tt.body); got != tt.want {
				t.Errorf("Sign = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestSignedRequestVector builds the facts file's first vector through the
// client itself: the new-order request with recvWindow 5000 at the fixed
// clock must carry exactly the published signature.
func TestSignedRequestVector(t *testing.T) {
	t.Parallel()
	c, err := New(WithBaseURL("http://127.0.0.1:1"), WithCredentials(NewSecret(testKey), NewSecret(testSecret)),
		WithClock(newFakeClock(testNow)), WithRecvWindow(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var q query
	q.str("symbol", "BTCUSDT")
	q.str("side", "BUY")
	q.str("type", "LIMIT")
	q.dec("quantity", decimal.NewFromInt(1))
	q.dec("price", decimal.NewFromInt(11))
	req, err := c.newRequest(context.Background(), endpoint(EpNewOrder), &q)
	if err != nil {
		t.Fatal(err)
	}
	want := "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1&price=11&recvWindow=5000&timestamp=1644489390087" +
		"&signature=fd3e4e8543c5188531eb7279d68ae7d26a573d0fc5ab0d18eb692451654d837a"
	if req.URL.RawQuery != want {
		t.Errorf("query\n got %s\nwant %s", req.URL.RawQuery, want)
	}
	if req.Method != http.MethodPost || req.URL.Path != "/api/v3/order" {
		t.Errorf("request %s %s", req.Method, req.URL.Path)
	}
	if got := req.Header.Get("X-SVC-APIKEY"); got != testKey {
		t.Errorf("key header %q", got)
	}
	if got := req.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
}

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"BEP20(BSC)":             "BEP20%28BSC%29",
		"a b":                    "a%20b",
		"a+b":                    "a%2Bb",
		`[{"symbol":"X","a":1}]`: "%5B%7B%22symbol%22%3A%22X%22%2C%22a%22%3A1%7D%5D",
		"AZaz09-_.~":             "AZaz09-_.~",
		"é":                      "%C3%A9",
		"a,b":                    "a%2Cb",
	}
	for in, want := range tests {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppendDecimal(t *testing.T) {
	t.Parallel()
	tests := []string{"1", "11", "0.1", "0.0001", "12.5", "-3.25", "100", "1000000", "123456789.123456789",
		"0.000000000000000000000000000001", "99999999999999999999.5"}
	for _, s := range tests {
		d := decimal.RequireFromString(s)
		if got := string(appendDecimal(nil, d)); got != d.String() {
			t.Errorf("appendDecimal(%s) = %s, want %s", s, got, d.String())
		}
	}
	// Trailing zeros in the input are dropped, as decimal.String does.
	if got := string(appendDecimal(nil, decimal.RequireFromString("1.2300"))); got != "1.23" {
		t.Errorf("appendDecimal(1.2300) = %s", got)
	}
}
