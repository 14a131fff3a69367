package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/distributed"
	"github.com/spotbot/spotbot/strategy"
)

func newWalkForward(prog string, d deps) *cobra.Command {
	var rf runFlags
	var q queueFlags
	var params []string
	var objective string
	var train, test time.Duration
	var workers int
	c := &cobra.Command{
		Use:   "walkforward",
		Short: "Optimise on rolling in-sample windows and test out of sample",
		Long: `walkforward sweeps the parameters on each in-sample window, runs the best
combination on the out-of-sample window that follows, rolls forward by the
test length, and reports each window and the chained out-of-sample result.`,
		Example: "  " + prog + " walkforward --param fast=5:20:5 --param slow=30,50,80 --train 60d --test 15d",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout := cmd.OutOrStdout()
			ps, obj, err := parseSearch(params, objective)
			if err != nil {
				return err
			}
			c, spec, src, err := rf.load(d.reg)
			if err != nil {
				return err
			}
			// Many short-lived values over the loaded bars: see SweepMemory.
			_, restore := backtest.SweepMemory()
			defer restore()
			sweep, window, closeQueue, err := q.walkForward(cmd, d, src, spec, search{Kind: distributed.KindWalkForward, Params: params, Objective: objective}, test)
			if err != nil {
				return err
			}
			defer closeQueue()
			started := d.clock.Now()
			res, err := backtest.WalkForward(cmd.Context(), spec, backtest.WalkForwardOptions{Params: ps, Objective: obj,
				Train: train, Test: test, Workers: workers, Sweep: sweep, Window: window})
			if err != nil {
				return fmt.Errorf("%w (check --train and --test)", err)
			}
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "test from\ttest to\tbest params\tin-sample score\tout-of-sample return %\ttrades")
			for _, w := range res.Windows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.4f\t%.2f\t%d\n", w.TestFrom.Format(time.DateOnly), w.TestTo.Format(time.DateOnly),
					w.Best, w.TrainScore, w.Test.ReturnPct, w.Test.Trades)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			m := res.Aggregate
			fmt.Fprintf(stdout, "\nout of sample, chained: return %.2f%% (buy and hold %.2f%%), sharpe %.3f, max drawdown %.2f%%, %d trades, equity %s → %s\n",
				m.ReturnPct, m.BuyHoldPct, m.Sharpe, m.MaxDrawdownPct, m.Trades, m.EquityStart, m.EquityFinal)
			if err := writeWalkForwardReports(cmd.Context(), d, c.Report, instancesTitle(c), res, stdout); err != nil {
				return err
			}
			if rf.noStore {
				return nil
			}
			src.Search = &search{Kind: "walkforward", Params: params, Objective: objective, Train: train, Test: test}
			rec, err := openRecorder(cmd.Context(), c.Store.Path, src)
			if err != nil {
				return err
			}
			defer rec.close()
			best := make([]string, len(res.Windows))
			for i, w := range res.Windows {
				best[i] = w.Best.String()
			}
			id, err := rec.record(cmd.Context(), instancesTitle(c)+" walk-forward", started, map[string]any{"windows": best}, res.Aggregate, c.Report.Dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "recorded run %d in %s (backtest report %d --out DIR writes its reports again)\n", id, c.Store.Path, id)
			return nil
		},
	}
	rf.register(c)
	q.register(c)
	c.AddCommand(newAttach(c, distributed.KindWalkForward))
	fs := c.Flags()
	fs.StringArrayVar(&params, "param", nil, "a parameter to optimise: name=v1,v2,... or name=lo:hi:step (repeatable)")
	fs.StringVar(&objective, "objective", "sharpe", "what to maximise in sample")
	train, test = 60*24*time.Hour, 15*24*time.Hour
	fs.Var((*dayDuration)(&train), "train", "in-sample window length (such as 60d or 1440h)")
	fs.Var((*dayDuration)(&test), "test", "out-of-sample window length (such as 15d)")
	fs.IntVar(&workers, "workers", 0, "parallel runs (default: all cores)")
	return c
}

// dayDuration is a duration flag that also takes days ("60d", "1d12h"),
// as every duration of the configuration does.
type dayDuration time.Duration

func (d *dayDuration) String() string { return time.Duration(*d).String() }

func (d *dayDuration) Set(s string) error {
	v, err := strategy.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = dayDuration(v)
	return nil
}

func (d *dayDuration) Type() string { return "duration" }

// writeWalkForwardReports writes walkforward.json (the windows and the
// chained metrics) and, unless disabled, walkforward.html into the report
// directory.
func writeWalkForwardReports(ctx context.Context, d deps, rc config.Report, title string, res *backtest.WalkForwardResult, stdout io.Writer) error {
	dir := rc.Dir
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "walkforward.json")
	if err := writeJSON(path, struct {
		Schema    string            `json:"schema"`
		Title     string            `json:"title"`
		Windows   []backtest.Window `json:"windows"`
		Aggregate backtest.Metrics  `json:"out_of_sample"`
	}{"spotbot.walkforward/v1", title, res.Windows, res.Aggregate}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	if !rc.HTML {
		return nil
	}
	o := chartOptions(ctx, d)
	path = filepath.Join(dir, "walkforward.html")
	if err := writeFile(path, func(w io.Writer) error { return backtest.WriteWalkForwardHTML(w, title, res, o) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}
