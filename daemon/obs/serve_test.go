package obs

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/spotbot/spotbot/netlimit"
	"github.com/spotbot/spotbot/netlimit/netlimittest"
)

func TestListenDefaultsToLoopback(t *testing.T) {
	t.Parallel()
	ln, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		t.Errorf("bound %s, want loopback", ip)
	}
	if _, err := Listen("9090"); err == nil || err.Error() != `http.listen: "9090": address 9090: missing port in address` {
		t.Errorf("err %v", err)
	}
}

func TestServeStopsWithContext(t *testing.T) {
	t.Parallel()
	h, err := New(Options{Status: fixture})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, ln, h) }()
	code, _, body := get(t, "http://"+ln.Addr().String()+"/healthz")
	if code != http.StatusOK || body != "ok\n" {
		t.Fatalf("%d %q", code, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve returned %v after its context ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop")
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("still listening after shutdown")
	}
}

func TestServeReportsListenErrors(t *testing.T) {
	t.Parallel()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = Serve(t.Context(), ln.Addr().String(), http.NotFoundHandler())
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "listen" {
		t.Errorf("err %v, want a listen error", err)
	}
}

// The observability listener closes stalled and idle clients and bounds
// its connections (netlimittest); before, it had only a header and a write
// timeout: a stalled body or an idle keep-alive connection stayed open and
// any number of them could be held.
func TestListenerBounds(t *testing.T) {
	t.Parallel()
	h, err := New(Options{Status: fixture})
	if err != nil {
		t.Fatal(err)
	}
	netlimittest.Run(t, func(t *testing.T, lim netlimit.Limits) string {
		ln, err := Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- serveLimited(ctx, ln, h, lim) }()
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
		return ln.Addr().String()
	}, "/healthz")
}
