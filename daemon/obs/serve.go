package obs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spotbot/spotbot/netlimit"
)

// Listen opens the listener's socket. An address without a host
// (":9090") binds the loopback interface only: exposing the bot's status
// beyond the machine must be asked for by naming a host (0.0.0.0:9090).
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("http.listen: %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("http.listen: %w", err)
	}
	return ln, nil
}

// Serve listens on addr (see Listen) and serves h until ctx ends, then
// shuts down, letting requests in flight finish for up to five seconds.
// It returns nil after a shutdown caused by ctx.
func Serve(ctx context.Context, addr string, h http.Handler) error {
	ln, err := Listen(addr)
	if err != nil {
		return err
	}
	return ServeListener(ctx, ln, h)
}

// ServeListener is Serve on an open listener, which it closes. The
// listener is bounded (netlimit.Default): a stalled request or an idle
// keep-alive connection is closed, and connections beyond the bound are
// refused at once, so a stuck or hostile scraper cannot hold the bot's
// sockets.
func ServeListener(ctx context.Context, ln net.Listener, h http.Handler) error {
	return serveLimited(ctx, ln, h, netlimit.Default())
}

func serveLimited(ctx context.Context, ln net.Listener, h http.Handler, lim netlimit.Limits) error {
	srv := lim.Server(h)
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lim.Listener(ln)) }()
	select {
	case err := <-done:
		return fmt.Errorf("obs: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("obs: shutdown: %w", err)
	}
	return nil
}
