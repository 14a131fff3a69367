package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/distributed"
)

// sweepFile is what a sweep (or one shard of it) writes, and what merge
// reads back.
type sweepFile struct {
	Schema    string              `json:"schema"`
	Objective string              `json:"objective"`
	Combos    int                 `json:"combos"`
	Shard     int                 `json:"shard"`
	Shards    int                 `json:"shards"`
	Runs      []backtest.SweepRun `json:"runs"`
	// Overfitting are the statistics of docs/metrics.md over the runs.
	Overfitting *backtest.Overfitting `json:"overfitting,omitempty"`
}

const sweepSchema = "spotbot.sweep/v1"

func newSweep(prog string, d deps) *cobra.Command {
	var rf runFlags
	var q queueFlags
	var params []string
	var objective, shard, output string
	var random, top, workers int
	var seed uint64
	c := &cobra.Command{
		Use:   "sweep",
		Short: "Run a parameter sweep in parallel and rank the runs",
		Long: `sweep runs the configuration once per combination of the given parameters of
its first strategy instance, on all cores, and ranks the runs by an objective
(return, sharpe, sortino, calmar, cagr, profit_factor, sqn, win_rate,
-max_drawdown). A sweep can be split over machines with --shard i/n; each
shard writes its own results file and "sweep merge" joins them.`,
		Example: "  " + prog + " sweep --param fast=5:20:5 --param slow=30,50,80 --objective sharpe\n  " +
			prog + " sweep --config my.yaml --param fast=2:40:1 --param slow=10:200:5 --random 200 --seed 7\n  " +
			prog + " sweep --param fast=5:20:5 --param slow=30,50 --shard 0/4 --output shard0.json",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			ps, obj, err := parseSearch(params, objective)
			if err != nil {
				return err
			}
			si, sn, err := parseShard(shard)
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
			var rec *recorder
			if !rf.noStore {
				if rec, err = openRecorder(cmd.Context(), c.Store.Path, src); err != nil {
					return err
				}
				defer rec.close()
			}
			started := d.clock.Now()
			title := instancesTitle(c)
			combos := backtest.Grid(ps)
			if random > 0 {
				combos = backtest.Random(ps, random, seed)
			}
			p := newProgress(stderr, "sweep", d.clock)
			p.unit = "runs"
			done := 0
			mine := len(combos)
			if sn > 1 {
				mine = (len(combos) - si + sn - 1) / sn
			}
			sweep, closeQueue, err := q.sweep(cmd, d, src, spec, search{Kind: distributed.KindSweep, Params: params, Random: random, Seed: seed, Objective: objective, Shards: sn})
			if err != nil {
				return err
			}
			defer closeQueue()
			runs, err := sweep(cmd.Context(), spec, backtest.SweepOptions{Combos: combos, Objective: obj,
				Workers: workers, Shard: si, Shards: sn, Done: func(backtest.SweepRun) { done++; p.update(done, mine) }})
			p.finish()
			if err != nil {
				return err
			}
			if rec != nil {
				// In combination order, so run ids do not depend on which
				// worker finished first.
				byIndex := slices.Clone(runs)
				slices.SortFunc(byIndex, func(a, b backtest.SweepRun) int { return a.Index - b.Index })
				for _, r := range byIndex {
					if r.Err != "" {
						continue
					}
					one := rec.source
					one.Combo = r.Params
					if _, err := rec.recordAs(cmd.Context(), one, fmt.Sprintf("%s sweep #%d %s", title, r.Index, r.Params), started,
						r.Params, r.Metrics, ""); err != nil {
						return err
					}
				}
			}
			elapsed := d.clock.Now().Sub(started)
			if err := printRuns(stdout, runs, top); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "\n%d runs in %s\n", len(runs), elapsed.Round(time.Millisecond))
			if len(runs) > 0 && runs[0].Err != "" {
				return fmt.Errorf("sweep: every run failed; the first: %s", runs[0].Err)
			}
			best, err := backtest.RunBest(cmd.Context(), spec, runs)
			if err != nil {
				return err
			}
			of := backtest.Overfit(runs, best, backtest.OverfitOptions{})
			printOverfit(stdout, of)
			if rec != nil && sn <= 1 {
				whole := rec.source
				whole.Search = &search{Kind: "sweep", Params: params, Objective: objective, Random: random, Seed: seed}
				id, err := rec.recordAs(cmd.Context(), whole, fmt.Sprintf("%s sweep of %d runs, best %s", title, len(runs), runs[0].Params),
					started, runs[0].Params, runs[0].Metrics, c.Report.Dir)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "recorded the sweep as run %d (backtest report %d --out DIR writes its reports again)\n", id, id)
			}
			if err := writeSweepReports(cmd.Context(), d, c.Report, backtest.SweepReport{Title: title, Objective: objective, Params: ps,
				Runs: runs, Overfit: of, Spec: spec, Best: best},
				sweepFile{Schema: sweepSchema, Objective: objective, Combos: len(combos), Shard: si, Shards: sn, Runs: runs, Overfitting: &of}, stdout); err != nil {
				return err
			}
			if rec != nil {
				fmt.Fprintf(stdout, "recorded in %s (backtest report --db %s)\n", c.Store.Path, c.Store.Path)
			}
			if output != "" {
				f := sweepFile{Schema: sweepSchema, Objective: objective, Combos: len(combos), Shard: si, Shards: sn, Runs: runs, Overfitting: &of}
				if err := writeJSON(output, f); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote %s\n", output)
			}
			return nil
		},
	}
	rf.register(c)
	q.register(c)
	fs := c.Flags()
	fs.StringArrayVar(&params, "param", nil, "a parameter to sweep: name=v1,v2,... or name=lo:hi:step (repeatable)")
	fs.StringVar(&objective, "objective", "sharpe", "what to maximise")
	fs.IntVar(&random, "random", 0, "draw this many random combinations instead of the full grid")
	fs.Uint64Var(&seed, "seed", 1, "seed of --random")
	fs.IntVar(&workers, "workers", 0, "parallel runs (default: all cores)")
	fs.IntVar(&top, "top", 20, "rows of the results table (0 for all)")
	fs.StringVar(&shard, "shard", "", "run only shard i of n, e.g. 0/4")
	fs.StringVar(&output, "output", "", "write every run to this JSON file")
	c.AddCommand(newMerge(), newAttach(c, distributed.KindSweep))
	return c
}

