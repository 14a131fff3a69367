package simserver

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// AdminHandler serves the control API over HTTP, for operating a running
// `bot sim-server`: it is never part of the exchange's interface and is
// meant for its own listener (on localhost). With a non-empty token every
// request must carry "Authorization: Bearer <token>". Requests and replies
// are JSON:
//
//	GET  /admin/state          {"time":ms,"masterUid":"..","prices":{"BTCUSDT":"20000"}}
//	POST /admin/credit         {"uid":"1000","asset":"USDT","amount":"100"}   (negative debits)
//	POST /admin/kline          {"symbol":"BTCUSDT","interval":"1m","kline":[openMs,"o","h","l","c","v",closeMs,"qv"]}
//	POST /admin/time           {"time":ms} or {"advanceMs":n}
//	POST /admin/symbol-status  {"symbol":"BTCUSDT","status":"2"}
//	POST /admin/account        {"name":"bot2"} → {"uid":".."}
//	POST /admin/faults         {"seed":1,"default":{..},"endpoints":{"newOrder":{"after5xx":1}},"storm429UntilMs":0,"clockOffsetMs":0}
//
// A fault is {"before5xx":p,"after5xx":p,"dropAfter":p,"latencyMs":n}.
// Errors answer 400 (or 401, 404, 405) with {"error":"..."}.
func (s *Server) AdminHandler(token string) http.Handler {
	mux := http.NewServeMux()
	post := func(path string, f func(body []byte) (any, error)) {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
			if err != nil {
				adminReply(w, 400, map[string]string{"error": err.Error()})
				return
			}
			out, err := f(b)
			if err != nil {
				adminReply(w, 400, map[string]string{"error": err.Error()})
				return
			}
			adminReply(w, 200, out)
		})
	}
	mux.HandleFunc("GET /admin/state", func(w http.ResponseWriter, r *http.Request) {
		prices := map[string]string{}
		for _, p := range s.x.TickerPrices() {
			if p.Price.Valid {
				prices[p.Symbol] = p.Price.Decimal.String()
			}
		}
		adminReply(w, 200, map[string]any{"time": s.x.Now().UnixMilli(), "masterUid": s.x.MasterUID(), "prices": prices})
	})
	post("/admin/credit", s.adminCredit)
	post("/admin/kline", s.adminKline)
	post("/admin/time", s.adminTime)
	post("/admin/symbol-status", s.adminSymbolStatus)
	post("/admin/account", s.adminAccount)
	post("/admin/faults", s.adminFaults)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+token)) != 1 {
			adminReply(w, 401, map[string]string{"error": "admin token required"})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func adminReply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// decodeStrict decodes a JSON object, refusing unknown fields so a typo is
// an error rather than a silent no-op.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	return nil
}

func (s *Server) adminCredit(b []byte) (any, error) {
	var req struct {
		UID    string          `json:"uid"`
		Asset  string          `json:"asset"`
		Amount decimal.Decimal `json:"amount"`
	}
	if err := decodeStrict(b, &req); err != nil {
		return nil, err
	}
	if req.UID == "" || req.Asset == "" {
		return nil, fmt.Errorf("credit needs uid and asset")
	}
	if err := s.x.Credit(req.UID, req.Asset, req.Amount); err != nil {
		return nil, err
	}
	return map[string]bool{"ok": true}, nil
}

func (s *Server) adminKline(b []byte) (any, error) {
	var req struct {
		Symbol   string            `json:"symbol"`
		Interval exchange.Interval `json:"interval"`
		Kline    *exchange.Kline   `json:"kline"`
	}
	if err := decodeStrict(b, &req); err != nil {
		return nil, err
	}
	if req.Kline == nil {
		return nil, fmt.Errorf("kline missing")
	}
	if !req.Interval.Valid() {
		return nil, fmt.Errorf("interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", req.Interval)
	}
	if err := s.x.FeedKline(req.Symbol, req.Interval, *req.Kline); err != nil {
		return nil, err
	}
	return map[string]int64{"time": s.x.Now().UnixMilli()}, nil
}

