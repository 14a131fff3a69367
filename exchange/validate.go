package exchange

import (
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// The request-shape rules of an order: what any order must satisfy before
// a symbol's rules are even consulted. They live here once, and every path
// an order takes applies them with the same result: the REST client before
// sending, the simulator's port, the simulated server (which answers the
// same code and message on the wire) and the risk gate (through
// SymbolInfo.CheckOrder, which starts with NewOrder.Validate).
//
// A refusal is a *RuleError (so an *APIError for errors.As and HasCode)
// with HTTP status 400 and one of two codes: 44444 (parameter cannot be
// null) for a missing symbol, side or type and for a missing size or price
// the type needs, 33333 (parameter error) for everything else. Messages
// start with "parameter <field>", the field of a batch item being
// "batchOrders[i].<field>".

// MaxBatchOrders is the most orders one batch request may carry (spec
// 4.3: "up to 20 order objects, all of the same symbol").
const MaxBatchOrders = 20

// MaxClientOrderIDLen is the longest client order id accepted, in
// characters: the spec states its identifier limits in characters ("32
// alphanumeric characters"), and as only ASCII letters, digits, '-' and '_'
// are allowed, a valid id's characters are its bytes. Counting characters
// matters for the refusal: an id of 20 'é' is refused for its letters, not
// as 40 characters long.
const MaxClientOrderIDLen = 32

// Rule names of the request-shape rules, beside RuleParameters and
// RuleSTPMode.
const (
	RuleClientOrderID = "client-order-id"
	RuleBatch         = "batch"
)

// maxQuoted caps how much of a caller's text a refusal message quotes, so
// a message never outgrows what an error reply keeps (maxErrorBody) and
// reads the same locally and on the wire.
const maxQuoted = 40

// ValidClientOrderID reports whether id may be sent as a client order id:
// at most MaxClientOrderIDLen characters of A-Z, a-z, 0-9, '-' and '_'. The
// empty id is valid: the exchange then assigns one. This is the one home
// of the rule: the client, the simulator, the simulated server and the risk
// gate all apply it through NewOrder.Validate.
func ValidClientOrderID(id string) bool {
	// Every allowed character is a byte of its own: an id longer than the
	// limit in bytes has too many characters or a byte not allowed, and an
	// id of allowed bytes has as many characters as bytes. One pass over
	// the bytes decides (the runtime checks every id it makes).
	if len(id) > MaxClientOrderIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !clientIDByte(id[i]) {
			return false
		}
	}
	return true
}

// clientIDBytesLo and clientIDBytesHi are the bytes a client order id may
// hold, as bit sets: '-' and '0'-'9' below 64, 'A'-'Z', '_' and 'a'-'z'
// from 64 to 127.
const (
	clientIDBytesLo = 1<<'-' | (1<<10-1)<<'0'
	clientIDBytesHi = (1<<26-1)<<('A'-64) | 1<<('_'-64) | (1<<26-1)<<('a'-64)
)

func clientIDByte(c byte) bool {
	switch {
	case c < 64:
		return clientIDBytesLo>>c&1 != 0
	case c < 128:
		return clientIDBytesHi>>(c-64)&1 != 0
	}
	return false
}

// Validate applies the request-shape rules to o: symbol, side and type
// present and valid; no negative quantity, price or quoteOrderQty; a valid
// stpMode; a MARKET order with exactly one of quantity and quoteOrderQty
// (quoteOrderQty only to BUY) and no price; any other type with a positive
// price and quantity and no quoteOrderQty; a valid client order id (see
// ValidClientOrderID). It returns nil or a *RuleError.
func (o NewOrder) Validate() error {
	if err := o.validate(EpNewOrder, -1); err != nil {
		return err
	}
	return nil
}

// ValidateBatch applies the batch rules: 1 to MaxBatchOrders orders, each
// valid (NewOrder.Validate) and all of the first order's symbol. The first
// refusal in order is returned as a *RuleError naming the item's field
// ("batchOrders[3].price"). A batch that passes can still see single items
// refused by the exchange for its symbol rules or balances.
func ValidateBatch(orders []NewOrder) error {
	if err := CheckBatchSize(len(orders)); err != nil {
		return err
	}
	for i := range orders {
		o := &orders[i]
		if err := o.validate(EpBatchOrders, i); err != nil {
			return err
		}
		if o.Symbol != orders[0].Symbol {
			return shapeErr(EpBatchOrders, RuleBatch, CodeParameterError, i, "symbol", "%s differs from %s: a batch holds one symbol",
				quoted(o.Symbol), quoted(orders[0].Symbol))
		}
	}
	return nil
}

