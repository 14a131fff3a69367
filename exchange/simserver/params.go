package simserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// maxBody caps request bodies: anything larger is refused before parsing.
const maxBody = 1 << 20

// params are a request's parameters, merged from the query string and the
// body (JSON object or form text); on conflict the query string wins, as the
// spec says.
type params struct {
	vals map[string]string
	// signedText is the query text followed by the body text with the
	// signature parameter removed: what the client signed.
	signedText string
	signature  string
}

// apiError is an error reply: HTTP status, code and message.
type apiError struct {
	status     int
	code       int
	msg        string
	retryAfter time.Duration // for 429 and 418
}

func (e *apiError) Error() string { return fmt.Sprintf("HTTP %d code %d: %s", e.status, e.code, e.msg) }

// badParam is a 400 refusal. Every string and error among args is
// clipped to exchange.MaxEcho bytes: a refusal quotes at most a short
// prefix of what was sent.
func badParam(code int, format string, args ...any) *apiError {
	return &apiError{status: 400, code: code, msg: fmt.Sprintf(format, exchange.ClipArgs(args)...)}
}

// jsonProblem describes a JSON decoding error without echoing the text
// decoded (a type error quotes the number it met).
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		kind, _, _ := strings.Cut(te.Value, " ")
		return "found a JSON " + kind
	}
	return exchange.Clip(err.Error())
}

// parseParams merges query and body parameters. A JSON body must be an
// object whose values are strings, numbers, booleans or null (arrays and
// objects are kept as their JSON text, which is how batchOrders arrives in a
// JSON body); anything else is form text.
func parseParams(rawQuery string, body []byte) (*params, *apiError) {
	p := &params{vals: map[string]string{}}
	qText, qSig, err := stripSignature(rawQuery)
	if err != nil {
		return nil, err
	}
	bodyText := string(body)
	trimmed := bytes.TrimSpace(body)
	var bSig string
	if len(trimmed) > 0 && trimmed[0] == '{' {
		ms, err := p.fromJSON(body)
		if err != nil {
			return nil, err
		}
		if bodyText, bSig = cutSignature(body, ms); bSig != "" {
			delete(p.vals, "signature")
		}
	} else if len(trimmed) > 0 {
		bodyText, bSig, err = stripSignature(string(body))
		if err != nil {
			return nil, err
		}
		if err := p.fromForm(bodyText); err != nil {
			return nil, err
		}
	}
	// The query string wins over the body.
	if err := p.fromForm(qText); err != nil {
		return nil, err
	}
	switch {
	case qSig != "" && bSig != "":
		return nil, badParam(exchange.CodeParameterError, "signature sent twice")
	case qSig != "":
		p.signature = qSig
	default:
		p.signature = bSig
	}
	p.signedText = qText + bodyText
	return p, nil
}

// cutSignature finds a signature member in a JSON object body (spec §5.2
// lets it travel in the body) and returns the body as signed: the text
// with that member cut out together with the comma joining it to the
// member after it (or, when it is the last, to the member before it) and
// the white space between them. `{"a":1,"signature":"…"}` was signed as
// `{"a":1}`. Without a signature member it returns the body unchanged and
// "".
func cutSignature(body []byte, ms []member) (signed, sig string) {
	for i, m := range ms {
		if m.name != "signature" {
			continue
		}
		var v string
		if json.Unmarshal(m.raw, &v) != nil {
			v = string(bytes.TrimSpace(m.raw)) // not a string: kept as written, so it fails verification
		}
		if v == "" {
			v = " " // present but empty: fails verification, not "missing"
		}
		from, to := m.start, m.end
		switch {
		case i+1 < len(ms):
			to = ms[i+1].start
		case i > 0:
			from = ms[i-1].end
		}
		return string(body[:from]) + string(body[to:]), v
	}
	return string(body), ""
}

