package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/store"
)

// recorder writes backtest runs into the store.
type recorder struct {
	st     *store.Store
	src    []byte // the run's source, JSON
	source source
}

func openRecorder(ctx context.Context, path string, src source) (*recorder, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: store.path is empty; give --db or --no-store", ErrUsage)
	}
	b, err := json.Marshal(src)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return &recorder{st: st, src: b, source: src}, nil
}

func (r *recorder) close() { r.st.Close() }

func (r *recorder) record(ctx context.Context, name string, started time.Time, params any, m backtest.Metrics, dir string) (int64, error) {
	return r.recordFrom(ctx, r.src, name, started, params, m, dir)
}

// recordAs records a run whose source differs from the recorder's: one
// run of a sweep (its combo), or a whole sweep or walk-forward.
func (r *recorder) recordAs(ctx context.Context, src source, name string, started time.Time, params any, m backtest.Metrics, dir string) (int64, error) {
	b, err := json.Marshal(src)
	if err != nil {
		return 0, err
	}
	return r.recordFrom(ctx, b, name, started, params, m, dir)
}

func (r *recorder) recordFrom(ctx context.Context, src []byte, name string, started time.Time, params any, m backtest.Metrics, dir string) (int64, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return 0, err
	}
	mj, err := json.Marshal(m)
	if err != nil {
		return 0, err
	}
	return r.st.RecordBacktest(ctx, store.BacktestRun{Name: name, Started: started, Config: string(src), Params: p,
		Metrics: mj, ReportDir: dir})
}

// instancesParams is each instance's parameters by id.
func instancesParams(c *config.Config) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, in := range c.Strategies {
		out[in.ID] = in.Params
	}
	return out
}

func newReport(prog string, d deps) *cobra.Command {
	var db, out string
	c := &cobra.Command{
		Use:   "report [RUN]",
		Short: "List recorded runs, or show one and write its reports again",
		Long: `report lists the backtest runs recorded in the database. Given a run id it
prints that run's metrics; with --out it runs the recorded configuration again
(backtests are deterministic, so the result is the same) and writes its
reports, report.html included, into that directory.`,
		Example: "  " + prog + " report --db spotbot.db\n  " + prog + " report 3 --db spotbot.db --out reports/run3",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stdout := cmd.Context(), cmd.OutOrStdout()
			if _, err := os.Stat(db); err != nil {
				return fmt.Errorf("%w: --db: %v", ErrUsage, err)
			}
			st, err := store.Open(ctx, db, store.ReadOnly())
			if err != nil {
				return err
			}
			defer st.Close()
			runs, err := st.BacktestRuns(ctx)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return listRuns(stdout, runs)
			}
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("%w: run %q is not a run id", ErrUsage, args[0])
			}
			for _, r := range runs {
				if r.ID == id {
					return showRun(ctx, d, r, out, stdout, cmd.ErrOrStderr())
				}
			}
			return fmt.Errorf("no run %d in %s (%d runs recorded)", id, db, len(runs))
		},
	}
	c.Flags().StringVar(&db, "db", "spotbot.db", "database the runs were recorded in")
	c.Flags().StringVar(&out, "out", "", "run the recorded configuration again and write its reports here")
	return c
}

func listRuns(w io.Writer, runs []store.BacktestRun) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tNAME\tRETURN %\tSHARPE\tTRADES\tREPORTS")
	for _, r := range runs {
		var m backtest.Metrics
		if err := json.Unmarshal(r.Metrics, &m); err != nil {
			return fmt.Errorf("run %d: metrics: %w", r.ID, err)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.2f\t%.3f\t%d\t%s\n", r.ID, r.Started.UTC().Format(time.DateTime), r.Name, m.ReturnPct,
			m.Sharpe, m.Trades, r.ReportDir)
	}
	return tw.Flush()
}

