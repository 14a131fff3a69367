package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/notify"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategy"
)

// groupOfOne is a command group with one subcommand, sub: run without it,
// it is a usage error naming sub and where its help is.
func groupOfOne(prog, name, sub, short, long string) *cobra.Command {
	return &cobra.Command{
		Use:   name,
		Short: short,
		Long:  long,
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return fmt.Errorf("%w: %s: the only subcommand is %s\nRun '%s %s %s --help' for usage.", ErrUsage, name, sub, prog, name, sub)
		},
	}
}

// newJobsCmd is `bot jobs`, whose only subcommand is run.
func newJobsCmd(prog string, d deps) *cobra.Command {
	jobs := groupOfOne(prog, "jobs", "run", "Run a scheduled job once (jobs run JOB --config FILE)",
		"jobs runs scheduled jobs by hand; its only subcommand is run.")
	var cfgPath, schedule string
	run := &cobra.Command{
		Use:   "run JOB --config FILE",
		Short: "Run one scheduled strategy instance's schedule once, now",
		Long: `run runs one scheduled strategy instance's schedule once, now, against the
configured exchange, prints what it did (conversions, orders, outcome)
and records the run in the store. JOB is an instance id or, when one
instance has it, a strategy name (dust, rebalance, dca). The instance's
only schedule runs unless --schedule names one.
  live          the REST client with the configured credentials
  paper         the simulated exchange with account.balances, priced from
                the public klines of exchange.base_url
  paper-replay  the simulated exchange with account.balances, at the end
                of data.source (market orders fill at the last close)
A run of the same job already in progress, here or in a running bot on
the same store, is refused.`,
		Example: "  " + prog + " jobs run dust --config configs/jobs.yaml\n  " + prog + " jobs run dust --config configs/jobs.yaml --schedule convert",
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runJob(c.Context(), d, args, cfgPath, schedule, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	run.Flags().StringVar(&cfgPath, "config", "", "configuration file (required)")
	run.Flags().StringVar(&schedule, "schedule", "", "the schedule to run, when the instance has several")
	jobs.AddCommand(run)
	return jobs
}

// runJob is `bot jobs run`.
func runJob(ctx context.Context, d deps, args []string, cfgPath, schedule string, stdout, stderr io.Writer) error {
	if len(args) > 1 {
		return fmt.Errorf("%w: jobs run: unexpected %q", ErrUsage, args[1:])
	}
	if len(args) == 0 || cfgPath == "" {
		return fmt.Errorf("%w: jobs run: a job and --config FILE are required", ErrUsage)
	}
	environ := d.environ()
	cfg, err := loadConfig(d.reg, "jobs run", cfgPath, environ, nil)
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, cfg.Log)
	if err != nil {
		return err
	}
	j := jobRun{cfg: cfg, reg: d.reg, log: log, clock: d.clock, environ: environ, schedule: schedule}
	notifier, err := newNotifier(cfg, environ, d.clock, log)
	if err != nil {
		return err
	}
	if notifier != nil {
		j.notify = notifier
		defer closeNotifier(notifier, cfg.Daemon.ShutdownTimeout, log)
	}
	return j.run(ctx, args[0], stdout)
}

// jobRun is one `bot jobs run`.
type jobRun struct {
	cfg      *config.Config
	reg      *strategy.Registry
	log      *slog.Logger
	clock    exchange.Clock
	environ  []string
	schedule string
	notify   *notify.Notifier // nil without a notify section
}

// findJob returns the index of the instance a job names: by id, else by
// strategy name when exactly one instance has it.
func findJob(cfg *config.Config, job string) (int, error) {
	var byName, ids []int
	for i, s := range cfg.Strategies {
		if s.ID == job {
			return i, nil
		}
		if s.Name == job {
			byName = append(byName, i)
		}
		ids = append(ids, i)
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		var names []string
		for _, i := range ids {
			names = append(names, cfg.Strategies[i].ID+" ("+cfg.Strategies[i].Name+")")
		}
		return 0, fmt.Errorf("jobs run: no instance or strategy %q in the configuration (instances: %s)", job, strings.Join(names, ", "))
	}
	var names []string
	for _, i := range byName {
		names = append(names, cfg.Strategies[i].ID)
	}
	return 0, fmt.Errorf("jobs run: %d instances run strategy %s (%s): name one by its id", len(byName), job, strings.Join(names, ", "))
}

func (j *jobRun) run(ctx context.Context, job string, out io.Writer) error {
	cfg := j.cfg
	if !cfg.RunsDaemon() {
		return fmt.Errorf("jobs run: mode: backtest configurations have no exchange to run a job against; use live, paper or paper-replay")
	}
	idx, err := findJob(cfg, job)
	if err != nil {
		return err
	}
	sc := cfg.Strategies[idx]
	s, err := j.reg.New(sc)
	if err != nil {
		return fmt.Errorf("jobs run: strategies[%d]: %w", idx, err)
	}
	if _, ok := s.(strategy.Scheduler); !ok {
		return fmt.Errorf("jobs run: %s (%s) has no schedule to run", sc.ID, sc.Name)
	}
	guard := daemon.NewJobGuard(cfg.Store.Path)
	release, err := guard.Acquire(sc.ID, "bot jobs run")
	if err != nil {
		return fmt.Errorf("jobs run: %w", err)
	}
	defer release()
	var sopts []store.Option
	if cfg.Store.Sync == "full" {
		sopts = append(sopts, store.FullSync())
	}
	st, err := store.Open(ctx, cfg.Store.Path, sopts...)
	if err != nil {
		return fmt.Errorf("store.path: %w", err)
	}
	err = j.runWith(ctx, st, sc, s, out)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("store: %w", cerr)
	}
	return err
}