func (s *Server) adminTime(b []byte) (any, error) {
	var req struct {
		Time      int64 `json:"time"`
		AdvanceMs int64 `json:"advanceMs"`
	}
	if err := decodeStrict(b, &req); err != nil {
		return nil, err
	}
	switch {
	case req.Time > 0 && req.AdvanceMs == 0:
		s.x.SetTime(time.UnixMilli(req.Time))
	case req.AdvanceMs > 0 && req.Time == 0:
		s.x.Advance(time.Duration(req.AdvanceMs) * time.Millisecond)
	default:
		return nil, fmt.Errorf("send a positive time or advanceMs, one of them")
	}
	return map[string]int64{"time": s.x.Now().UnixMilli()}, nil
}

func (s *Server) adminSymbolStatus(b []byte) (any, error) {
	var req struct {
		Symbol string                `json:"symbol"`
		Status exchange.SymbolStatus `json:"status"`
	}
	if err := decodeStrict(b, &req); err != nil {
		return nil, err
	}
	switch req.Status {
	case exchange.SymbolOnline, exchange.SymbolPaused, exchange.SymbolOffline:
	default:
		return nil, fmt.Errorf("status %q is not 1, 2 or 3", req.Status)
	}
	if err := s.x.SetSymbolStatus(req.Symbol, req.Status); err != nil {
		return nil, err
	}
	return map[string]bool{"ok": true}, nil
}

func (s *Server) adminAccount(b []byte) (any, error) {
	var req struct {
		Name string `json:"name"`
	}
	if err := decodeStrict(b, &req); err != nil {
		return nil, err
	}
	if req.Name == "" {
		return nil, fmt.Errorf("account needs a name")
	}
	return map[string]string{"uid": s.x.CreateAccount(req.Name)}, nil
}

// faultWire is a Fault in the admin API.
type faultWire struct {
	Before5XX float64 `json:"before5xx"`
	After5XX  float64 `json:"after5xx"`
	DropAfter float64 `json:"dropAfter"`
	LatencyMs int64   `json:"latencyMs"`
}

func (f faultWire) fault() (Fault, error) {
	for _, p := range []float64{f.Before5XX, f.After5XX, f.DropAfter} {
		if p < 0 || p > 1 {
			return Fault{}, fmt.Errorf("probability %g outside 0..1", p)
		}
	}
	if f.LatencyMs < 0 {
		return Fault{}, fmt.Errorf("latencyMs %d is negative", f.LatencyMs)
	}
	return Fault{Before5XX: f.Before5XX, After5XX: f.After5XX, DropAfter: f.DropAfter, Latency: time.Duration(f.LatencyMs) * time.Millisecond}, nil
}

func (s *Server) adminFaults(b []byte) (any, error) {
	var req struct {
		Seed            uint64               `json:"seed"`
		Default         faultWire            `json:"default"`
		Endpoints       map[string]faultWire `json:"endpoints"`
		Storm429UntilMs int64                `json:"storm429UntilMs"`
		ClockOffsetMs   int64                `json:"clockOffsetMs"`
	}
	if err := decodeStrict(b, &req); err != nil {
		return nil, err
	}
	var f Faults
	var err error
	f.Seed = req.Seed
	if f.Default, err = req.Default.fault(); err != nil {
		return nil, fmt.Errorf("default: %w", err)
	}
	if len(req.Endpoints) > 0 {
		byName := map[string]exchange.EndpointID{}
		for _, e := range exchange.Endpoints() {
			byName[e.Name] = e.ID
		}
		f.ByEndpoint = map[exchange.EndpointID]Fault{}
		for name, fw := range req.Endpoints {
			id, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("endpoints: unknown endpoint %q (names of the endpoint table, such as newOrder)", name)
			}
			if f.ByEndpoint[id], err = fw.fault(); err != nil {
				return nil, fmt.Errorf("endpoints.%s: %w", name, err)
			}
		}
	}
	if req.Storm429UntilMs > 0 {
		f.Storm429Until = time.UnixMilli(req.Storm429UntilMs)
	}
	f.ClockOffset = time.Duration(req.ClockOffsetMs) * time.Millisecond
	s.SetFaults(f)
	return map[string]bool{"ok": true}, nil
}
