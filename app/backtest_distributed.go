package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/distributed"
	"github.com/spotbot/spotbot/exchange"
)

// queueFlags are the flags of a NATS JetStream connection (docs/distributed.md).
type queueFlags struct {
	url, creds, nkey, ca, cert, key string
	// coordinator only
	unitSize int
	job      string
}

// connFlagNames are the flags connect reads; attach passes them on and a
// job's stored command leaves them out.
var connFlagNames = []string{"queue", "queue-creds", "queue-nkey", "queue-ca", "queue-cert", "queue-key"}

func (q *queueFlags) registerConn(fs *pflag.FlagSet) {
	fs.StringVar(&q.url, "queue", "", "NATS server with JetStream: nats://host:4222 or tls://host:4222 (user:password@ accepted; comma-separated for a cluster)")
	fs.StringVar(&q.creds, "queue-creds", "", "NATS credentials file (user JWT and nkey seed)")
	fs.StringVar(&q.nkey, "queue-nkey", "", "file holding a NATS user nkey seed")
	fs.StringVar(&q.ca, "queue-ca", "", "PEM file of the CA that signed the NATS server's certificate")
	fs.StringVar(&q.cert, "queue-cert", "", "PEM client certificate for mutual TLS with the NATS server")
	fs.StringVar(&q.key, "queue-key", "", "PEM key of --queue-cert")
}

// register adds the coordinator's flags to sweep and walkforward.
func (q *queueFlags) register(c *cobra.Command) {
	fs := c.Flags()
	q.registerConn(fs)
	fs.IntVar(&q.unitSize, "unit-size", 8, "runs per work unit with --queue")
	fs.StringVar(&q.job, "job", "", "with --queue, the job's id (default: a random one); the job of that id is resumed if it exists")
}

func (q *queueFlags) connect(ctx context.Context, name string, ackWait time.Duration) (*distributed.Queue, error) {
	dq, err := distributed.Connect(ctx, distributed.ConnOptions{URL: q.url, Creds: q.creds, NKey: q.nkey, CA: q.ca,
		Cert: q.cert, Key: q.key, Name: name, AckWait: ackWait})
	if err != nil {
		return nil, fmt.Errorf("%w (--queue)", err)
	}
	return dq, nil
}

// connArgs are the connection flags as arguments, for attach.
func (q *queueFlags) connArgs() []string {
	var out []string
	for i, v := range []string{q.url, q.creds, q.nkey, q.ca, q.cert, q.key} {
		if v != "" {
			out = append(out, "--"+connFlagNames[i]+"="+v)
		}
	}
	return out
}

// sweepFunc is backtest.Sweep's signature.
type sweepFunc = func(context.Context, backtest.Spec, backtest.SweepOptions) ([]backtest.SweepRun, error)

// sweep returns backtest.Sweep without --queue, else a sweep that runs on
// the queue; close releases the connection.
func (q *queueFlags) sweep(cmd *cobra.Command, d deps, src source, spec backtest.Spec, s search) (sweepFunc, func(), error) {
	if q.url == "" {
		return backtest.Sweep, func() {}, nil
	}
	dq, job, err := q.start(cmd, d, src, spec, s)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, _ backtest.Spec, o backtest.SweepOptions) ([]backtest.SweepRun, error) {
		return dq.Sweep(ctx, job, 0, time.Time{}, time.Time{}, o)
	}, dq.Close, nil
}

// walkForward returns nil hooks without --queue, else the hooks that run
// each window's in-sample sweep and its runs of the best combination on
// the queue (test is the out-of-sample length).
func (q *queueFlags) walkForward(cmd *cobra.Command, d deps, src source, spec backtest.Spec, s search, test time.Duration) (
	func(context.Context, int, time.Time, time.Time, backtest.Spec, backtest.SweepOptions) ([]backtest.SweepRun, error),
	func(context.Context, int, backtest.Window, backtest.SweepRun) (*backtest.Result, *backtest.Result, error), func(), error) {
	if q.url == "" {
		return nil, nil, func() {}, nil
	}
	dq, job, err := q.start(cmd, d, src, spec, s)
	if err != nil {
		return nil, nil, nil, err
	}
	sweep, window := dq.WalkForward(job, test)
	return sweep, window, dq.Close, nil
}

