// Package simserver serves the exchange's whole REST interface over the
// simulated exchange, strictly: routes from the endpoint table, parameters
// from the query string, a JSON body or a form body (the query wins),
// signature, timestamp and recvWindow checks, API keys with permissions and
// IP binding, the spec's rate limits with 429 and escalating 418 bans, the
// spec's error codes, and fault injection. The adapter's end-to-end tests,
// the reliability tests and `bot sim-server` run against it.
package simserver

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
)

// request is one parsed, authenticated request as a handler sees it.
type request struct {
	ep  *exchange.Endpoint
	p   *params
	key *Key // nil for public endpoints
	ip  string
	now time.Time
}

// handler answers one endpoint: a value to encode as JSON, or an error.
type handler func(r *request) (any, *apiError)

// Options configure a Server.
type Options struct {
	// Clock is the server's clock (the simulator's clock); required.
	Clock  exchange.Clock
	Keys   []Key
	Limits Limits
	Faults Faults
	Logger *slog.Logger
}

// Server is an http.Handler serving the interface.
type Server struct {
	x        *sim.Exchange // the exchange served; nil in protocol-only tests
	clock    exchange.Clock
	log      *slog.Logger
	routes   map[string]*exchange.Endpoint // "METHOD /path"
	paths    map[string]bool
	handlers map[exchange.EndpointID]handler
	limits   *limiter
	faults   *faults

	mu   sync.RWMutex
	keys map[string]*Key

	logMu sync.Mutex
	reqs  []Logged
}

// Logged is one request as the server saw it, for tests that check what
// clients sent (for example that no window exceeded a budget).
type Logged struct {
	Time     time.Time
	Endpoint exchange.EndpointID
	IP       string
	UID      string
	Status   int
	Code     int
}

// newServer builds the protocol layer; handlers are added by the caller.
func newServer(o Options) (*Server, error) {
	if o.Clock == nil {
		return nil, errors.New("simserver: a clock is required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	for _, l := range o.Limits.Budgets {
		if l.Max <= 0 || l.Window <= 0 {
			return nil, errors.New("simserver: every budget needs a positive max and window")
		}
	}
	s := &Server{clock: o.Clock, log: o.Logger, routes: map[string]*exchange.Endpoint{}, paths: map[string]bool{},
		handlers: map[exchange.EndpointID]handler{}, limits: newLimiter(o.Limits, o.Clock), faults: newFaults(o.Faults),
		keys: map[string]*Key{}}
	for _, e := range exchange.Endpoints() {
		e := e
		s.routes[e.Method+" "+e.Path] = &e
		s.paths[e.Path] = true
		if e.ID == exchange.EpAddSTPGroupUID {
			// The live service accepts GET as well (facts file).
			s.routes["GET "+e.Path] = &e
		}
	}
	for _, k := range o.Keys {
		if err := s.AddKey(k); err != nil {
			return nil, err
		}
	}
	s.handlers[exchange.EpPing] = func(*request) (any, *apiError) { return struct{}{}, nil }
	s.handlers[exchange.EpTime] = func(r *request) (any, *apiError) {
		return map[string]int64{"serverTime": r.now.UnixMilli()}, nil
	}
	return s, nil
}

// AddKey registers an API key.
func (s *Server) AddKey(k Key) error {
	if k.APIKey == "" || k.Secret == "" || k.UID == "" {
		return errors.New("simserver: a key needs APIKey, Secret and UID")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kk := k
	s.keys[k.APIKey] = &kk
	return nil
}

// RemoveKey deletes an API key.
func (s *Server) RemoveKey(apiKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.keys, apiKey)
}

func (s *Server) key(apiKey string) *Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.keys[apiKey]
}

// SetFaults replaces the fault configuration.
func (s *Server) SetFaults(f Faults) { s.faults.set(f) }

// Requests returns the log of requests served so far.
func (s *Server) Requests() []Logged {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]Logged(nil), s.reqs...)
}

// now is the server clock with the injected skew.
func (s *Server) now() time.Time { return s.clock.Now().Add(s.faults.clockOffset()) }

