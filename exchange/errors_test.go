package exchange

import (
	"errors"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestErrorClasses(t *testing.T) {
	t.Parallel()
	html := "<html><body>" + strings.Repeat("Access denied by the firewall. ", 4000) + "</body></html>"
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		check  func(t *testing.T, err error)
	}{
		{"400 with code", 400, nil, `{"code":700002,"msg":"Signature for this request is not valid."}`, func(t *testing.T, err error) {
			var a *APIError
			if !errors.As(err, &a) || a.Status != 400 || a.Code != CodeSignatureInvalid || a.Msg != "Signature for this request is not valid." {
				t.Errorf("%#v", err)
			}
			if err.Error() != "exchange: account: HTTP 400, code 700002: Signature for this request is not valid." {
				t.Errorf("Error() = %q", err.Error())
			}
		}},
		{"401 permission", 401, nil, `{"code":700007,"msg":"No permission to access the endpoint.","_extend":null}`, func(t *testing.T, err error) {
			if !errors.Is(err, &APIError{Code: CodeNoEndpointPermission}) || !errors.Is(err, &APIError{Status: 401}) || errors.Is(err, &APIError{Status: 400}) {
				t.Errorf("errors.Is: %v", err)
			}
		}},
		{"code as string", 400, nil, `{"code":"10101","msg":"Insufficient balance"}`, func(t *testing.T, err error) {
			if !HasCode(err, CodeInsufficientBalance) {
				t.Errorf("HasCode: %v", err)
			}
		}},
		{"403 html page", 403, nil, html, func(t *testing.T, err error) {
			var a *APIError
			if !errors.As(err, &a) || a.Status != 403 || a.Code != 0 {
				t.Fatalf("%v", err)
			}
			if !strings.HasPrefix(a.Msg, "<html><body>Access denied") || !strings.HasSuffix(a.Msg, "…") || len(a.Msg) > maxErrorBody+len("…") || !utf8.ValidString(a.Msg) {
				t.Errorf("Msg %d bytes: %.80q", len(a.Msg), a.Msg)
			}
		}},
		{"429", 429, map[string]string{"Retry-After": "7"}, `{"code":429,"msg":"Too many requests"}`, func(t *testing.T, err error) {
			var r *RateLimitError
			if !errors.As(err, &r) || r.RetryAfter != 7*time.Second || r.Local || !errors.Is(err, ErrRateLimited) {
				t.Errorf("%#v", err)
			}
		}},
		{"418", 418, map[string]string{"Retry-After": "120"}, `{"code":429,"msg":"banned"}`, func(t *testing.T, err error) {
			var b *BanError
			if !errors.As(err, &b) || b.RetryAfter != 2*time.Minute || !errors.Is(err, ErrRateLimited) {
				t.Errorf("%#v", err)
			}
		}},
		{"500", 500, nil, `{"code":500,"msg":"internal error"}`, func(t *testing.T, err error) {
			var u *UnknownOutcomeError
			if !errors.As(err, &u) || u.Status != 500 || u.Code != 500 || !errors.Is(err, ErrUnknownOutcome) {
				t.Errorf("%#v", err)
			}
		}},
		{"503 plain text", 503, nil, `Service Unavailable`, func(t *testing.T, err error) {
			var u *UnknownOutcomeError
			if !errors.As(err, &u) || u.Status != 503 || u.Msg != "Service Unavailable" {
				t.Errorf("%#v", err)
			}
		}},
		{"504", 504, nil, ``, func(t *testing.T, err error) {
			if !errors.Is(err, ErrUnknownOutcome) || errors.Is(err, ErrRateLimited) {
				t.Errorf("%v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, mux := setup(t)
			handle(t, mux, EpAccount, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				reply(w, tt.status, tt.body)
			})
			_, err := c.Spot.Account(t.Context())
			tt.check(t, err)
		})
	}
}

func TestTransportFailures(t *testing.T) {
	t.Parallel()
	// The connection closes after the request was read: it may have acted.
	c, mux := setup(t)
	handle(t, mux, EpNewOrder, func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	_, err := c.Spot.NewOrder(t.Context(), limitOrder())
	var u *UnknownOutcomeError
	if !errors.As(err, &u) || u.Err == nil || u.Status != 0 {
		t.Fatalf("dropped after send: %#v", err)
	}
	if strings.Contains(err.Error(), "signature=") {
		t.Errorf("error carries the signed URL: %v", err)
	}
	// Nothing listens: the request was never sent.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c2, _ := New(WithBaseURL("http://"+addr), WithCredentials(NewSecret(testKey), NewSecret(testSecret)), WithLimits(nil))
	_, err = c2.Spot.NewOrder(t.Context(), limitOrder())
	if err == nil || errors.Is(err, ErrUnknownOutcome) || !strings.Contains(err.Error(), "request not sent") {
		t.Fatalf("closed port: %v", err)
	}
}

func TestEnvelopeCodes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body string
		code int
	}{
		{`{"code":0,"data":["A"]}`, 0},
		{`{"code":200,"data":["A"]}`, 0},
		{`{"data":["A"]}`, 0},
		{`{"code":"200","data":["A"]}`, 0},
		{`{"code":30002,"msg":"below the minimum","data":null}`, 30002},
	} {
		var out []string
		err := decodeEnvelope(EpSelfSymbols, []byte(tt.body), &out)
		var a *APIError
		switch {
		case tt.code == 0 && (err != nil || len(out) != 1):
			t.Errorf("%s: %v %v", tt.body, out, err)
		case tt.code != 0 && (!errors.As(err, &a) || a.Code != tt.code || a.Status != 200):
			t.Errorf("%s: %v", tt.body, err)
		}
	}
}

func TestCodesComplete(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	for _, c := range Codes() {
		if CodeText(c) == "" {
			t.Errorf("code %d has no text", c)
		}
		if seen[c] {
			t.Errorf("code %d twice", c)
		}
		seen[c] = true
	}
	b, err := os.ReadFile("../../shared/spec/rest-api.md")
	if err != nil {
		t.Skip("../../shared/spec/rest-api.md not present: the spec code table check needs the shared folder")
	}
	text := string(b)
	text = text[strings.Index(text, "### Error codes"):strings.Index(text, "## 8. Limits")]
	re := regexp.MustCompile(`(?m)^\| (-?\d+) \|`)
	n := 0
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		code, _ := strconv.Atoi(m[1])
		n++
		if !seen[code] {
			t.Errorf("spec code %d has no constant", code)
		}
	}
	if n < 90 || !seen[CodeInvalidContentType] {
		t.Errorf("parsed %d spec codes; 700013 known: %v", n, seen[CodeInvalidContentType])
	}
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{}
	if got := retryAfter(h, now, 3*time.Second); got != 3*time.Second {
		t.Errorf("absent: %s", got)
	}
	h.Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
	if got := retryAfter(h, now, 0); got != 90*time.Second {
		t.Errorf("date: %s", got)
	}
	h.Set("Retry-After", "soon")
	if got := retryAfter(h, now, time.Second); got != time.Second {
		t.Errorf("garbage: %s", got)
	}
}