// stripSignature removes the signature parameter from form text, returning
// the text as signed and the signature. The signature may stand anywhere
// but must appear once.
func stripSignature(text string) (rest, sig string, err *apiError) {
	if text == "" {
		return "", "", nil
	}
	parts := strings.Split(text, "&")
	kept := parts[:0]
	for _, part := range parts {
		if strings.HasPrefix(part, "signature=") {
			if sig != "" {
				return "", "", badParam(exchange.CodeParameterError, "signature sent twice")
			}
			sig = strings.TrimPrefix(part, "signature=")
			if sig == "" {
				sig = " " // present but empty: fails verification, not "missing"
			}
			continue
		}
		kept = append(kept, part)
	}
	return strings.Join(kept, "&"), sig, nil
}

func (p *params) fromForm(text string) *apiError {
	if text == "" {
		return nil
	}
	// A name twice in one text is ambiguous (which value was meant?), so
	// it is refused; a name in both query and body is not: the query wins.
	seen := map[string]bool{}
	for _, part := range strings.Split(text, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err1 := url.PathUnescape(k)
		val, err2 := url.PathUnescape(v)
		if err1 != nil || err2 != nil {
			return badParam(exchange.CodeIllegalCharacters, "malformed percent-encoding in parameter %q", k)
		}
		if err := checkChars(key, val); err != nil {
			return err
		}
		if seen[key] {
			return badParam(exchange.CodeParameterError, "parameter %s sent twice", key)
		}
		seen[key] = true
		p.vals[key] = val
	}
	return nil
}

// member is one name and value of a JSON object body, with where it
// stands in the body text.
type member struct {
	name    string          // decoded
	rawName []byte          // as written, quotes included
	raw     json.RawMessage // the value as written
	// start is the offset of the name's opening quote, end the offset just
	// past the value.
	start, end int
}

// members walks a JSON object known to be valid, member by member, keeping
// the raw text of names and values and their offsets.
func members(body []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []member
	for dec.More() {
		prev := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		nameEnd := int(dec.InputOffset())
		start := prev + bytes.IndexByte(body[prev:nameEnd], '"')
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		out = append(out, member{name: name, rawName: body[start:nameEnd], raw: raw, start: start, end: int(dec.InputOffset())})
	}
	return out, nil
}

// fromJSON reads a JSON object body. Names and values are checked as
// written, before decoding: encoding/json would turn invalid UTF-8 and
// lone surrogate escapes (\ud800) into U+FFFD, and an order would then be
// stored under another client order id than the one sent (700008, as in
// the query form). It returns the members, for the caller to find a
// signature among them.
func (p *params) fromJSON(body []byte) ([]member, *apiError) {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, badParam(exchange.CodeParameterError, "body is not a JSON object: %s", jsonProblem(err))
	}
	if dec.More() {
		return nil, badParam(exchange.CodeParameterError, "body has data after the JSON object")
	}
	ms, err := members(body)
	if err != nil {
		return nil, badParam(exchange.CodeParameterError, "body is not a JSON object: %v", err)
	}
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		if why := jsonTextProblem(m.rawName); why != "" {
			return nil, badParam(exchange.CodeIllegalCharacters, "parameter name: %s", why)
		}
		if why := jsonTextProblem(m.raw); why != "" {
			return nil, badParam(exchange.CodeIllegalCharacters, "parameter %q: %s", m.name, why)
		}
		// Names are compared decoded (quan\u0074ity is quantity), as the
		// map they are read into would; a name twice is ambiguous.
		if seen[m.name] {
			return nil, badParam(exchange.CodeParameterError, "parameter %s sent twice", m.name)
		}
		seen[m.name] = true
	}
	for _, m := range ms {
		k, raw := m.name, bytes.TrimSpace(m.raw)
		var v string
		switch {
		case len(raw) > 0 && raw[0] == '"':
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, badParam(exchange.CodeParameterError, "parameter %q: %v", k, err)
			}
		case string(raw) == "null":
			continue
		default:
			v = string(raw) // numbers and booleans as written; arrays/objects as JSON text
		}
		if err := checkChars(k, v); err != nil {
			return nil, err
		}
		p.vals[k] = v
	}
	return ms, nil
}

