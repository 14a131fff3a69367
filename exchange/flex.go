package exchange

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// The live service sends some integers and booleans as JSON strings, some
// identifiers as numbers, and some fields as null. These types decode every
// form seen and keep an ordinary Go value.

var null = []byte("null")

// unquote strips one pair of JSON string quotes, reporting whether there were
// any. Escapes are not expected in numbers or booleans and are rejected by
// the callers' parsers.
func unquote(b []byte) ([]byte, bool) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1], true
	}
	return b, false
}

// FlexInt is an integer that may arrive as a JSON number or string. null and
// "" decode as 0.
type FlexInt int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *FlexInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, null) {
		*n = 0
		return nil
	}
	s, _ := unquote(b)
	if len(s) == 0 {
		*n = 0
		return nil
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		// Some integers arrive as "5.0" or 5.0.
		f, ferr := strconv.ParseFloat(string(s), 64)
		if ferr != nil || f != float64(int64(f)) {
			return fmt.Errorf("invalid integer %s", b)
		}
		v = int64(f)
	}
	*n = FlexInt(v)
	return nil
}

// FlexBool is a boolean that may arrive as true/false, "true"/"false", or
// 1/0 in either form. null decodes as false.
type FlexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (v *FlexBool) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	s, _ := unquote(b)
	switch string(s) {
	case "true", "TRUE", "True", "1":
		*v = true
	case "false", "FALSE", "False", "0", "null", "":
		*v = false
	default:
		return fmt.Errorf("invalid boolean %s", b)
	}
	return nil
}

// FlexString is text that may arrive as a JSON string or number (group ids,
// trade side types). null decodes as "".
type FlexString string

// UnmarshalJSON implements json.Unmarshaler.
func (v *FlexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, null) {
		*v = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = FlexString(s)
		return nil
	}
	if _, err := strconv.ParseFloat(string(b), 64); err != nil {
		return fmt.Errorf("invalid string or number %s", b)
	}
	*v = FlexString(b)
	return nil
}

// Millis is a time in milliseconds since the epoch, arriving as a number or a
// string. The zero value means absent.
type Millis int64

// UnmarshalJSON implements json.Unmarshaler.
func (m *Millis) UnmarshalJSON(b []byte) error {
	var n FlexInt
	if err := n.UnmarshalJSON(b); err != nil {
		return fmt.Errorf("invalid time: %w", err)
	}
	*m = Millis(n)
	return nil
}

// Time returns m as a UTC time; the zero Millis gives the zero time.
func (m Millis) Time() time.Time {
	if m == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(m)).UTC()
}

// MillisOf converts t to Millis; the zero time gives 0.
func MillisOf(t time.Time) Millis {
	if t.IsZero() {
		return 0
	}
	return Millis(t.UnixMilli())
}

// OptDecimal is a decimal that may be null or empty in a reply (ticker
// fields). Valid is false when no value was sent.
type OptDecimal struct {
	Decimal decimal.Decimal
	Valid   bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *OptDecimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	s, _ := unquote(b)
	if bytes.Equal(b, null) || len(s) == 0 {
		*o = OptDecimal{}
		return nil
	}
	d, err := decimal.NewFromString(string(s))
	if err != nil {
		return fmt.Errorf("invalid decimal %s", b)
	}
	*o = OptDecimal{Decimal: d, Valid: true}
	return nil
}

// MarshalJSON writes the decimal as a string, or null.
func (o OptDecimal) MarshalJSON() ([]byte, error) {
	if !o.Valid {
		return null, nil
	}
	return []byte(`"` + o.Decimal.String() + `"`), nil
}