func showRun(ctx context.Context, d deps, r store.BacktestRun, out string, stdout, stderr io.Writer) error {
	var m backtest.Metrics
	if err := json.Unmarshal(r.Metrics, &m); err != nil {
		return fmt.Errorf("run %d: metrics: %w", r.ID, err)
	}
	var src source
	if err := json.Unmarshal([]byte(r.Config), &src); err != nil {
		return fmt.Errorf("run %d: configuration: %w", r.ID, err)
	}
	if out == "" {
		rep := backtest.Report{Title: r.Name, Metrics: m, FillModel: "as recorded"}
		fmt.Fprintf(stdout, "run %d, started %s\n", r.ID, r.Started.UTC().Format(time.RFC3339))
		if src.Search != nil {
			fmt.Fprintf(stdout, "a %s; its chosen configuration's metrics below; --out DIR runs it again and writes its reports\n", src.Search.Kind)
		}
		return rep.WriteSummary(stdout)
	}
	if src.Search != nil {
		return rerunSearch(ctx, d, r, src, out, stdout)
	}
	src.Overrides["report.dir"] = out
	c, s, err := src.load(d.reg)
	if err != nil {
		return fmt.Errorf("run %d: configuration: %w", r.ID, err)
	}
	p := newProgress(stderr, "backtest", d.clock)
	s.Progress = p.update
	res, err := backtest.Run(ctx, s)
	p.finish()
	if err != nil {
		return err
	}
	if res.Metrics.EquityFinal != m.EquityFinal {
		fmt.Fprintf(stderr, "note: final equity %s differs from the recorded %s (the data or the environment changed)\n",
			res.Metrics.EquityFinal, m.EquityFinal)
	}
	rep := backtest.NewReport(r.Name, s, res)
	if err := rep.WriteSummary(stdout); err != nil {
		return err
	}
	return writeReports(ctx, d, c.Report, rep, s, res, stdout, nil)
}

// rerunSearch runs a recorded sweep or walk-forward again and writes its
// reports into out.
func rerunSearch(ctx context.Context, d deps, r store.BacktestRun, src source, out string, stdout io.Writer) error {
	src.Overrides["report.dir"] = out
	c, s, err := src.load(d.reg)
	if err != nil {
		return fmt.Errorf("run %d: configuration: %w", r.ID, err)
	}
	ps, obj, err := parseSearch(src.Search.Params, src.Search.Objective)
	if err != nil {
		return fmt.Errorf("run %d: %w", r.ID, err)
	}
	title := instancesTitle(c)
	_, restore := backtest.SweepMemory()
	defer restore()
	switch src.Search.Kind {
	case "sweep":
		combos := backtest.Grid(ps)
		if src.Search.Random > 0 {
			combos = backtest.Random(ps, src.Search.Random, src.Search.Seed)
		}
		runs, err := backtest.Sweep(ctx, s, backtest.SweepOptions{Combos: combos, Objective: obj})
		if err != nil {
			return err
		}
		best, err := backtest.RunBest(ctx, s, runs)
		if err != nil {
			return err
		}
		of := backtest.Overfit(runs, best, backtest.OverfitOptions{})
		if err := printRuns(stdout, runs, 20); err != nil {
			return err
		}
		printOverfit(stdout, of)
		return writeSweepReports(ctx, d, c.Report, backtest.SweepReport{Title: title, Objective: src.Search.Objective, Params: ps, Runs: runs,
			Overfit: of, Spec: s, Best: best}, sweepFile{Schema: sweepSchema, Objective: src.Search.Objective, Combos: len(combos), Runs: runs,
			Overfitting: &of}, stdout)
	case "walkforward":
		res, err := backtest.WalkForward(ctx, s, backtest.WalkForwardOptions{Params: ps, Objective: obj, Train: src.Search.Train, Test: src.Search.Test})
		if err != nil {
			return err
		}
		return writeWalkForwardReports(ctx, d, c.Report, title, res, stdout)
	}
	return fmt.Errorf("run %d: unknown kind %q", r.ID, src.Search.Kind)
}
