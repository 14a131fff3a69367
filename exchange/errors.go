package exchange

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxErrorBody caps how much of an error reply is kept in an error value.
const maxErrorBody = 512

// APIError is a reply that carries an error code, or an HTTP error status.
type APIError struct {
	Endpoint string // short endpoint name, e.g. "newOrder"
	Status   int    // HTTP status
	Code     int    // the interface's error code; 0 when the body had none
	Msg      string // the message from the body, or the start of a non-JSON body
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("exchange: ")
	if e.Endpoint != "" {
		b.WriteString(e.Endpoint)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "HTTP %d", e.Status)
	if e.Code != 0 {
		fmt.Fprintf(&b, ", code %d", e.Code)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	} else if t := CodeText(e.Code); t != "" {
		b.WriteString(": ")
		b.WriteString(t)
	}
	return b.String()
}

// Is makes errors.Is(err, &APIError{Code: c}) match any APIError with code c
// (and, when the target sets it, status).
func (e *APIError) Is(target error) bool {
	t, ok := target.(*APIError)
	if !ok {
		return false
	}
	return (t.Code == 0 || t.Code == e.Code) && (t.Status == 0 || t.Status == e.Status)
}

// HasCode reports whether err is, or wraps, an *APIError with the given code.
func HasCode(err error, code int) bool {
	var a *APIError
	return errors.As(err, &a) && a.Code == code
}

// ErrRateLimited matches every *RateLimitError and *BanError with errors.Is.
var ErrRateLimited = errors.New("exchange: rate limited")

// RateLimitError is an HTTP 429 reply, or a request refused locally because
// the client is waiting out a 429 or because a rate budget is exhausted and
// the client is set to fail fast.
type RateLimitError struct {
	Endpoint   string
	RetryAfter time.Duration // how long to wait before the next request
	Local      bool          // refused by the client's own budget, not the server
	Pool       Pool          // for a local refusal: the pool that was exhausted
	Msg        string
}

func (e *RateLimitError) Error() string {
	src := "HTTP 429"
	if e.Local {
		src = "local budget"
		if e.Pool != 0 {
			src += " " + e.Pool.String()
		}
	}
	s := fmt.Sprintf("exchange: %s: rate limited (%s), retry after %s", e.Endpoint, src, e.RetryAfter)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Is matches ErrRateLimited.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// BanError is an HTTP 418 reply: the IP is banned for RetryAfter.
type BanError struct {
	Endpoint   string
	RetryAfter time.Duration
	Msg        string
}

func (e *BanError) Error() string {
	s := fmt.Sprintf("exchange: %s: IP banned (HTTP 418), retry after %s", e.Endpoint, e.RetryAfter)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Is matches ErrRateLimited.
func (e *BanError) Is(target error) bool { return target == ErrRateLimited }

// ErrUnknownOutcome matches every *UnknownOutcomeError with errors.Is.
var ErrUnknownOutcome = errors.New("exchange: outcome unknown")

// UnknownOutcomeError means the request may have been acted upon: the server
// answered 5XX, or the connection failed after the request was written. An
// order whose placement ends this way must be looked up by its client order
// id, never sent again blindly.
type UnknownOutcomeError struct {
	Endpoint string
	Status   int // the HTTP status, 0 for a transport failure
	Code     int // the body's code, if it had one
	Msg      string
	Err      error // the transport error, if any
}

func (e *UnknownOutcomeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exchange: %s: outcome unknown", e.Endpoint)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d", e.Status)
		if e.Code != 0 {
			fmt.Fprintf(&b, ", code %d", e.Code)
		}
		b.WriteString(")")
	}
	if e.Msg != "" {
		b.WriteString(": " + e.Msg)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Is matches ErrUnknownOutcome.
func (e *UnknownOutcomeError) Is(target error) bool { return target == ErrUnknownOutcome }

func (e *UnknownOutcomeError) Unwrap() error { return e.Err }

// ValidationError is an argument refused before any request was sent.
type ValidationError struct {
	Endpoint string
	Field    string
	Reason   string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("exchange: %s: invalid %s: %s", e.Endpoint, e.Field, e.Reason)
}

// invalid builds a *ValidationError.
func invalid(ep EndpointID, field, format string, args ...any) error {
	return &ValidationError{Endpoint: ep.String(), Field: field, Reason: fmt.Sprintf(format, args...)}
}

// DecodeError is a reply that could not be decoded into the endpoint's type.
type DecodeError struct {
	Endpoint string
	Body     string // the start of the body
	Err      error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("exchange: %s: decoding reply: %v (body %q)", e.Endpoint, e.Err, e.Body)
}

func (e *DecodeError) Unwrap() error { return e.Err }

func decodeError(ep EndpointID, body []byte, err error) error {
	if ep == EpCreateSubAPIKey {
		// Its reply carries the new key's secret: never quote it.
		return &DecodeError{Endpoint: ep.String(), Body: "(withheld: the reply carries a secret key)", Err: err}
	}
	return &DecodeError{Endpoint: ep.String(), Body: snippet(body), Err: err}
}

// snippet returns at most maxErrorBody bytes of body as valid UTF-8 text.
func snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	if len(s) > maxErrorBody {
		s = s[:maxErrorBody]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// errorBody is the interface's error reply.
type errorBody struct {
	Code *FlexInt `json:"code"`
	Msg  string   `json:"msg"`
}

// parseErrorBody extracts code and message from an error reply. A body that
// is not the JSON error shape (a firewall's HTML page) is kept as text.
func parseErrorBody(body []byte) (code int, msg string) {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err == nil && (eb.Code != nil || eb.Msg != "") {
		if eb.Code != nil {
			code = int(*eb.Code)
		}
		return code, snippet([]byte(eb.Msg))
	}
	return 0, snippet(body)
}

// retryAfter parses the Retry-After header (seconds, or an HTTP date),
// falling back to def.
func retryAfter(h http.Header, now time.Time, def time.Duration) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return def
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
		return 0
	}
	return def
}

// checkResponse maps a non-2XX reply to a typed error. It returns nil for a
// 2XX status.
func checkResponse(ep EndpointID, resp *http.Response, body []byte, now time.Time) error {
	st := resp.StatusCode
	if st >= 200 && st < 300 {
		return nil
	}
	code, msg := parseErrorBody(body)
	name := ep.String()
	switch {
	case st == http.StatusTooManyRequests:
		return &RateLimitError{Endpoint: name, RetryAfter: retryAfter(resp.Header, now, time.Second), Msg: msg}
	case st == http.StatusTeapot:
		return &BanError{Endpoint: name, RetryAfter: retryAfter(resp.Header, now, 2*time.Minute), Msg: msg}
	case st >= 500:
		return &UnknownOutcomeError{Endpoint: name, Status: st, Code: code, Msg: msg}
	}
	return &APIError{Endpoint: name, Status: st, Code: code, Msg: msg}
}