// start connects, stores the bars and the job (or resumes the job of
// --job) and tells the user how to attach again.
func (q *queueFlags) start(cmd *cobra.Command, d deps, src source, spec backtest.Spec, s search) (*distributed.Queue, *distributed.Job, error) {
	if s.Shards > 1 {
		return nil, nil, fmt.Errorf("%w: --shard and --queue do not mix: the queue spreads the sweep over the workers", ErrUsage)
	}
	if q.unitSize < 1 {
		return nil, nil, fmt.Errorf("%w: --unit-size %d: want at least 1", ErrUsage, q.unitSize)
	}
	id := q.job
	if id == "" {
		id = distributed.NewID()
	} else if err := distributed.CheckID(id); err != nil {
		return nil, nil, fmt.Errorf("%w: --job: %v", ErrUsage, err)
	}
	ctx := cmd.Context()
	dq, err := q.connect(ctx, "spotbot coordinator "+id, 0)
	if err != nil {
		return nil, nil, err
	}
	job := distributed.Job{ID: id, Kind: s.Kind, Config: src.YAML, Environ: distributed.JobEnviron(d.environ()),
		Overrides: src.Overrides, Params: s.Params, Random: s.Random, Seed: s.Seed, Objective: s.Objective,
		UnitSize: q.unitSize, Command: storedCommand(cmd)}
	j, resumed, err := dq.Start(ctx, job, spec.Data)
	if err != nil {
		dq.Close()
		return nil, nil, err
	}
	verb := "queued"
	if resumed {
		verb = "resumed"
	}
	if !isTerminal(cmd.ErrOrStderr()) {
		dq.OnProgress = newQueueProgress(cmd.ErrOrStderr(), fmt.Sprintf("%s job %s", s.Kind, id), d.clock).update
	}
	url := distributed.Redact(q.url)
	fmt.Fprintf(cmd.ErrOrStderr(), "%s job %s %s on %s, %d runs per unit; if stopped, continue it with: %s attach %s --queue %s\n",
		s.Kind, id, verb, url, j.UnitSize, cmd.CommandPath(), id, url)
	return dq, j, nil
}