// parseSearch parses the --param and --objective flags of sweep and
// walkforward.
func parseSearch(params []string, objective string) ([]backtest.Param, backtest.Objective, error) {
	if len(params) == 0 {
		return nil, nil, fmt.Errorf("%w: at least one --param is required", ErrUsage)
	}
	ps := make([]backtest.Param, 0, len(params))
	for _, s := range params {
		p, err := backtest.ParseParam(s)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		ps = append(ps, p)
	}
	obj, err := backtest.ParseObjective(objective)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --objective: %v", ErrUsage, err)
	}
	return ps, obj, nil
}

func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%w: --shard %q: want i/n with 0 ≤ i < n", ErrUsage, s)
	}
	return i, n, nil
}

func printRuns(w io.Writer, runs []backtest.SweepRun, top int) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tscore\treturn %\tsharpe\tmax dd %\ttrades\tparams\t")
	for i, r := range runs {
		if top > 0 && i >= top {
			break
		}
		if r.Err != "" {
			fmt.Fprintf(tw, "%d\t-\t-\t-\t-\t-\t%s (%s)\t\n", i+1, r.Params, r.Err)
			continue
		}
		m := r.Metrics
		fmt.Fprintf(tw, "%d\t%.4f\t%.2f\t%.3f\t%.2f\t%d\t%s\t\n", i+1, r.Score, m.ReturnPct, m.Sharpe, m.MaxDrawdownPct, m.Trades, r.Params)
	}
	return tw.Flush()
}

func writeJSON(path string, v any) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return writeFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

func newMerge() *cobra.Command {
	var top int
	var output string
	c := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Merge the results files of a sharded sweep and rank all runs",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			stdout := cmd.OutOrStdout()
			merged, err := mergeFiles(files)
			if err != nil {
				return err
			}
			if err := printRuns(stdout, merged.Runs, top); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "\n%d runs from %d files\n", len(merged.Runs), len(files))
			of := backtest.Overfit(merged.Runs, nil, backtest.OverfitOptions{})
			merged.Overfitting = &of
			printOverfit(stdout, of)
			if output != "" {
				if err := writeJSON(output, merged); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote %s\n", output)
			}
			return nil
		},
	}
	c.Flags().IntVar(&top, "top", 20, "rows of the results table (0 for all)")
	c.Flags().StringVar(&output, "output", "", "write the merged runs to this JSON file")
	return c
}

// mergeFiles joins shard files: they must come from one sweep (same
// objective, combos and shard count) and hold no run twice.
func mergeFiles(files []string) (sweepFile, error) {
	var out sweepFile
	seen := map[int]string{}
	for i, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			return out, err
		}
		var f sweepFile
		if err := json.Unmarshal(b, &f); err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
		if f.Schema != sweepSchema {
			return out, fmt.Errorf("%s: schema %q, want %q", name, f.Schema, sweepSchema)
		}
		if i == 0 {
			out = sweepFile{Schema: f.Schema, Objective: f.Objective, Combos: f.Combos, Shards: f.Shards}
		} else if f.Objective != out.Objective || f.Combos != out.Combos || f.Shards != out.Shards {
			return out, fmt.Errorf("%s: from another sweep (objective %s, %d combos, %d shards; the first file has %s, %d, %d)",
				name, f.Objective, f.Combos, f.Shards, out.Objective, out.Combos, out.Shards)
		}
		for _, r := range f.Runs {
			if prev, dup := seen[r.Index]; dup {
				return out, fmt.Errorf("%s: run %d is also in %s", name, r.Index, prev)
			}
			seen[r.Index] = name
			out.Runs = append(out.Runs, r)
		}
	}
	backtest.SortRuns(out.Runs)
	return out, nil
}

// printOverfit prints the overfitting statistics after a sweep's table.
func printOverfit(w io.Writer, of backtest.Overfitting) {
	fmt.Fprintln(w, "\noverfitting (docs/metrics.md):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range backtest.OverfitRows(of) {
		fmt.Fprintf(tw, "  %s\t%s\n", r.Name, r.Value)
	}
	tw.Flush()
	for _, n := range of.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// writeSweepReports writes sweep.json and, unless disabled, sweep.html
// into the report directory.
func writeSweepReports(ctx context.Context, d deps, rc config.Report, rep backtest.SweepReport, f sweepFile, stdout io.Writer) error {
	dir := rc.Dir
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "sweep.json")
	if err := writeJSON(path, f); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	if !rc.HTML {
		return nil
	}
	o := chartOptions(ctx, d)
	path = filepath.Join(dir, "sweep.html")
	if err := writeFile(path, func(w io.Writer) error { return backtest.WriteSweepHTML(w, rep, o) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}