// jsonTextProblem says what is wrong with valid JSON text as written, or
// "": invalid UTF-8, or a \u escape of a surrogate that is not half of a
// high-low pair.
func jsonTextProblem(raw []byte) string {
	if !utf8.Valid(raw) {
		return "invalid UTF-8"
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch {
		case c == '"':
			inString = false
		case c == '\\' && i+5 < len(raw) && raw[i+1] == 'u':
			r := hex4(raw[i+2 : i+6])
			if r >= 0xD800 && r <= 0xDBFF && i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if lo := hex4(raw[i+8 : i+12]); lo >= 0xDC00 && lo <= 0xDFFF {
					i += 11
					continue
				}
			}
			if r >= 0xD800 && r <= 0xDFFF {
				return "lone surrogate " + string(raw[i:i+6])
			}
			i += 5
		case c == '\\':
			i++ // a one-character escape
		}
	}
	return ""
}

// hex4 is the value of four hex digits (valid JSON guarantees them).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		}
	}
	return r
}

// checkChars refuses control characters and invalid UTF-8 in names and
// values (700008): a JSON reply could not echo invalid UTF-8 back intact.
func checkChars(k, v string) *apiError {
	for _, s := range [2]string{k, v} {
		if !utf8.ValidString(s) {
			return badParam(exchange.CodeIllegalCharacters, "invalid UTF-8 in parameter %q", k)
		}
		for _, r := range s {
			if r < 0x20 || r == 0x7f {
				return badParam(exchange.CodeIllegalCharacters, "illegal character in parameter %q", k)
			}
		}
	}
	return nil
}

func (p *params) has(k string) bool { _, ok := p.vals[k]; return ok }

func (p *params) str(k string) string { return p.vals[k] }

// required returns a parameter that must be present and non-empty.
func (p *params) required(k string) (string, *apiError) {
	v, ok := p.vals[k]
	if !ok || v == "" {
		return "", badParam(exchange.CodeParameterNull, "parameter %s cannot be null", k)
	}
	return v, nil
}

// int64 parses an optional integer; def when absent.
func (p *params) int64(k string, def int64) (int64, *apiError) {
	v, ok := p.vals[k]
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, badParam(exchange.CodeParameterError, "parameter %s: %q is not an integer", k, v)
	}
	return n, nil
}

// limit parses an optional list limit and checks it against 1..max.
func (p *params) limit(k string, def, max int) (int, *apiError) {
	n, err := p.int64(k, int64(def))
	if err != nil {
		return 0, err
	}
	if n < 1 || n > int64(max) {
		return 0, badParam(exchange.CodeParameterError, "parameter %s: %d is outside 1..%d", k, n, max)
	}
	return int(n), nil
}

// millis parses an optional millisecond time.
func (p *params) millis(k string) (time.Time, *apiError) {
	n, err := p.int64(k, 0)
	if err != nil || n == 0 {
		return time.Time{}, err
	}
	if n < 0 {
		return time.Time{}, badParam(exchange.CodeParameterError, "parameter %s: negative time", k)
	}
	return time.UnixMilli(n).UTC(), nil
}

// dec parses an optional decimal: exchange.PlainDecimal's grammar only
// (no exponent, NaN or infinity, no '+', no bare point: "1.", ".5").
func (p *params) dec(k string) (decimal.Decimal, *apiError) { return p.decNamed(k, k) }

// decNamed is dec naming the parameter name in a refusal (a batch item's
// "batchOrders[2].price").
func (p *params) decNamed(k, name string) (decimal.Decimal, *apiError) {
	v, ok := p.vals[k]
	if !ok || v == "" {
		return decimal.Decimal{}, nil
	}
	if !exchange.PlainDecimal(v) {
		return decimal.Decimal{}, badParam(exchange.CodeParameterError, "parameter %s: %q is not a decimal number", name, v)
	}
	d, err := decimal.NewFromString(v)
	if err != nil {
		return decimal.Decimal{}, badParam(exchange.CodeParameterError, "parameter %s: %q is not a decimal number", name, v)
	}
	return d, nil
}

// bool parses an optional boolean.
func (p *params) bool(k string) (value, present bool, err *apiError) {
	v, ok := p.vals[k]
	if !ok || v == "" {
		return false, false, nil
	}
	switch v {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, badParam(exchange.CodeParameterError, "parameter %s: %q is not true or false", k, v)
}
