package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
)

// simAdminTokenEnv names the variable holding the admin API's token.
const simAdminTokenEnv = "SPOTBOT_SIM_ADMIN_TOKEN"

// newSimServerCmd is `bot sim-server`: it runs until ctx ends (SIGINT or
// SIGTERM), then shuts the listeners down and returns nil.
func newSimServerCmd(prog string, d deps) *cobra.Command {
	var o simServerFlags
	c := &cobra.Command{
		Use:   "sim-server",
		Short: "Serve the exchange interface over the simulated exchange",
		Long: `sim-server serves the exchange's REST interface over the simulated exchange,
with the symbols, balances and API keys of the config (the embedded
configs/sim.yaml by default), replaying klines at the configured speed.
--admin-listen adds the control API (credit, feed klines, move the clock,
faults) on its own listener; with $` + simAdminTokenEnv + ` set it requires that
bearer token.`,
		Example: "  export SPOTBOT_SIM_SECRET=any-secret-of-32-characters-or-more\n" +
			"  " + prog + " sim-server --config configs/sim.yaml --listen 127.0.0.1:8080 --admin-listen 127.0.0.1:8081",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runSimServer(c.Context(), o, c.OutOrStdout(), d.environ())
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "address of the exchange API")
	fs.StringVar(&o.config, "config", "", "sim config file (default: the embedded configs/sim.yaml)")
	fs.StringVar(&o.admin, "admin-listen", "", "address of the admin API (off when empty)")
	fs.Float64Var(&o.speed, "speed", -1, "replay speed, overriding replay.speed (0: every bar at once)")
	return c
}

// simServerFlags are the flags of `bot sim-server`.
type simServerFlags struct {
	listen, config, admin string
	speed                 float64
}

// runSimServer is `bot sim-server`.
func runSimServer(ctx context.Context, o simServerFlags, stdout io.Writer, environ []string) error {
	var text []byte
	var err error
	if o.config == "" {
		text, err = configs.FS.ReadFile("sim.yaml")
	} else {
		text, err = os.ReadFile(o.config)
	}
	if err != nil {
		return fmt.Errorf("sim-server: %w", err)
	}
	cfg, err := parseSimConfig(text)
	if err != nil {
		return err
	}
	if o.speed >= 0 {
		cfg.Replay.Speed = o.speed
	}
	run, err := buildSimServer(cfg, environ)
	if err != nil {
		return err
	}
	return run.serve(ctx, o.listen, o.admin, environ, stdout)
}

// simRun is a configured server, ready to listen.
type simRun struct {
	x        *sim.Exchange
	s        *simserver.Server
	replay   simserver.ReplayOptions
	accounts []string // start-up lines describing the keys
	source   string
}

