package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
)

// newRunCmd is `bot run`.
func newRunCmd(prog string, d deps) *cobra.Command {
	var cfgPath string
	var speed float64
	c := &cobra.Command{
		Use:   "run --config FILE",
		Short: "Run the trading bot (live, paper or paper-replay)",
		Long: `run runs the trading bot in the configuration's mode until SIGINT or SIGTERM
(or, in paper-replay mode, the end of the replayed data):
  live          the REST client against exchange.base_url, with the keys of
                SPOTBOT_API_KEY/SPOTBOT_API_SECRET or exchange.key_file
  paper         the simulated exchange, fed klines polled from the public
                endpoints of exchange.base_url (no keys)
  paper-replay  the simulated exchange, fed data.source at data.speed
A first signal stops gracefully within daemon.shutdown_timeout; a second
one exits at once. docs/daemon.md describes the bot.`,
		Example: "  " + prog + " run --config configs/paper.yaml\n  " + prog + " run --config configs/paper.yaml --speed 0",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runBot(c.Context(), d, cfgPath, speed, c.ErrOrStderr())
		},
	}
	c.Flags().StringVar(&cfgPath, "config", "", "configuration file (required)")
	c.Flags().Float64Var(&speed, "speed", -1, "paper-replay speed, overriding data.speed (0: as fast as possible)")
	return c
}

// runBot wires the configuration, the logger, the client and the store
// into a daemon and runs it, logging to logOut. d.exit ends the process on
// a second signal.
func runBot(ctx context.Context, d deps, cfgPath string, speed float64, logOut io.Writer) error {
	if cfgPath == "" {
		return fmt.Errorf("%w: run: --config FILE is required", ErrUsage)
	}
	environ, clock, forceExit := d.environ(), d.clock, d.exit
	overrides := map[string]any{}
	if speed >= 0 {
		overrides["data.speed"] = speed
	}
	reg := d.reg
	cfg, err := loadConfig(reg, "run", cfgPath, environ, overrides)
	if err != nil {
		return err
	}
	if !cfg.RunsDaemon() {
		return fmt.Errorf("%s: mode: backtest configurations run with `backtest run`, not `bot run`", cfgPath)
	}
	log, err := newLogger(logOut, cfg.Log)
	if err != nil {
		return err
	}
	opts := daemon.Options{Config: cfg, Registry: reg, Clock: clock, Logger: log,
		Reload: func() (*config.Config, error) { return loadConfig(reg, "run", cfgPath, environ, overrides) }}
	notifier, err := newNotifier(cfg, environ, clock, log)
	if err != nil {
		return err
	}
	if notifier != nil {
		opts.Notify = notifier
		defer closeNotifier(notifier, cfg.Daemon.ShutdownTimeout, log)
	}
	if cfg.ReachesExchange() {
		copts := []exchange.Option{exchange.WithBaseURL(cfg.Exchange.BaseURL), exchange.WithKeyHeader(cfg.Exchange.KeyHeader),
			exchange.WithRecvWindow(cfg.Exchange.RecvWindow), exchange.WithTimeout(cfg.Exchange.Timeout),
			exchange.WithRateLimitRetries(cfg.Exchange.RateLimitRetries),
			exchange.WithClock(clock), exchange.WithLogger(log)}
		if !cfg.Simulated() {
			cfg.Exchange.KeyFile = expandHome(cfg.Exchange.KeyFile, environ)
			key, secret, err := cfg.Credentials(environ)
			if err != nil {
				return err
			}
			copts = append(copts, exchange.WithCredentials(key, secret))
		}
		if opts.Client, err = exchange.New(copts...); err != nil {
			return fmt.Errorf("exchange: %w", err)
		}
	}
	// A damaged store is refused, not started over (store.Open checks the
	// file and its log; Verify reads every page).
	sopts := []store.Option{store.Verify()}
	if cfg.Store.Sync == "full" {
		sopts = append(sopts, store.FullSync())
	}
	st, err := store.Open(ctx, cfg.Store.Path, sopts...)
	if err != nil {
		return fmt.Errorf("store.path: %w", err)
	}
	opts.Store = st
	bot, err := daemon.New(opts)
	if err != nil {
		st.Close()
		return err
	}
	// While the bot runs its schedules, a "bot jobs run" of the same job on
	// the same store is refused, and the other way round.
	releaseJobs, err := holdJobLocks(cfg, reg, "bot run")
	if err != nil {
		st.Close()
		return err
	}
	defer func() { _ = releaseJobs() }()
	// The listener opens before trading and serves through the shutdown.
	stopListener, err := startListener(cfg, bot, opts.Client, st, log, environ)
	if err != nil {
		st.Close()
		return err
	}
	stopCommands, err := startTelegramCommands(cfg, bot, environ, clock, log)
	if err != nil {
		stopListener()
		st.Close()
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go forceOnSecondSignal(ctx, done, log, notifySignals, forceExit)
	err = bot.Run(ctx)
	stopCommands()
	stopListener()
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("store: %w", cerr)
	}
	return err
}

// notifySignals starts catching SIGINT and SIGTERM; stop undoes it.
func notifySignals() (sig <-chan os.Signal, stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// forceOnSecondSignal exits at once on a signal received after ctx ended
// (the first signal), unless the run finished first.
func forceOnSecondSignal(ctx context.Context, done <-chan struct{}, log *slog.Logger,
	notify func() (<-chan os.Signal, func()), forceExit func(int)) {
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	sig, stop := notify()
	defer stop()
	select {
	case <-done:
	case s := <-sig:
		log.Error("second signal: exiting without finishing the shutdown", slog.String("signal", s.String()))
		forceExit(ExitError)
	}
}

// newLogger builds the slog logger of log.format and log.level.
func newLogger(w io.Writer, c config.Log) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.Level)); err != nil {
		return nil, fmt.Errorf("log.level: %w", err)
	}
	o := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return slog.New(slog.NewTextHandler(w, o)), nil
}

// expandHome turns a leading ~/ into the home directory of environ's HOME.
func expandHome(path string, environ []string) string {
	if !strings.HasPrefix(path, "~/") {
		return path
	}
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok && v != "" {
			return filepath.Join(v, path[2:])
		}
	}
	return path
}
