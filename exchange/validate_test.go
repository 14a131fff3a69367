package exchange

import (
	"errors"
	"strings"
	"testing"
)

func TestValidClientOrderID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{"", true}, // the exchange assigns one
		{"a", true},
		{"smacross-lqb8x2-1f", true},
		{"A_z-0_9", true},
		{strings.Repeat("x", MaxClientOrderIDLen), true},
		{strings.Repeat("x", MaxClientOrderIDLen+1), false},
		{"bad id!", false},
		{"a.b", false},
		{"a,b", false},
		{"été", false},
		{"a\x00", false},
	}
	for _, tt := range tests {
		if got := ValidClientOrderID(tt.id); got != tt.want {
			t.Errorf("ValidClientOrderID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestValidateAcceptsEveryWellFormedShape(t *testing.T) {
	t.Parallel()
	for _, o := range []NewOrder{
		{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: d("1"), Price: d("1")},
		{Symbol: "BTCUSDT", Side: SideSell, Type: TypeLimitMaker, Quantity: d("1"), Price: d("1"), STPMode: STPCancelBoth},
		{Symbol: "BTCUSDT", Side: SideSell, Type: TypeFillOrKill, Quantity: d("1"), Price: d("1"), NewClientOrderID: strings.Repeat("Z", 32)},
		{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeImmediateOrCancel, Quantity: d("1"), Price: d("1"), STPMode: STPCancelMaker},
		{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeMarket, QuoteOrderQty: d("10")},
		{Symbol: "BTCUSDT", Side: SideSell, Type: TypeMarket, Quantity: d("1"), STPMode: STPCancelTaker},
	} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	batch := make([]NewOrder, MaxBatchOrders)
	for i := range batch {
		batch[i] = NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: d("1"), Price: d("1")}
	}
	if err := ValidateBatch(batch); err != nil {
		t.Errorf("batch of %d: %v", MaxBatchOrders, err)
	}
	if err := ValidateBatch(batch[:1]); err != nil {
		t.Errorf("batch of 1: %v", err)
	}
}

// TestValidateBatchFirstRefusalWins shows the refusal of the first bad
// item, in order, whether it is a bad field or another symbol.
func TestValidateBatchFirstRefusalWins(t *testing.T) {
	t.Parallel()
	ok := NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: d("1"), Price: d("1")}
	other := ok
	other.Symbol = "ETHUSDT"
	badID := ok
	badID.NewClientOrderID = "bad id!"
	tests := []struct {
		orders []NewOrder
		msg    string
	}{
		{[]NewOrder{ok, other, badID}, `parameter batchOrders[1].symbol: "ETHUSDT" differs from "BTCUSDT": a batch holds one symbol`},
		{[]NewOrder{ok, badID, other}, `parameter batchOrders[1].newClientOrderId: "bad id!" may hold only letters, digits, '-' and '_'`},
		{[]NewOrder{badID, other}, `parameter batchOrders[0].newClientOrderId: "bad id!" may hold only letters, digits, '-' and '_'`},
		{[]NewOrder{{}}, "parameter batchOrders[0].symbol cannot be null"},
		{[]NewOrder{other, ok}, `parameter batchOrders[1].symbol: "BTCUSDT" differs from "ETHUSDT": a batch holds one symbol`},
	}
	for i, tt := range tests {
		err := ValidateBatch(tt.orders)
		var re *RuleError
		if !errors.As(err, &re) || re.Msg != tt.msg || re.Endpoint != "batchOrders" || re.Status != 400 {
			t.Errorf("case %d: %v, want %q", i, err, tt.msg)
		}
	}
	if err := CheckBatchSize(MaxBatchOrders + 1); err == nil || err.Error() !=
		"exchange: batchOrders: HTTP 400, code 33333: parameter batchOrders: 21 orders; a batch holds 1 to 20 [rule batch]" {
		t.Errorf("CheckBatchSize(21) = %v", err)
	}
}

// TestCheckOrderValidatesFirst shows CheckOrder refusing a malformed order
// with Validate's error before any symbol rule, even on a paused symbol.
func TestCheckOrderValidatesFirst(t *testing.T) {
	t.Parallel()
	s := testSymbol()
	s.Status = SymbolPaused
	o := NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: d("0.01"), Price: d("20000"), NewClientOrderID: "bad id!"}
	err := s.CheckOrder(o, d("20000"))
	want := o.Validate()
	var got, w *RuleError
	if !errors.As(err, &got) || !errors.As(want, &w) || *got != *w || got.Rule != RuleClientOrderID {
		t.Fatalf("CheckOrder = %v, want %v", err, want)
	}
	o.NewClientOrderID = "ok-1"
	if err := s.CheckOrder(o, d("20000")); !HasCode(err, CodeTradingSuspended) {
		t.Fatalf("valid order on a paused symbol: %v", err)
	}
}

// The client order id limit counts characters, as the service states its
// limits ("32 alphanumeric characters"): a refusal names the characters
// sent, not the bytes. Before, 20 two-byte letters were refused as "40
// characters, at most 32".
func TestClientOrderIDCountsCharacters(t *testing.T) {
	t.Parallel()
	o := NewOrder{Symbol: "BTCUSDT", Side: SideBuy, Type: TypeLimit, Quantity: d("1"), Price: d("1")}
	tests := []struct{ id, want string }{
		{strings.Repeat("é", 20), `parameter newClientOrderId: "éééééééééééééééééééé" may hold only letters, digits, '-' and '_'`},
		{strings.Repeat("é", 33), `parameter newClientOrderId: 33 characters, at most 32`},
		{strings.Repeat("x", 33), `parameter newClientOrderId: 33 characters, at most 32`},
	}
	for _, tt := range tests {
		o.NewClientOrderID = tt.id
		var re *RuleError
		if err := o.Validate(); !errors.As(err, &re) || re.Msg != tt.want || re.Code != CodeParameterError {
			t.Errorf("%q: %v, want %s", tt.id, err, tt.want)
		}
	}
}

// clientIDByte's bit sets allow exactly the bytes the rule names.
func TestClientIDByte(t *testing.T) {
	t.Parallel()
	for c := 0; c < 256; c++ {
		b := byte(c)
		want := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '_'
		if got := clientIDByte(b); got != want {
			t.Errorf("clientIDByte(%#x) = %v, want %v", c, got, want)
		}
	}
	for id, want := range map[string]bool{"": true, strings.Repeat("a", 32): true, strings.Repeat("a", 33): false,
		strings.Repeat("é", 16): false, strings.Repeat("é", 17): false, "a-b_C9": true, "a b": false, "a.b": false} {
		if got := ValidClientOrderID(id); got != want {
			t.Errorf("ValidClientOrderID(%q) = %v, want %v", id, got, want)
		}
	}
}
