package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/netlimit"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
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
		Long: `sim-server serves the exchange's REST interface over the simulated exchange
a configuration with mode: sim-server describes (the embedded
configs/sim.yaml by default): the symbols, accounts and API keys of its
server section, the fill model of its sim section (as in backtests), and
the klines of its data section, replayed at data.speed. SPOTBOT_
environment variables override it as for every command.
--admin-listen adds the control API (credit, feed klines, move the clock,
faults) on its own listener; with $` + simAdminTokenEnv + ` set it requires that
bearer token.`,
		Example: "  export SPOTBOT_SIM_SECRET=any-secret-of-32-characters-or-more\n" +
			"  " + prog + " sim-server --config configs/sim.yaml --listen 127.0.0.1:8080 --admin-listen 127.0.0.1:8081",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runSimServer(c.Context(), d.reg, o, c.OutOrStdout(), d.environ())
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "address of the exchange API")
	fs.StringVar(&o.config, "config", "", "configuration file with mode: sim-server (default: the embedded configs/sim.yaml)")
	fs.StringVar(&o.admin, "admin-listen", "", "address of the admin API (off when empty)")
	fs.Float64Var(&o.speed, "speed", -1, "replay speed, overriding data.speed (0: every bar at once)")
	return c
}

// simServerFlags are the flags of `bot sim-server`.
type simServerFlags struct {
	listen, config, admin string
	speed                 float64
}

// runSimServer is `bot sim-server`.
func runSimServer(ctx context.Context, reg *strategy.Registry, o simServerFlags, stdout io.Writer, environ []string) error {
	overrides := map[string]any{}
	if o.speed >= 0 {
		overrides["data.speed"] = o.speed
	}
	var cfg *config.Config
	var err error
	if o.config == "" {
		text, rerr := configs.FS.ReadFile("sim.yaml")
		if rerr != nil {
			return fmt.Errorf("sim-server: %w", rerr)
		}
		cfg, err = loadConfigText(reg, simServerCmd, "configs/sim.yaml (embedded)", text, environ, overrides)
	} else {
		cfg, err = loadConfig(reg, simServerCmd, o.config, environ, overrides)
	}
	if err != nil {
		return err
	}
	run, err := buildSimServer(ctx, cfg, environ)
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
	// limits bound the API and admin listeners (netlimit.Default unless a
	// test sets shorter ones).
	limits netlimit.Limits
}

// buildSimServer builds the simulated exchange of a sim-server
// configuration through the session package, as backtests and the daemon
// build theirs: session.FillFromConfig reads every sim.* option and
// session.NewSim builds the exchange and funds the master account. The
// other accounts are created and funded here.
func buildSimServer(ctx context.Context, cfg *config.Config, environ []string) (*simRun, error) {
	fill, ferr := session.FillFromConfig(cfg.Sim)
	parts, perr := simServerPartsOf(cfg, environ)
	if err := errors.Join(ferr, perr); err != nil {
		return nil, err
	}
	srv, speed := cfg.Server, cfg.Data.Speed
	start := startOf(srv, parts.bars)
	x, err := session.NewSim(ctx, session.Venue{Fill: fill, Start: start, Rules: parts.rules,
		Balances: srv.Accounts[0].Balances, Retention: session.KeepAll})
	if err != nil {
		return nil, err
	}
	run := &simRun{x: x, replay: simserver.ReplayOptions{Interval: parts.iv, Speed: speed, Clock: exchange.SystemClock{}}, limits: netlimit.Default()}
	var keys []simserver.Key
	for i, a := range srv.Accounts {
		uid := x.MasterUID()
		if i > 0 {
			uid = x.CreateAccount(a.Name)
			for _, asset := range slices.Sorted(maps.Keys(a.Balances)) {
				if err := x.Credit(uid, asset, a.Balances[asset]); err != nil {
					return nil, fmt.Errorf("server.accounts[%d].balances.%s: %w", i, asset, err)
				}
			}
			if fill.TokenFees {
				if _, err := x.As(uid).SetTokDeduct(ctx, true); err != nil {
					return nil, fmt.Errorf("sim.token_fees: server.accounts[%d]: %w", i, err)
				}
			}
		}
		if a.APIKey == "" {
			continue // an account without API access
		}
		sec := parts.secrets[i]
		keys = append(keys, simserver.Key{APIKey: a.APIKey, Secret: sec.secret, UID: uid, Main: i == 0, Permissions: a.KeyPermissions(), IPs: a.IPs})
		run.accounts = append(run.accounts, fmt.Sprintf("account %s (uid %s): API key %s, secret from %s", a.Name, uid, a.APIKey, sec.from))
	}
	warm, rest := simserver.SplitWarmup(parts.bars, parts.iv, srv.Warmup)
	if speed == 0 {
		warm, rest = parts.bars, nil
	}
	// The warm-up (every bar at speed 0) is fed before serving, so clients
	// never see a market half fed; the rest is replayed at the speed.
	if err := simserver.FeedAll(x, warm, parts.iv); err != nil {
		return nil, err
	}
	run.replay.Bars = rest
	if run.s, err = simserver.New(x, simserver.Options{Keys: keys, Limits: simserver.Limits{Off: !srv.Limits}}); err != nil {
		return nil, err
	}
	count := func(m map[string][]exchange.Kline) (n int) {
		for _, ks := range m {
			n += len(ks)
		}
		return n
	}
	switch n := count(parts.bars); {
	case n == 0:
		run.source = "no klines to replay; the clock runs in real time"
	default:
		symbols := make([]string, len(parts.rules))
		for i, r := range parts.rules {
			symbols[i] = r.Symbol
		}
		run.source = fmt.Sprintf("replaying %d %s bars of %s (%s) from %s at speed %g", n, parts.iv, strings.Join(symbols, ", "),
			cfg.Data.Source, start.UTC().Format(time.RFC3339), speed)
		if w := count(warm); w > 0 && speed > 0 {
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
	// Both listeners are bounded: a stalled request or an idle keep-alive
	// connection is closed and surplus connections are refused at once, so
	// no client can hold the server's sockets.
	servers := []*http.Server{run.limits.Server(run.s)}
	listeners := []net.Listener{run.limits.Listener(ln)}
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
		servers = append(servers, run.limits.Server(run.s.AdminHandler(token)))
		listeners = append(listeners, run.limits.Listener(aln))
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
