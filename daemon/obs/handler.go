// Package obs is the bot's observability listener: liveness (/healthz),
// readiness (/readyz), Prometheus metrics (/metrics) and a JSON snapshot of
// the bot (/status), all read from a daemon.Status taken afresh on each
// request, so nothing is counted twice. It holds no package-level state:
// each handler has its own metrics registry, so many may run in one
// process (tests, several bots). docs/observability.md lists the metrics.
package obs

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/spotbot/spotbot/daemon"
)

// Options configure a handler. Status is required.
type Options struct {
	// Status returns a fresh snapshot of the bot; (*daemon.Bot).Status.
	Status func() daemon.Status
	// Checks are the readiness checks /readyz runs, in order: typically
	// ExchangeReachable, ClockWithin and StoreWritable.
	Checks []Checker
	// CheckTimeout bounds each readiness check (default 5s).
	CheckTimeout time.Duration
	// Quote is the asset equity and strategy PnL are measured in
	// (default USDT).
	Quote string
	// Runtime adds the Go runtime and process collectors (memory,
	// goroutines, open files, RSS) to /metrics.
	Runtime bool
	// Control, with ControlToken, serves the control API: POST
	// /control/{instance}/{action}, authorised by "Authorization: Bearer
	// <ControlToken>". Without a token the routes are not served.
	Control      Controller
	ControlToken string
	// ControlTimeout bounds how long a control request waits for the bot's
	// loop to apply it (default 10s).
	ControlTimeout time.Duration
	// Build is what spotbot_build_info reports (default: ReadBuildInfo).
	Build BuildInfo
}

// handler serves the four endpoints.
type handler struct {
	opts Options
	mux  *http.ServeMux
}

// New returns the listener's handler.
func New(opts Options) (http.Handler, error) {
	if opts.Status == nil {
		return nil, errors.New("obs: Options.Status is required")
	}
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = 5 * time.Second
	}
	if opts.Quote == "" {
		opts.Quote = "USDT"
	}
	for i, c := range opts.Checks {
		if c.Name == "" || c.Check == nil {
			return nil, errors.New("obs: every readiness check needs a name and a function")
		}
		for _, d := range opts.Checks[:i] {
			if d.Name == c.Name {
				return nil, errors.New("obs: readiness check " + c.Name + " listed twice")
			}
		}
	}
	if opts.Build == (BuildInfo{}) {
		opts.Build = ReadBuildInfo()
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(newCollector(opts.Status, opts.Quote, opts.Build)); err != nil {
		return nil, err
	}
	if opts.Runtime {
		if err := reg.Register(collectors.NewGoCollector()); err != nil {
			return nil, err
		}
		if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
			return nil, err
		}
	}
	h := &handler{opts: opts, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /healthz", h.healthz)
	h.mux.HandleFunc("GET /readyz", h.readyz)
	h.mux.HandleFunc("GET /status", h.status)
	if err := h.controlRoutes(); err != nil {
		return nil, err
	}
	// A failed scrape is reported as HTTP 500 with the error, never as a
	// partial page a dashboard would read as zeros.
	h.mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	return h, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// healthz answers 200 while the process serves requests: a hung event
// loop does not block it, which is what readiness is for.
func (h *handler) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

func (h *handler) status(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, newStatusJSON(h.opts.Status()))
}

// readiness is the /readyz body.
type readiness struct {
	Ready  bool     `json:"ready"`
	Failed []string `json:"failed"`
	Checks []Check  `json:"checks"`
}

func (h *handler) readyz(w http.ResponseWriter, r *http.Request) {
	res := readiness{Ready: true, Failed: []string{}, Checks: h.runChecks(r.Context())}
	for _, c := range res.Checks {
		if !c.OK {
			res.Ready = false
			res.Failed = append(res.Failed, c.Name)
		}
	}
	code := http.StatusOK
	if !res.Ready {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, res)
}

func (h *handler) runChecks(ctx context.Context) []Check {
	out := make([]Check, 0, len(h.opts.Checks))
	for _, c := range h.opts.Checks {
		cctx, cancel := context.WithTimeout(ctx, h.opts.CheckTimeout)
		err := c.Check(cctx)
		cancel()
		ck := Check{Name: c.Name, OK: err == nil}
		if err != nil {
			ck.Error = err.Error()
		}
		out = append(out, ck)
	}
	return out
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "obs: encoding: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}
