// Package netlimit bounds what one HTTP listener grants its clients: the
// time to send a request's headers and body, to take the reply, and to sit
// idle between requests, and how many connections are open at once. Every
// listener spotbot opens uses it: the API and admin listeners of
// `bot sim-server` and the bot's observability listener.
//
// The connection bound is a small listener of its own rather than
// golang.org/x/net/netutil.LimitListener: LimitListener stops accepting at
// the bound, so further clients wait unseen in the kernel's backlog (for as
// long as the held connections last, and their connect succeeded, so they
// cannot tell); this listener accepts and closes them at once, so a client
// over the bound learns it immediately and the refusals are counted. It
// also spares a module dependency for thirty lines.
package netlimit

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Limits are one listener's bounds. A zero field takes its default.
type Limits struct {
	// ReadHeaderTimeout bounds the time to send the request line and
	// headers (default 5 s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the time to send the whole request, body
	// included: a stalled body is cut off (default 30 s).
	ReadTimeout time.Duration
	// WriteTimeout bounds the time from the end of the request headers to
	// the end of the reply (default 60 s).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends no next
	// request (default 60 s).
	IdleTimeout time.Duration
	// MaxConns bounds the connections open at once; one more is closed as
	// soon as it is accepted (default 256).
	MaxConns int
}

// Default returns the defaults: 5 s for headers, 30 s for a request, 60 s
// for a reply, 60 s idle, 256 connections.
func Default() Limits { return Limits{}.withDefaults() }

func (l Limits) withDefaults() Limits {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&l.ReadHeaderTimeout, 5*time.Second)
	def(&l.ReadTimeout, 30*time.Second)
	def(&l.WriteTimeout, 60*time.Second)
	def(&l.IdleTimeout, 60*time.Second)
	if l.MaxConns <= 0 {
		l.MaxConns = 256
	}
	return l
}

// Server returns an http.Server serving h with l's timeouts.
func (l Limits) Server(h http.Handler) *http.Server {
	l = l.withDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: l.ReadHeaderTimeout, ReadTimeout: l.ReadTimeout,
		WriteTimeout: l.WriteTimeout, IdleTimeout: l.IdleTimeout}
}

// Listener returns ln bounded to l.MaxConns open connections.
func (l Limits) Listener(ln net.Listener) *Listener {
	l = l.withDefaults()
	return &Listener{Listener: ln, slots: make(chan struct{}, l.MaxConns)}
}

// Listener is a net.Listener that keeps at most a fixed number of accepted
// connections open; a connection beyond that is closed at once.
type Listener struct {
	net.Listener
	slots   chan struct{}
	refused atomic.Int64
}

// Accept returns the next connection within the bound, closing those over
// it.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &conn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			l.refused.Add(1)
			c.Close()
		}
	}
}

// Refused is how many connections were closed for being over the bound.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Open is how many accepted connections are open.
func (l *Listener) Open() int { return len(l.slots) }

// conn frees its slot once, on its first Close.
type conn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
