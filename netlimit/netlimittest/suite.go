// Package netlimittest is the conformance suite of a bounded listener
// (netlimit): run against every listener spotbot opens, with slow, stalled,
// idle and surplus clients, each bounded in time.
package netlimittest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/netlimit"
)

// Start serves the listener under test with lim on 127.0.0.1:0 until the
// test ends and returns its address.
type Start func(t *testing.T, lim netlimit.Limits) string

// Short is how long the suite's timeouts are; Slack is how much later than
// its timeout a connection may be closed on a loaded machine.
const (
	Short = 300 * time.Millisecond
	Slack = 2 * time.Second
	long  = 30 * time.Second
)

// Run checks that a server started by start closes a connection whose
// headers stall, whose body stalls, or that idles after a reply, each
// within its timeout, and closes at once a connection over the bound,
// serving again when a slot frees. get is a request line's path that
// answers GET (any status).
func Run(t *testing.T, start Start, get string) {
	t.Run("stalled headers", func(t *testing.T) {
		t.Parallel()
		addr := start(t, netlimit.Limits{ReadHeaderTimeout: Short, ReadTimeout: long, IdleTimeout: long, WriteTimeout: long})
		c := dial(t, addr)
		write(t, c, "GET "+get+" HTTP/1.1\r\nHost: x\r\nX-Slow:")
		closedWithin(t, c, time.Now(), Short)
	})
	t.Run("stalled body", func(t *testing.T) {
		t.Parallel()
		addr := start(t, netlimit.Limits{ReadHeaderTimeout: long, ReadTimeout: Short, IdleTimeout: long, WriteTimeout: long})
		c := dial(t, addr)
		write(t, c, "POST "+get+" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":")
		closedWithin(t, c, time.Now(), Short)
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		t.Parallel()
		addr := start(t, netlimit.Limits{ReadHeaderTimeout: long, ReadTimeout: long, IdleTimeout: Short, WriteTimeout: long})
		c := dial(t, addr)
		br := bufio.NewReader(c)
		write(t, c, "GET "+get+" HTTP/1.1\r\nHost: x\r\n\r\n")
		readReply(t, c, br)
		closedWithin(t, readerConn{c, br}, time.Now(), Short)
	})
	t.Run("connection bound", func(t *testing.T) {
		t.Parallel()
		const max = 3
		addr := start(t, netlimit.Limits{ReadHeaderTimeout: long, ReadTimeout: long, IdleTimeout: long, WriteTimeout: long, MaxConns: max})
		held := make([]net.Conn, max)
		for i := range held {
			held[i] = dial(t, addr)
			br := bufio.NewReader(held[i])
			write(t, held[i], "GET "+get+" HTTP/1.1\r\nHost: x\r\n\r\n")
			readReply(t, held[i], br)
		}
		// One over the bound is closed at once, without a reply.
		over := dial(t, addr)
		over.Write([]byte("GET " + get + " HTTP/1.1\r\nHost: x\r\n\r\n"))
		closedWithin(t, over, time.Now(), 0)
		// A freed slot serves again.
		held[0].Close()
		deadline := time.Now().Add(Slack)
		for {
			c := dial(t, addr)
			br := bufio.NewReader(c)
			c.Write([]byte("GET " + get + " HTTP/1.1\r\nHost: x\r\n\r\n"))
			c.SetReadDeadline(time.Now().Add(Slack))
			line, err := br.ReadString('\n')
			c.Close()
			if err == nil && strings.HasPrefix(line, "HTTP/1.1 ") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no connection served %v after a slot was freed", Slack)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, Slack)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func write(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := c.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// readReply reads one reply's status line, headers and body
// (Content-Length bodies only, which every server here sends).
func readReply(t *testing.T, c net.Conn, br *bufio.Reader) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(Slack))
	defer c.SetReadDeadline(time.Time{})
	status, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 ") {
		t.Fatalf("reply %q %v", status, err)
	}
	n := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reply headers: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			if _, err := fmtSscan(strings.TrimSpace(v), &n); err != nil {
				t.Fatalf("Content-Length %q", v)
			}
		}
	}
	if n < 0 {
		t.Fatalf("reply without Content-Length")
	}
	if _, err := io.CopyN(io.Discard, br, int64(n)); err != nil {
		t.Fatalf("reply body: %v", err)
	}
}

// readerConn reads through a buffered reader that may hold bytes already.
type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// closedWithin reads c until the server closes it and fails unless that
// happens no earlier than after (less 50 ms of clock granularity) and no
// later than after + Slack from start. Whatever reply came first is
// discarded.
func closedWithin(t *testing.T, c net.Conn, start time.Time, after time.Duration) {
	t.Helper()
	c.SetReadDeadline(start.Add(after + Slack))
	_, err := io.Copy(io.Discard, c)
	took := time.Since(start)
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded):
		t.Fatalf("still open after %v (timeout %v)", took.Round(time.Millisecond), after)
	case took < after-50*time.Millisecond:
		t.Fatalf("closed after %v, before its timeout %v", took.Round(time.Millisecond), after)
	}
	t.Logf("closed after %v (timeout %v)", took.Round(time.Millisecond), after)
}

func fmtSscan(s string, n *int) (int, error) {
	v, err := strconv.Atoi(s)
	*n = v
	return 1, err
}
