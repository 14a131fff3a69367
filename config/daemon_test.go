package config

import (
	"strings"
	"testing"
	"time"
)

// TestDaemonSection checks the daemon section's defaults, overrides (file
// and environment) and refusals, each naming its field.
func TestDaemonSection(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, yaml string
		env        []string
		want       Daemon
		err        string
	}{
		{name: "defaults", want: Daemon{UnknownOrders: UnknownAdopt, ShutdownTimeout: 10 * time.Second, ClockSync: 10 * time.Minute}},
		{name: "file", yaml: "daemon: {unknown_orders: cancel, cancel_on_shutdown: true, shutdown_timeout: 30s, clock_sync: 1m}\n",
			want: Daemon{UnknownOrders: UnknownCancel, CancelOnShutdown: true, ShutdownTimeout: 30 * time.Second, ClockSync: time.Minute}},
		{name: "environment", env: []string{"SPOTBOT_DAEMON__UNKNOWN_ORDERS=cancel", "SPOTBOT_DAEMON__CANCEL_ON_SHUTDOWN=true"},
			want: Daemon{UnknownOrders: UnknownCancel, CancelOnShutdown: true, ShutdownTimeout: 10 * time.Second, ClockSync: 10 * time.Minute}},
		{name: "unknown option", yaml: "daemon: {unknown_orders: keep}\n", err: `daemon.unknown_orders: "keep" must be adopt or cancel`},
		{name: "zero timeout", yaml: "daemon: {shutdown_timeout: 0s}\n", err: "daemon.shutdown_timeout: 0s must be positive"},
		{name: "negative sync", yaml: "daemon: {clock_sync: -1m}\n", err: "daemon.clock_sync: -1m0s must be positive"},
		{name: "zero order poll", yaml: "poll: {orders: 0s}\n", err: "poll.orders: 0s must be positive"},
		{name: "negative kline delay", yaml: "poll: {kline_delay: -2s}\n", err: "poll.kline_delay: -2s must not be negative"},
		{name: "misspelt key", yaml: "daemon: {cancel_on_shutdwn: true}\n", err: "cancel_on_shutdwn"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load([]byte(goodDaemon+tt.yaml), tt.env, nil, testRegistry())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v; want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Daemon != tt.want {
				t.Fatalf("daemon %+v; want %+v", c.Daemon, tt.want)
			}
		})
	}
}
