package netlimit_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"

	"github.com/spotbot/spotbot/netlimit"
	"github.com/spotbot/spotbot/netlimit/netlimittest"
)

func TestSuiteOnAPlainHandler(t *testing.T) {
	t.Parallel()
	netlimittest.Run(t, func(t *testing.T, lim netlimit.Limits) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := lim.Server(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
		done := make(chan error, 1)
		go func() { done <- srv.Serve(lim.Listener(ln)) }()
		t.Cleanup(func() {
			srv.Shutdown(context.Background())
			if err := <-done; !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("serve: %v", err)
			}
		})
		return ln.Addr().String()
	}, "/")
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	d := netlimit.Default()
	if d.ReadHeaderTimeout.String() != "5s" || d.ReadTimeout.String() != "30s" || d.WriteTimeout.String() != "1m0s" || d.IdleTimeout.String() != "1m0s" || d.MaxConns != 256 {
		t.Errorf("defaults %+v", d)
	}
	s := netlimit.Limits{ReadTimeout: 7}.Server(nil)
	if s.ReadTimeout != 7 || s.ReadHeaderTimeout.String() != "5s" || s.IdleTimeout.String() != "1m0s" {
		t.Errorf("server %+v", s)
	}
}
