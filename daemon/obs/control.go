package obs

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/spotbot/spotbot/daemon"
)

// ControlTokenEnv is the environment variable holding the control API's
// bearer token; without it the control routes are not served.
const ControlTokenEnv = "SPOTBOT_CONTROL_TOKEN"

// minControlToken is the shortest token accepted: a guessable token on a
// listener that may be exposed would hand over the account.
const minControlToken = 16

// Controller applies an operator action: (*daemon.Bot).Control.
type Controller func(ctx context.Context, a daemon.Action) (daemon.ActionResult, error)

// controlReply is the body of every control answer.
type controlReply struct {
	Action   string   `json:"action,omitempty"`
	Instance string   `json:"instance,omitempty"`
	OK       bool     `json:"ok"`
	Details  string   `json:"details,omitempty"`
	Orders   []string `json:"orders,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// controlRoutes serves POST /control/{instance}/{action} when a controller
// and a token are set.
func (h *handler) controlRoutes() error {
	if h.opts.Control == nil || h.opts.ControlToken == "" {
		return nil
	}
	if len(h.opts.ControlToken) < minControlToken {
		return errors.New("obs: the control token must be at least 16 characters")
	}
	if h.opts.ControlTimeout <= 0 {
		h.opts.ControlTimeout = 10 * time.Second
	}
	h.mux.HandleFunc("POST /control/{instance}/{action}", h.control)
	return nil
}

func (h *handler) control(w http.ResponseWriter, r *http.Request) {
	if msg := h.authorize(r); msg != "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="spotbot"`)
		writeJSON(w, http.StatusUnauthorized, controlReply{Error: msg})
		return
	}
	q := r.URL.Query()
	a := daemon.Action{Name: r.PathValue("action"), Instance: r.PathValue("instance"), Symbol: q.Get("symbol"), Job: q.Get("job")}
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.ControlTimeout)
	defer cancel()
	res, err := h.opts.Control(ctx, a)
	rep := controlReply{Action: a.Name, Instance: a.Instance, OK: err == nil, Details: res.Details, Orders: res.Orders}
	code := http.StatusOK
	switch {
	case err == nil:
	case errors.Is(err, daemon.ErrUnknownAction), errors.Is(err, daemon.ErrUnknownInstance):
		code = http.StatusNotFound
	case errors.Is(err, context.DeadlineExceeded):
		code = http.StatusGatewayTimeout
	default:
		code = http.StatusConflict
	}
	if err != nil {
		rep.Error = err.Error()
	}
	writeJSON(w, code, rep)
}

// authorize returns why the request is refused, or "".
func (h *handler) authorize(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || tok == "" {
		return "missing bearer token"
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(h.opts.ControlToken)) != 1 {
		return "invalid bearer token"
	}
	return ""
}
