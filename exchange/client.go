package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultKeyHeader is the header that carries the access key.
const DefaultKeyHeader = "X-SVC-APIKEY"

// MaxRecvWindow is the exclusive upper bound of recvWindow.
const MaxRecvWindow = 60 * time.Second

// maxReplyBody caps a successful reply; the largest documented reply (a
// 5000-level book) is well under it.
const maxReplyBody = 32 << 20

// contentType is sent on every request (700013 otherwise). Header values are
// shared read-only slices so building a request does not allocate them.
var contentType = []string{"application/json"}

// Client talks to the exchange's REST interface. It is safe for concurrent
// use. Build one with New.
type Client struct {
	base       url.URL
	key        Secret
	keyHeader  string
	keyValue   *keyHeader // behind a pointer so printing a Client value shows no key
	signer     *signer
	recvWindow int64 // ms, 0 to leave it out
	http       *http.Client
	clock      Clock
	log        *slog.Logger
	budget     *Budget
	offset     atomic.Int64 // server time minus local time, ms

	budgetMode   BudgetMode
	budgetMargin time.Duration
	limits       []Limit
	rateRetries  int // resends after a server 429

	// Market holds the public market-data endpoints.
	Market *MarketService
	// Spot holds the spot account and trading endpoints.
	Spot *SpotService
	// Sub holds the sub-account endpoints (main-account keys only).
	Sub *SubAccountService
	// Wallet holds coin configuration, deposits, withdrawals, transfers and
	// dust conversion.
	Wallet *WalletService
}

// keyHeader is the header value carrying the access key, shared read-only
// by every request.
type keyHeader struct{ v []string }

// service is the shared base of the area services.
type service struct{ c *Client }

// MarketService groups the market-data endpoints.
type MarketService service

// SpotService groups the spot account and trading endpoints.
type SpotService service

// SubAccountService groups the sub-account endpoints.
type SubAccountService service

// WalletService groups the wallet endpoints.
type WalletService service

// Option configures a Client. Options validate their arguments.
type Option func(*Client) error

// WithBaseURL sets the service address, e.g. "https://api.example.com".
func WithBaseURL(raw string) Option {
	return func(c *Client) error {
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("base URL: %w", err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("base URL %q: scheme must be http or https", raw)
		}
		if u.Host == "" {
			return fmt.Errorf("base URL %q: no host", raw)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("base URL %q: must not have a query or fragment", raw)
		}
		u.Path = strings.TrimSuffix(u.Path, "/")
		c.base = *u
		return nil
	}
}

// WithCredentials sets the access key and secret used for signed endpoints.
func WithCredentials(key, secret Secret) Option {
	return func(c *Client) error {
		if key.IsZero() || secret.IsZero() {
			return errors.New("credentials: key and secret must both be set")
		}
		c.key = key
		c.signer = newSigner(secret)
		return nil
	}
}

// WithKeyHeader changes the header that carries the access key.
func WithKeyHeader(name string) Option {
	return func(c *Client) error {
		if name == "" || strings.ContainsAny(name, " \t\r\n:") {
			return fmt.Errorf("key header %q: not a valid header name", name)
		}
		c.keyHeader = name
		return nil
	}
}

// WithRecvWindow sets recvWindow on signed requests; it must be positive and
// below 60 s. Zero leaves the parameter out (the server's default is 5 s).
func WithRecvWindow(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 || d >= MaxRecvWindow || d%time.Millisecond != 0 {
			return fmt.Errorf("recvWindow %s: must be whole milliseconds, at least 0 and below %s", d, MaxRecvWindow)
		}
		c.recvWindow = d.Milliseconds()
		return nil
	}
}

// WithHTTPClient sets the HTTP client. It should have a timeout.
func WithHTTPClient(h *http.Client) Option {
	return func(c *Client) error {
		if h == nil {
			return errors.New("HTTP client: nil")
		}
		c.http = h
		return nil
	}
}