func (j *jobRun) runWith(ctx context.Context, st *store.Store, sc strategy.Config, s strategy.Strategy, out io.Writer) error {
	cfg := j.cfg
	env, err := j.market(ctx, sc)
	if err != nil {
		return err
	}
	jr := &jobJournal{Store: st, fresh: env.simulated, status: map[string]*jobOrder{}}
	port := &jobPort{Trader: env.port}
	if env.simulated {
		port.token = dustToken
	}
	// The gate checks a simulated account's buys as the simulator of
	// the sim section locks them (its fees in the quote asset).
	var fill session.Fill
	if env.simulated {
		if fill, err = session.FillFromConfig(cfg.Sim); err != nil {
			return fmt.Errorf("jobs run: %w", err)
		}
	}
	rt, _, err := session.NewRuntime(session.Options{Instances: []strategy.Config{sc}, Registry: j.reg, Port: port,
		Events: env.events, Journal: jr, Clock: env.clock, Logger: j.log, Risk: cfg.Risk, Fill: fill, Quote: cfg.Account.Quote,
		BaseInterval: env.base, MergeGaps: cfg.Data.MergeGaps()})
	if err != nil {
		return fmt.Errorf("jobs run: %w", err)
	}
	if env.simulated {
		seq, err := session.ReserveSequence(ctx, st)
		if err != nil {
			return fmt.Errorf("jobs run: %w", err)
		}
		rt.SetSequence(seq.Start)
		jr.session = seq.Tag
	}
	if err := rt.Start(ctx); err != nil {
		return fmt.Errorf("jobs run: %w", err)
	}
	// The session loop over the history, then the run; its last Sync
	// follows the orders the run placed: fills and statuses up to now.
	job := &session.Job{Instance: sc.ID, Schedule: j.schedule}
	var syncErr error
	l := session.Loop{Runtime: rt, SyncFailed: func(err error) error { syncErr = err; return nil }}
	if err := l.Run(ctx, &session.Once{Feeds: rt.Feeds(), History: env.history, At: env.clock.Now(), Job: job}); err != nil {
		return fmt.Errorf("jobs run: %w", err)
	}
	run, err := job.Run, job.Err
	if err != nil && run.Instance == "" {
		return fmt.Errorf("jobs run: %w", err)
	}
	recordErr := err
	fmt.Fprintf(out, "job %s (%s), schedule %s, %s at %s\n", sc.ID, sc.Name, run.Schedule, env.describe,
		run.Start.UTC().Format(time.RFC3339))
	port.print(out)
	jr.print(out)
	if run.Err != nil {
		fmt.Fprintf(out, "outcome: error: %v\n", run.Err)
	} else {
		fmt.Fprintln(out, "outcome: ok")
	}
	j.notifyRun(run)
	if recordErr != nil {
		return recordErr
	}
	fmt.Fprintf(out, "recorded: run of %s/%s in %s\n", sc.ID, run.Schedule, cfg.Store.Path)
	if syncErr != nil {
		return fmt.Errorf("jobs run: following the run's orders: %w", syncErr)
	}
	if run.Err != nil {
		return fmt.Errorf("jobs run: %s: %w", sc.ID, run.Err)
	}
	return nil
}