func buildSimServer(cfg *simConfig, environ []string) (*simRun, error) {
	so, err := cfg.simOptions()
	if err != nil {
		return nil, err
	}
	symbols := make([]string, len(so.Symbols))
	for i, s := range so.Symbols {
		symbols[i] = s.Symbol
	}
	bars, iv, err := cfg.Replay.bars(symbols)
	if err != nil {
		return nil, err
	}
	if cfg.Replay.Speed < 0 {
		return nil, fmt.Errorf("replay.speed: %g is negative", cfg.Replay.Speed)
	}
	switch {
	case cfg.Start != "":
		if so.Start, err = time.Parse(time.RFC3339, cfg.Start); err != nil {
			return nil, fmt.Errorf("start: %q is not an RFC 3339 time", cfg.Start)
		}
	default:
		so.Start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, ks := range bars {
			if len(ks) > 0 && ks[0].OpenTime.Before(so.Start) {
				so.Start = ks[0].OpenTime
			}
		}
	}
	x, err := sim.New(so)
	if err != nil {
		return nil, err
	}
	run := &simRun{x: x, replay: simserver.ReplayOptions{Bars: bars, Interval: iv, Speed: cfg.Replay.Speed, Clock: exchange.SystemClock{}}}
	var keys []simserver.Key
	for i, a := range cfg.Accounts {
		uid := x.MasterUID()
		if i > 0 {
			if a.Name == "" {
				return nil, fmt.Errorf("accounts[%d].name: required", i)
			}
			uid = x.CreateAccount(a.Name)
		}
		assets := make([]string, 0, len(a.Balances))
		for asset := range a.Balances {
			assets = append(assets, asset)
		}
		sort.Strings(assets)
		for _, asset := range assets {
			if err := x.Credit(uid, asset, a.Balances[asset]); err != nil {
				return nil, fmt.Errorf("accounts[%d].balances.%s: %w", i, asset, err)
			}
		}
		if a.APIKey == "" {
			continue // an account without API access
		}
		secret, from, err := a.secret(i, environ)
		if err != nil {
			return nil, err
		}
		perms, err := a.permissions(i)
		if err != nil {
			return nil, err
		}
		keys = append(keys, simserver.Key{APIKey: a.APIKey, Secret: secret, UID: uid, Main: i == 0, Permissions: perms, IPs: a.IPs})
		run.accounts = append(run.accounts, fmt.Sprintf("account %s (uid %s): API key %s, secret from %s", a.Name, uid, a.APIKey, from))
	}
	if cfg.Replay.Warmup < 0 {
		return nil, fmt.Errorf("replay.warmup: %d is negative", cfg.Replay.Warmup)
	}
	warm, rest := simserver.SplitWarmup(bars, iv, cfg.Replay.Warmup)
	if cfg.Replay.Speed == 0 {
		warm, rest = bars, nil
	}
	// The warm-up (every bar at speed 0) is fed before serving, so clients
	// never see a market half fed; the rest is replayed at the speed.
	if err := simserver.FeedAll(x, warm, iv); err != nil {
		return nil, err
	}
	run.replay.Bars = rest
	limits := cfg.Limits == nil || *cfg.Limits
	if run.s, err = simserver.New(x, simserver.Options{Keys: keys, Limits: simserver.Limits{Off: !limits}}); err != nil {
		return nil, err
	}
	count := func(m map[string][]exchange.Kline) (n int) {
		for _, ks := range m {
			n += len(ks)
		}
		return n
	}
	switch n := count(bars); {
	case n == 0:
		run.source = "no klines to replay; the clock runs in real time"
	default:
		run.source = fmt.Sprintf("replaying %d %s bars of %s (%s) from %s at speed %g", n, iv, strings.Join(symbols, ", "),
			cfg.Replay.Source, so.Start.UTC().Format(time.RFC3339), cfg.Replay.Speed)
		if w := count(warm); w > 0 && cfg.Replay.Speed > 0 {
			run.source += fmt.Sprintf(", the first %d at once", w)
		}
	}
	return run, nil
}

// serve listens, replays and waits for ctx to end.
func (run *simRun) serve(ctx context.Context, listen, adminAddr string, environ []string, stdout io.Writer) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("sim-server: %w", err)
	}
	servers := []*http.Server{{Handler: run.s, ReadHeaderTimeout: 10 * time.Second}}
	listeners := []net.Listener{ln}
	fmt.Fprintf(stdout, "sim-server: listening on http://%s\n", ln.Addr())
	for _, a := range run.accounts {
		fmt.Fprintf(stdout, "sim-server: %s\n", a)
	}
	if adminAddr != "" {
		token := ""
		for _, kv := range environ {
			if name, val, _ := strings.Cut(kv, "="); name == simAdminTokenEnv {
				token = val
			}
		}
		aln, err := net.Listen("tcp", adminAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("sim-server: admin: %w", err)
		}
		if token == "" && !isLoopback(aln.Addr()) {
			ln.Close()
			aln.Close()
			return fmt.Errorf("sim-server: the admin API on %s is not a loopback address: set %s", aln.Addr(), simAdminTokenEnv)
		}
		servers = append(servers, &http.Server{Handler: run.s.AdminHandler(token), ReadHeaderTimeout: 10 * time.Second})
		listeners = append(listeners, aln)
		how := "no token: loopback only"
		if token != "" {
			how = "bearer token from $" + simAdminTokenEnv
		}
		fmt.Fprintf(stdout, "sim-server: admin API on http://%s (%s)\n", aln.Addr(), how)
	}
	fmt.Fprintf(stdout, "sim-server: %s\n", run.source)
	errc := make(chan error, len(servers)+1)
	for i, hs := range servers {
		go func() {
			if err := hs.Serve(listeners[i]); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	rctx, stopReplay := context.WithCancel(ctx)
	defer stopReplay()
	go func() {
		if err := simserver.Replay(rctx, run.x, run.replay); !errors.Is(err, context.Canceled) {
			errc <- err
		}
	}()
	var failed error
	select {
	case <-ctx.Done():
	case failed = <-errc:
	}
	stopReplay()
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, hs := range servers {
		if err := hs.Shutdown(shut); err != nil && failed == nil {
			failed = err
		}
	}
	if failed != nil {
		return fmt.Errorf("sim-server: %w", failed)
	}
	fmt.Fprintln(stdout, "sim-server: stopped")
	return nil
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