// WithTimeout sets the timeout of the default HTTP client.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) error {
		if d <= 0 {
			return fmt.Errorf("timeout %s: must be positive", d)
		}
		c.http = &http.Client{Timeout: d}
		return nil
	}
}

// WithClock sets the clock used for timestamps and rate budgets.
func WithClock(clk Clock) Option {
	return func(c *Client) error {
		if clk == nil {
			return errors.New("clock: nil")
		}
		c.clock = clk
		return nil
	}
}

// WithLogger sets the logger. Requests are logged at debug level without
// headers, keys or signatures.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) error {
		if l == nil {
			return errors.New("logger: nil")
		}
		c.log = l
		return nil
	}
}

// WithBudgetMode chooses whether a call that would exceed a rate budget waits
// (the default) or fails fast with a local *RateLimitError.
func WithBudgetMode(m BudgetMode) Option {
	return func(c *Client) error {
		if m != BudgetWait && m != BudgetFailFast {
			return fmt.Errorf("budget mode %d: unknown", m)
		}
		c.budgetMode = m
		return nil
	}
}

// WithBudgetMargin widens every budget window by d (default 100 ms) so that
// latency jitter cannot squeeze more than the limit into a server window.
func WithBudgetMargin(d time.Duration) Option {
	return func(c *Client) error {
		if d < 0 {
			return fmt.Errorf("budget margin %s: must not be negative", d)
		}
		c.budgetMargin = d
		return nil
	}
}

// WithRateLimitRetries resends a request the server refused with 429 up to
// n times (default 0: the caller gets the *RateLimitError). A 429 means the
// server did not act on the request, so resending is safe for every
// endpoint; each resend waits for the Retry-After and for a whole window
// of the endpoint's pools (see Budget.Saturate), and is signed anew. A 418
// ban is never retried.
func WithRateLimitRetries(n int) Option {
	return func(c *Client) error {
		if n < 0 {
			return fmt.Errorf("rate-limit retries %d: must not be negative", n)
		}
		c.rateRetries = n
		return nil
	}
}

// WithLimits replaces the spec's rate budgets; an empty list disables
// client-side budgeting (the server's 429 and 418 are still honoured).
func WithLimits(limits []Limit) Option {
	return func(c *Client) error {
		c.limits = append([]Limit{}, limits...)
		return nil
	}
}

// New builds a Client. WithBaseURL is required; WithCredentials is required
// for signed endpoints.
func New(opts ...Option) (*Client, error) {
	c := &Client{
		keyHeader:    DefaultKeyHeader,
		http:         &http.Client{Timeout: 15 * time.Second},
		clock:        SystemClock{},
		log:          slog.New(slog.DiscardHandler),
		budgetMargin: 100 * time.Millisecond,
		limits:       DefaultLimits(),
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, fmt.Errorf("exchange: %w", err)
		}
	}
	if c.base.Host == "" {
		return nil, errors.New("exchange: base URL is required (WithBaseURL)")
	}
	b, err := NewBudget(c.clock, c.budgetMode, c.budgetMargin, c.limits)
	if err != nil {
		return nil, err
	}
	c.budget = b
	if !c.key.IsZero() {
		c.keyValue = &keyHeader{v: []string{string(c.key.reveal())}}
	}
	c.Market = &MarketService{c}
	c.Spot = &SpotService{c}
	c.Sub = &SubAccountService{c}
	c.Wallet = &WalletService{c}
	return c, nil
}

// String keeps credentials out of printed clients.
func (c *Client) String() string { return "exchange.Client{" + c.base.String() + "}" }

// GoString keeps credentials out of %#v.
func (c *Client) GoString() string { return c.String() }