// storedCommand is the command's flags as the user set them, without the
// connection, the job id and the configuration file (the job holds its
// text): what attach runs again.
func storedCommand(cmd *cobra.Command) []string {
	skip := map[string]bool{"config": true, "job": true}
	for _, n := range connFlagNames {
		skip[n] = true
	}
	var out []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if skip[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// newAttach is "sweep attach ID" and "walkforward attach ID": the job's
// stored command run again against the queue, resuming the job.
func newAttach(parent *cobra.Command, kind string) *cobra.Command {
	var q queueFlags
	c := &cobra.Command{
		Use:   "attach ID",
		Short: "Continue a " + kind + " on the queue after its coordinator stopped",
		Long: `attach continues the ` + kind + ` job ID with the command line it was started with:
finished units are read back from the results bucket, queued ones are left
in the queue, the others are queued again; it then merges the results and
prints, writes and records them as the first command would have.`,
		Example: "  " + parent.CommandPath() + " attach 3f9a0c1d2e4b --queue nats://nats:4222",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if q.url == "" {
				return fmt.Errorf("%w: --queue is required", ErrUsage)
			}
			if err := distributed.CheckID(args[0]); err != nil {
				return fmt.Errorf("%w: %v", ErrUsage, err)
			}
			dq, err := q.connect(cmd.Context(), "spotbot attach "+args[0], 0)
			if err != nil {
				return err
			}
			job, err := dq.Job(cmd.Context(), args[0])
			dq.Close()
			if err != nil {
				return err
			}
			if job.Kind != kind {
				return fmt.Errorf("%w: job %s is a %s; use %s attach", ErrUsage, job.ID, job.Kind, job.Kind)
			}
			cfg, err := os.CreateTemp("", "spotbot-job-*.yaml")
			if err != nil {
				return err
			}
			defer os.Remove(cfg.Name())
			if _, err := cfg.WriteString(job.Config); err != nil {
				cfg.Close()
				return err
			}
			if err := cfg.Close(); err != nil {
				return err
			}
			argv := append([]string{"--config=" + cfg.Name(), "--job=" + job.ID}, job.Command...)
			argv = append(argv, q.connArgs()...)
			if err := parent.ParseFlags(argv); err != nil {
				return fmt.Errorf("%w: job %s's command %q: %v", ErrUsage, job.ID, strings.Join(job.Command, " "), err)
			}
			parent.SetContext(cmd.Context())
			return parent.RunE(parent, nil)
		},
	}
	q.registerConn(c.Flags())
	return c
}

func newWorker(prog string, d deps) *cobra.Command {
	var q queueFlags
	var name string
	var concurrency, cache int
	var ackWait time.Duration
	c := &cobra.Command{
		Use:   "worker",
		Short: "Run the units of distributed sweeps and walk-forwards from a NATS JetStream queue",
		Long: `worker takes work units of sweeps and walk-forwards started with --queue from
the NATS JetStream queue and runs them, several at once, with the strategies
built into this binary: a binary built with app.New or app.Backtest over your
own registry is the worker of your own strategies. Each unit's result is
stored in the results bucket before the unit is acknowledged; a long unit is
kept alive with in-progress acknowledgements. Bars come once per content
hash from the object store and stay cached. It runs until interrupted; units
it was running then go to another worker after the acknowledgement wait.`,
		Example: "  " + prog + " worker --queue nats://nats:4222\n  " +
			prog + " worker --queue tls://nats.example.com:4222 --queue-creds worker.creds --concurrency 8",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if q.url == "" {
				return fmt.Errorf("%w: --queue is required", ErrUsage)
			}
			if concurrency < 0 || cache < 0 || ackWait < 0 {
				return fmt.Errorf("%w: --concurrency, --cache and --ack-wait cannot be negative", ErrUsage)
			}
			if name == "" {
				host, _ := os.Hostname()
				name = fmt.Sprintf("%s-%d", host, os.Getpid())
			}
			dq, err := q.connect(cmd.Context(), "spotbot worker "+name, ackWait)
			if err != nil {
				return err
			}
			defer dq.Close()
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			w := &distributed.Worker{Queue: dq, Registry: d.reg, Name: name, Concurrency: concurrency, Cache: cache, Logger: log}
			// As sweep does once its bars are loaded (see SweepMemory); a
			// worker's arrive with its first unit.
			restore := func() {}
			defer func() { restore() }()
			w.FirstBars = func() {
				var limit int64
				limit, restore = backtest.SweepMemory()
				log.Info("garbage collector set for sweeps", "memory_limit", limit, "gogc_or_gomemlimit_set", os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "")
			}
			return w.Run(cmd.Context())
		},
	}
	q.registerConn(c.Flags())
	fs := c.Flags()
	fs.StringVar(&name, "name", "", "name of this worker in results and logs (default: host-pid)")
	fs.IntVar(&concurrency, "concurrency", 0, "units run at once (default: all cores)")
	fs.IntVar(&cache, "cache", 4, "bar sets kept in memory")
	fs.DurationVar(&ackWait, "ack-wait", distributed.DefaultAckWait, "acknowledgement wait of the queue's consumer, when this worker creates it")
	return c
}

// queueProgress logs a job's progress as plain lines when stderr is not a
// terminal (a log file, a container's output): at most one every
// queueProgressEvery on the injected clock, none before that much time has
// passed, and none of a terminal bar's control characters.
type queueProgress struct {
	w     io.Writer
	label string // "sweep job ID"
	clock exchange.Clock
	start time.Time
	last  time.Time
}

// queueProgressEvery is the least time between two progress lines.
const queueProgressEvery = 5 * time.Second

func newQueueProgress(w io.Writer, label string, clock exchange.Clock) *queueProgress {
	now := clock.Now()
	return &queueProgress{w: w, label: label, clock: clock, start: now, last: now}
}

func (p *queueProgress) update(pr distributed.Progress) {
	now := p.clock.Now()
	if now.Sub(p.last) < queueProgressEvery {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "%s: %d/%d units, %d/%d runs, %s elapsed\n", p.label, pr.UnitsDone, pr.Units, pr.RunsDone, pr.Runs,
		now.Sub(p.start).Round(time.Second))
}