// ServeHTTP implements http.Handler. It never panics on any request: a
// panic in a handler is answered as a 500 and logged.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ip := clientIP(r)
	var logged Logged
	logged.IP, logged.Time = ip, s.now()
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p) // a deliberately dropped connection
			}
			s.log.Error("handler panic", slog.Any("panic", p), slog.String("path", r.URL.Path))
			writeError(w, &apiError{status: 500, code: exchange.CodeInternalError, msg: "internal error"})
			logged.Status, logged.Code = 500, exchange.CodeInternalError
		}
		s.logMu.Lock()
		s.reqs = append(s.reqs, logged)
		s.logMu.Unlock()
	}()
	status, code := s.serve(w, r, ip, &logged)
	logged.Status, logged.Code = status, code
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, ip string, logged *Logged) (int, int) {
	if e := s.limits.banned(ip); e != nil {
		return writeError(w, e)
	}
	ep, ok := s.routes[r.Method+" "+r.URL.Path]
	if !ok {
		e := &apiError{status: 404, code: exchange.CodeUnsupportedOperation, msg: "no such endpoint: " + exchange.Clip(r.URL.Path)}
		if s.paths[r.URL.Path] {
			e = &apiError{status: 405, code: exchange.CodeUnsupportedOperation, msg: "method " + exchange.Clip(r.Method) + " not allowed on " + r.URL.Path}
		}
		return writeError(w, e)
	}
	logged.Endpoint = ep.ID
	now := logged.Time
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return writeError(w, badParam(exchange.CodeParameterError, "reading body: %v", err))
	}
	if len(body) > maxBody {
		return writeError(w, &apiError{status: 413, code: exchange.CodeParameterError, msg: "body larger than 1 MiB"})
	}
	if cerr := checkContentType(r.Header.Get("Content-Type"), body); cerr != nil {
		return writeError(w, cerr)
	}
	p, perr := parseParams(r.URL.RawQuery, body)
	if perr != nil {
		return writeError(w, perr)
	}
	req := &request{ep: ep, p: p, ip: ip, now: now}
	if ep.Security == exchange.Signed {
		k, aerr := s.authenticate(ep, r.Header.Get(exchange.DefaultKeyHeader), ip, p, now)
		if aerr != nil {
			if lerr := s.limits.failedAuth(ep, ip); lerr != nil {
				return writeError(w, lerr)
			}
			return writeError(w, aerr)
		}
		req.key = k
		logged.UID = k.UID
	}
	pl := s.faults.plan(ep.ID, now)
	if pl.storm {
		return writeError(w, &apiError{status: 429, code: exchange.CodeTooManyRequests, msg: "too many requests", retryAfter: time.Second})
	}
	if lerr := s.limits.admit(ep, ip, logged.UID); lerr != nil {
		return writeError(w, lerr)
	}
	if pl.latency > 0 {
		select {
		case <-time.After(pl.latency):
		case <-r.Context().Done():
			return 499, 0
		}
	}
	if pl.before5XX {
		return writeError(w, &apiError{status: 503, code: exchange.CodeServiceUnavailable, msg: "service not available, retry"})
	}
	h := s.handlers[ep.ID]
	if h == nil {
		return writeError(w, &apiError{status: 500, code: exchange.CodeInternalError, msg: "no handler for " + ep.Name})
	}
	out, herr := h(req)
	switch {
	case pl.dropAfter:
		dropConnection(w)
		return 0, 0
	case pl.after5XX:
		return writeError(w, &apiError{status: 503, code: exchange.CodeServiceUnavailable, msg: "service not available, retry"})
	case herr != nil:
		return writeError(w, herr)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return writeError(w, &apiError{status: 500, code: exchange.CodeInternalError, msg: err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	return http.StatusOK, 0
}

// dropConnection closes the connection without a reply.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

func writeError(w http.ResponseWriter, e *apiError) (int, int) {
	if e.status == 429 || e.status == 418 {
		w.Header().Set("Retry-After", retryAfterHeader(e.retryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	b, _ := json.Marshal(struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
	}{e.code, e.msg})
	w.Write(b)
	return e.status, e.code
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