// LogValue keeps credentials out of logs.
func (c *Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

// Budget returns the client's rate budget.
func (c *Client) Budget() *Budget { return c.budget }

// ClockOffset returns the server time minus the local time, as last synced.
func (c *Client) ClockOffset() time.Duration {
	return time.Duration(c.offset.Load()) * time.Millisecond
}

// SetClockOffset sets the offset applied to signed timestamps.
func (c *Client) SetClockOffset(d time.Duration) { c.offset.Store(d.Milliseconds()) }

// SyncTime measures the server clock against the local one and stores the
// offset used for signed timestamps. It returns the offset.
func (c *Client) SyncTime(ctx context.Context) (time.Duration, error) {
	var t0 time.Time // when the request left, after any budget wait
	body, err := c.send(ctx, EpTime, &query{}, &t0)
	if err != nil {
		return 0, err
	}
	t1 := c.clock.Now()
	var r struct {
		ServerTime Millis `json:"serverTime"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return 0, decodeError(EpTime, body, err)
	}
	if r.ServerTime <= 0 {
		return 0, decodeError(EpTime, body, errors.New("serverTime missing"))
	}
	mid := t0.Add(t1.Sub(t0) / 2)
	off := r.ServerTime.Time().Sub(mid).Round(time.Millisecond)
	c.SetClockOffset(off)
	c.log.LogAttrs(ctx, slog.LevelDebug, "clock synced", slog.Duration("offset", off))
	return off, nil
}

// timestamp is the signed request time: local clock plus the synced offset.
func (c *Client) timestamp() int64 { return c.clock.Now().UnixMilli() + c.offset.Load() }

// newRequest builds the HTTP request for ep with the parameters in q. For a
// signed endpoint it appends recvWindow, timestamp and the signature (last),
// so the signed text is exactly the query on the wire.
func (c *Client) newRequest(ctx context.Context, ep *Endpoint, q *query) (*http.Request, error) {
	if ep.Security == Signed {
		if c.signer == nil {
			return nil, &ValidationError{Endpoint: ep.Name, Field: "credentials", Reason: "signed endpoint needs WithCredentials"}
		}
		if c.recvWindow > 0 {
			q.int("recvWindow", c.recvWindow)
		}
		q.int("timestamp", c.timestamp())
		signed := len(q.buf)
		q.buf = append(q.buf, "&signature="...)
		q.buf = c.signer.appendSignature(q.buf, q.buf[:signed], nil)
	}
	req, err := http.NewRequestWithContext(ctx, ep.Method, "", nil)
	if err != nil {
		return nil, err
	}
	// Fill in the URL and header NewRequest allocated rather than making
	// new ones: this path runs for every order.
	*req.URL = c.base
	req.URL.Path = c.base.Path + ep.Path
	req.URL.RawQuery = string(q.buf)
	req.Host = req.URL.Host
	req.Header["Content-Type"] = contentType
	if ep.Security == Signed {
		req.Header[http.CanonicalHeaderKey(c.keyHeader)] = c.keyValue.v
	}
	return req, nil
}

// do calls ep and decodes a JSON reply into out (which may be nil).
func (c *Client) do(ctx context.Context, ep EndpointID, q *query, out any) error {
	body, err := c.call(ctx, ep, q)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return decodeError(ep, body, err)
	}
	if v, ok := out.(interface{ validate() error }); ok {
		if err := v.validate(); err != nil {
			return decodeError(ep, body, err)
		}
	}
	return nil
}

// call sends ep with the parameters in q and returns the body of a 2XX reply.
// A signed request rejected with 700003 (clock skew) is retried once after a
// clock sync, and one refused with 429 up to the configured number of times:
// the server acted on neither. Each resend is timestamped and signed anew.
func (c *Client) call(ctx context.Context, id EndpointID, q *query) ([]byte, error) {
	if q == nil {
		q = &query{}
	}
	params := len(q.buf)
	synced, retries := false, 0
	for {
		body, err := c.send(ctx, id, q, nil)
		var rl *RateLimitError
		switch {
		case err == nil:
			return body, nil
		case !synced && endpoint(id).Security == Signed && HasCode(err, CodeTimestampOutsideWindow):
			if _, serr := c.SyncTime(ctx); serr != nil {
				return nil, err
			}
			synced = true
		case errors.As(err, &rl) && !rl.Local && retries < c.rateRetries:
			retries++
			c.log.LogAttrs(ctx, slog.LevelWarn, "rate limited by the server; resending after the pause",
				slog.String("endpoint", endpoint(id).Name), slog.Int("retry", retries))
		default:
			return body, err
		}
		q.buf = q.buf[:params]
	}
}

// send makes one request. If sentAt is not nil it receives the time the
// request left (after any budget wait), for clock sync.
func (c *Client) send(ctx context.Context, id EndpointID, q *query, sentAt *time.Time) ([]byte, error) {
	ep := endpoint(id)
	if err := c.budget.Acquire(ctx, id, ep.Draws); err != nil {
		return nil, err
	}
	var wrote atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) }}
	req, err := c.newRequest(httptrace.WithClientTrace(ctx, trace), ep, q)
	if err != nil {
		return nil, err
	}
	start := c.clock.Now()
	if sentAt != nil {
		*sentAt = start
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.log.LogAttrs(ctx, slog.LevelDebug, "request failed", slog.String("endpoint", ep.Name), slog.Bool("sent", wrote.Load()))
		// Strip the URL from the error: it carries the signature.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		if wrote.Load() {
			return nil, &UnknownOutcomeError{Endpoint: ep.Name, Err: err}
		}
		return nil, fmt.Errorf("exchange: %s: request not sent: %w", ep.Name, err)
	}
	defer resp.Body.Close()
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxReplyBody+1))
	c.log.LogAttrs(ctx, slog.LevelDebug, "request", slog.String("endpoint", ep.Name),
		slog.Int("status", resp.StatusCode), slog.Duration("took", c.clock.Now().Sub(start)))
	if rerr != nil {
		if resp.StatusCode >= 200 && resp.StatusCode < 300 || resp.StatusCode >= 500 {
			return nil, &UnknownOutcomeError{Endpoint: ep.Name, Status: resp.StatusCode, Err: rerr}
		}
	}
	if err := checkResponse(id, resp, body, c.clock.Now()); err != nil {
		var rl *RateLimitError
		var ban *BanError
		switch {
		case errors.As(err, &rl):
			c.budget.Block(rl.RetryAfter)
			c.budget.Saturate(ep.Draws)
		case errors.As(err, &ban):
			c.budget.Ban(ban.RetryAfter)
		}
		return nil, err
	}
	if rerr != nil {
		return nil, &UnknownOutcomeError{Endpoint: ep.Name, Status: resp.StatusCode, Err: rerr}
	}
	if len(body) > maxReplyBody {
		return nil, decodeError(id, body[:maxErrorBody], fmt.Errorf("reply larger than %d bytes", maxReplyBody))
	}
	return body, nil
}

// envelope is the reply shape {code, msg, data, timestamp} of some endpoints;
// success is code 0 or 200.
type envelope struct {
	Code      *FlexInt        `json:"code"`
	Msg       string          `json:"msg"`
	Data      json.RawMessage `json:"data"`
	Timestamp Millis          `json:"timestamp"`
}

// doEnvelope calls ep and decodes the data of an enveloped reply into out.
func (c *Client) doEnvelope(ctx context.Context, ep EndpointID, q *query, out any) error {
	body, err := c.call(ctx, ep, q)
	if err != nil {
		return err
	}
	return decodeEnvelope(ep, body, out)
}

func decodeEnvelope(ep EndpointID, body []byte, out any) error {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return decodeError(ep, body, err)
	}
	if env.Code != nil && *env.Code != 0 && *env.Code != 200 {
		return &APIError{Endpoint: ep.String(), Status: http.StatusOK, Code: int(*env.Code), Msg: snippet([]byte(env.Msg))}
	}
	if out == nil {
		return nil
	}
	if len(env.Data) == 0 {
		return decodeError(ep, body, errors.New("no data in reply"))
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return decodeError(ep, body, err)
	}
	if v, ok := out.(interface{ validate() error }); ok {
		if err := v.validate(); err != nil {
			return decodeError(ep, body, err)
		}
	}
	return nil
}