// CheckBatchSize refuses a batch of n orders unless 1 <= n <=
// MaxBatchOrders; a server checks the size before reading the items.
func CheckBatchSize(n int) error {
	if n < 1 || n > MaxBatchOrders {
		return shapeErr(EpBatchOrders, RuleBatch, CodeParameterError, -1, "batchOrders", "%d orders; a batch holds 1 to %d", n, MaxBatchOrders)
	}
	return nil
}

// validate is Validate for the order at index item of a batch (-1: a single
// order), refusing on endpoint ep.
func (o *NewOrder) validate(ep EndpointID, item int) *RuleError {
	switch {
	case o.Symbol == "":
		return nullErr(ep, item, "symbol")
	case o.Side == "":
		return nullErr(ep, item, "side")
	case !o.Side.Valid():
		return shapeErr(ep, RuleParameters, CodeParameterError, item, "side", "%s is not BUY or SELL", quoted(string(o.Side)))
	case o.Type == "":
		return nullErr(ep, item, "type")
	case !o.Type.Valid():
		return shapeErr(ep, RuleParameters, CodeParameterError, item, "type", "%s is not LIMIT, MARKET, LIMIT_MAKER, IMMEDIATE_OR_CANCEL or FILL_OR_KILL", quoted(string(o.Type)))
	case o.Quantity.IsNegative():
		return shapeErr(ep, RuleParameters, CodeParameterError, item, "quantity", "is negative")
	case o.Price.IsNegative():
		return shapeErr(ep, RuleParameters, CodeParameterError, item, "price", "is negative")
	case o.QuoteOrderQty.IsNegative():
		return shapeErr(ep, RuleParameters, CodeParameterError, item, "quoteOrderQty", "is negative")
	case !o.STPMode.Valid():
		return shapeErr(ep, RuleSTPMode, CodeParameterError, item, "stpMode", "%s is not cancel_maker, cancel_taker or cancel_both", quoted(string(o.STPMode)))
	}
	if o.Type == TypeMarket {
		byQty, byQuote := o.Quantity.IsPositive(), o.QuoteOrderQty.IsPositive()
		switch {
		case byQty == byQuote:
			return shapeErr(ep, RuleParameters, CodeParameterNull, item, "quantity", "a MARKET order needs exactly one of quantity and quoteOrderQty")
		case byQuote && o.Side == SideSell:
			return shapeErr(ep, RuleParameters, CodeParameterError, item, "quoteOrderQty", "is for MARKET BUY orders only; a SELL uses quantity")
		case o.Price.IsPositive():
			return shapeErr(ep, RuleParameters, CodeParameterError, item, "price", "a MARKET order takes no price")
		}
	} else {
		switch {
		case !o.Price.IsPositive():
			return shapeErr(ep, RuleParameters, CodeParameterNull, item, "price", "a %s order needs a positive price", o.Type)
		case !o.Quantity.IsPositive():
			return shapeErr(ep, RuleParameters, CodeParameterNull, item, "quantity", "a %s order needs a positive quantity", o.Type)
		case !o.QuoteOrderQty.IsZero():
			return shapeErr(ep, RuleParameters, CodeParameterError, item, "quoteOrderQty", "is for MARKET orders only")
		}
	}
	if id := o.NewClientOrderID; !ValidClientOrderID(id) {
		if n := utf8.RuneCountInString(id); n > MaxClientOrderIDLen {
			return shapeErr(ep, RuleClientOrderID, CodeParameterError, item, "newClientOrderId", "%d characters, at most %d", n, MaxClientOrderIDLen)
		}
		return shapeErr(ep, RuleClientOrderID, CodeParameterError, item, "newClientOrderId", "%s may hold only letters, digits, '-' and '_'", quoted(id))
	}
	return nil
}

// fieldName is the name of field in the order at index item of a batch.
func fieldName(item int, field string) string {
	if item < 0 {
		return field
	}
	return "batchOrders[" + strconv.Itoa(item) + "]." + field
}

func nullErr(ep EndpointID, item int, field string) *RuleError {
	return &RuleError{Rule: RuleParameters, APIError: APIError{Endpoint: ep.String(), Status: http.StatusBadRequest,
		Code: CodeParameterNull, Msg: "parameter " + fieldName(item, field) + " cannot be null"}}
}

func shapeErr(ep EndpointID, rule string, code, item int, field, format string, args ...any) *RuleError {
	return &RuleError{Rule: rule, APIError: APIError{Endpoint: ep.String(), Status: http.StatusBadRequest,
		Code: code, Msg: "parameter " + fieldName(item, field) + ": " + fmt.Sprintf(format, args...)}}
}

// quoted is s in Go quotes, cut to maxQuoted bytes (on a character
// boundary) with "..." marking the cut.
func quoted(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && s[cut]&0xC0 == 0x80 { // inside a UTF-8 sequence
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}
