// Package natstest starts an embedded NATS server with JetStream for
// tests and benchmarks of distributed sweeps.
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server starts a NATS server with JetStream on 127.0.0.1 at a free port
// (the server's RANDOM_PORT), storing in a temporary directory, and stops
// it when the test ends. It returns the server's nats:// URL.
func Server(tb testing.TB) string {
	tb.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: tb.TempDir(), NoLog: true, NoSigs: true, HTTPPort: 0})
	if err != nil {
		tb.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		tb.Fatal("natstest: the server did not start")
	}
	tb.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s.ClientURL()
}
