package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// runFlags are the flags shared by run, sweep and walkforward: the config
// and the overrides of its fields.
type runFlags struct {
	config   string
	from, to string
	fill     string
	market   string
	slippage string
	ticks    string
	out      string
	noHTML   bool
	db       string
	noStore  bool
	// cpuProfile, a hidden flag, names a file for a CPU profile of the
	// whole command (backtest_profile.go).
	cpuProfile string
	// stepwise turns the strategies' fast path off (backtest.Spec.Stepwise).
	stepwise bool
}

func (f *runFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.config, "config", "", "configuration file (default: the embedded configs/backtest.yaml)")
	fs.StringVar(&f.from, "from", "", "first bar, YYYY-MM-DD or RFC 3339 (overrides data.from)")
	fs.StringVar(&f.to, "to", "", "end of the data, exclusive (overrides data.to)")
	fs.StringVar(&f.fill, "fill", "", "resting limit fills: trade-through or touch (overrides sim.fill)")
	fs.StringVar(&f.market, "market", "", "market order fills: next-open or close (overrides sim.market)")
	fs.StringVar(&f.slippage, "slippage-bps", "", "slippage of market and crossing fills in basis points (overrides sim.slippage_bps)")
	fs.StringVar(&f.ticks, "slippage-ticks", "", "further slippage in price ticks (overrides sim.slippage_ticks)")
	fs.StringVar(&f.out, "out", "", "report directory (overrides report.dir)")
	fs.BoolVar(&f.noHTML, "no-html", false, "do not write report.html")
	fs.StringVar(&f.db, "db", "", "database the runs are recorded in (overrides store.path)")
	fs.BoolVar(&f.noStore, "no-store", false, "do not record the runs in the database")
}

// registerSingle adds the flags of the commands of a single run only:
// --stepwise and the hidden --cpuprofile (single starts the profile).
func (f *runFlags) registerSingle(c *cobra.Command) {
	fs := c.Flags()
	fs.BoolVar(&f.stepwise, "stepwise", false, "deliver every bar through the strategies' OnKline, their fast path (Skip) off: the same results, slower; to compare")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the command to this file")
	_ = fs.MarkHidden("cpuprofile")
}

// source is what a run was loaded from, kept with the run in the store so
// "backtest report RUN --out DIR" can run it again.
type source struct {
	YAML      string         `json:"yaml"`
	Overrides map[string]any `json:"overrides"`
	// Combo, for one run of a sweep, is its parameters, set in the first
	// instance.
	Combo backtest.Combo `json:"combo,omitempty"`
	// Search, for a whole sweep or walk-forward, is how to run it again.
	Search *search `json:"search,omitempty"`
}

// search is a recorded sweep or walk-forward: what its flags asked for.
type search struct {
	Kind      string        `json:"kind"` // sweep or walkforward
	Params    []string      `json:"params"`
	Objective string        `json:"objective"`
	Random    int           `json:"random,omitempty"`
	Seed      uint64        `json:"seed,omitempty"`
	Train     time.Duration `json:"train,omitempty"`
	Test      time.Duration `json:"test,omitempty"`
	// Shards is --shard's n, which a queued sweep refuses; not recorded.
	Shards int `json:"-"`
}

// load reads the configuration with the flags laid over it and builds the
// backtest spec.
func (f *runFlags) load(reg *strategy.Registry) (*config.Config, backtest.Spec, source, error) {
	return f.loadBackground(reg, nil)
}

// loadBackground is load leaving the binary cache of CSV data to be
// written in the background into w.
func (f *runFlags) loadBackground(reg *strategy.Registry, w *session.CacheWrites) (*config.Config, backtest.Spec, source, error) {
	over := map[string]any{}
	for k, v := range map[string]string{"data.from": f.from, "data.to": f.to, "sim.fill": f.fill, "sim.market": f.market,
		"sim.slippage_bps": f.slippage, "sim.slippage_ticks": f.ticks, "report.dir": f.out, "store.path": f.db} {
		if v != "" {
			over[k] = v
		}
	}
	if f.noHTML {
		over["report.html"] = false
	}
	var text []byte
	name := f.config
	if name == "" {
		name = "configs/backtest.yaml (embedded)"
		var err error
		if text, err = configs.FS.ReadFile("backtest.yaml"); err != nil {
			return nil, backtest.Spec{}, source{}, err
		}
	} else {
		var err error
		if text, err = os.ReadFile(f.config); err != nil {
			return nil, backtest.Spec{}, source{}, fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	src := source{YAML: string(text), Overrides: over}
	c, s, err := src.loadBackground(reg, w)
	if err != nil {
		return nil, backtest.Spec{}, src, fmt.Errorf("%w: %s: %v", ErrUsage, name, err)
	}
	return c, s, src, nil
}

// load builds the configuration and spec a source describes over the
// strategies of reg.
func (src source) load(reg *strategy.Registry) (*config.Config, backtest.Spec, error) {
	return src.loadBackground(reg, nil)
}

// loadBackground is load leaving the binary cache of CSV data to be
// written in the background into w.
func (src source) loadBackground(reg *strategy.Registry, w *session.CacheWrites) (*config.Config, backtest.Spec, error) {
	c, err := config.Load([]byte(src.YAML), os.Environ(), src.Overrides, reg)
	if err != nil {
		return nil, backtest.Spec{}, err
	}
	s, err := backtest.FromConfigBackground(c, reg, w)
	if err != nil {
		return nil, backtest.Spec{}, err
	}
	if src.Combo != nil {
		s = src.Combo.Apply(s)
	}
	return c, s, nil
}

// newBacktest builds the backtest tree, its examples naming the program
// prog ("backtest", or "mybot backtest" as a subcommand group).
func newBacktest(prog string, d deps) *cobra.Command {
	var rf runFlags
	name := prog[strings.LastIndex(prog, " ")+1:]
	root := &cobra.Command{
		Use:   name,
		Short: "Backtest spotbot strategies over historical klines",
		Long: name + ` runs spotbot strategies over historical klines against the simulated
exchange, with the same risk gate, precision and fill model as paper trading.

With no command it backtests the configuration of --config (by default the
built-in smacross strategy on the embedded sample data), prints a summary and
writes report.html.

Exit codes: 0 success, 1 a failed run, 2 bad usage or configuration.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return single(c.Context(), d, &rf, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	root.SuggestionsMinimumDistance = 2
	rf.register(root)
	rf.registerSingle(root)

	var runF runFlags
	runCmd := &cobra.Command{
		Use:   "run",
		Short: "Run one backtest from a configuration",
		Example: "  " + prog + " run --config configs/backtest.yaml\n  " +
			prog + " run --config my.yaml --from 2021-01-01 --fill touch --out reports/",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return single(c.Context(), d, &runF, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	runF.register(runCmd)
	runF.registerSingle(runCmd)
	root.AddCommand(runCmd, newSweep(prog, d), newWalkForward(prog, d), newReport(prog, d), newWorker(prog, d))
	return root
}

// single runs one backtest, writes its reports and records it.
func single(ctx context.Context, d deps, rf *runFlags, stdout, stderr io.Writer) (err error) {
	stop, err := startCPUProfile(rf.cpuProfile)
	if err != nil {
		return err
	}
	defer func() {
		if perr := stop(); err == nil {
			err = perr
		}
	}()
	// A data file read for the first time is cached while the run goes
	// on; the command waits for it before it ends. A cache that could not
	// be written only means the next run reads the file again. A cached
	// file is mapped rather than read (barfile.Writes.Map), released once
	// the run and its reports are done with the bars: this defer runs
	// after the others.
	cacheWrites := session.CacheWrites{Map: true}
	defer func() {
		if werr := cacheWrites.Wait(); werr != nil {
			fmt.Fprintf(stderr, "warning: the data's binary cache was not written (the next run reads the file again): %v\n", werr)
		}
		if uerr := cacheWrites.Unmap(); uerr != nil && err == nil {
			err = uerr
		}
	}()
	c, s, src, err := rf.loadBackground(d.reg, &cacheWrites)
	if err != nil {
		return err
	}
	s.Stepwise = rf.stepwise
	// The bars are loaded, those of cache files mapped outside the heap:
	// see RunMemory.
	_, restore := backtest.RunMemory(cacheWrites.Mapped())
	defer restore()
	// equity.csv, the longest report file, is written while the run goes
	// on (backtest.EquityStream), on the core the replay leaves idle; a
	// run that fails leaves no file.
	dir := reportDir(c.Report)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s.Equity = backtest.NewEquityStream()
	equity := startFile(dir, "equity.csv", s.Equity.WriteCSV)
	defer equity() // on every path: no temporary file is left behind
	started := d.clock.Now()
	p := newProgress(stderr, "backtest", d.clock)
	s.Progress = p.update
	res, err := backtest.Run(ctx, s)
	p.finish()
	if err != nil {
		return err
	}
	backtest.ReportMemory()
	title := instancesTitle(c)
	rep := backtest.NewReport(title, s, res)
	if err := rep.WriteSummary(stdout); err != nil {
		return err
	}
	if err := writeReports(ctx, d, c.Report, rep, s, res, stdout, equity); err != nil {
		return err
	}
	if rf.noStore {
		return nil
	}
	rec, err := openRecorder(ctx, c.Store.Path, src)
	if err != nil {
		return err
	}
	defer rec.close()
	id, err := rec.record(ctx, title, started, instancesParams(c), res.Metrics, c.Report.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recorded run %d in %s (backtest report %d --db %s)\n", id, c.Store.Path, id, c.Store.Path)
	return nil
}

func instancesTitle(c *config.Config) string {
	t := ""
	for i, in := range c.Strategies {
		if i > 0 {
			t += ", "
		}
		t += in.ID + " (" + in.Name + ")"
	}
	return t
}

// reportDir is the report directory rc names.
func reportDir(rc config.Report) string {
	if rc.Dir == "" {
		return "."
	}
	return rc.Dir
}

// startFile writes a report file in the background (writeFile); the
// function returned waits for it and returns its error, as often as it is
// called.
func startFile(dir, name string, write func(io.Writer) error) func() error {
	var err error
	var wg sync.WaitGroup
	wg.Go(func() { err = writeFile(filepath.Join(dir, name), write) })
	return func() error {
		wg.Wait()
		return err
	}
}

// writeReports writes report.json, trades.csv, equity.csv and, unless
// disabled, report.html into the report directory, and prints their paths.
// equity, when not nil, is equity.csv already under way (startFile).
func writeReports(ctx context.Context, d deps, rc config.Report, rep backtest.Report, s backtest.Spec, res *backtest.Result, stdout io.Writer, equity func() error) error {
	dir := reportDir(rc)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	type reportFile struct {
		name  string
		write func(io.Writer) error
	}
	files := []reportFile{
		{"report.json", rep.WriteJSON},
		{"trades.csv", rep.WriteTradesCSV},
		{"equity.csv", func(w io.Writer) error { return backtest.WriteEquityCSV(w, res) }},
	}
	if rc.HTML {
		o := chartOptions(ctx, d)
		files = append(files, reportFile{"report.html", func(w io.Writer) error { return backtest.WriteHTML(w, rep, s, res, o) }})
	}
	fmt.Fprintln(stdout)
	// The files are independent reads of one finished run, so they are
	// written at once (a million-bar equity.csv takes longest); the paths
	// are printed in order, up to the first file that failed.
	waits := make([]func() error, len(files))
	for i, f := range files {
		if f.name == "equity.csv" && equity != nil {
			waits[i] = equity
			continue
		}
		waits[i] = startFile(dir, f.name, f.write)
	}
	errs := make([]error, len(files))
	for i, wait := range waits {
		errs[i] = wait()
	}
	for i, f := range files {
		if errs[i] != nil {
			return errs[i]
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, f.name))
	}
	return nil
}

// writeFile writes through a temporary file and moves it into place
// (replaceFile), so a reader never sees half a report. The file is
// written in whole blocks of fileBlock bytes.
func writeFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	// The temporary file, or after replaceFile the report it replaced.
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, fileBlock)
	if err := write(bw); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { // CreateTemp makes 0600
		return err
	}
	return replaceFile(tmp.Name(), path)
}

// fileBlock is the size of the buffer writeFile writes a report through:
// pieces of up to a block (every report writer's) reach the file in whole
// blocks, each at a multiple of fileBlock, but the last. Linux's page
// cache keeps a file written so in large folios (ext4 since Linux 6.16), which are
// faster to fill and to free than the pages of writes at any offset: a
// million-bar run's 47 MB equity.csv, which its writer hands over some 48
// KB at a time, took 16 ms to write and 4 to 6 ms to unlink (the next run
// removes the report it replaces) written as handed over, and 10 ms and
// under 2 ms in blocks of 1 MiB; copying it into the blocks takes about
// 1.5 ms.
const fileBlock = 1 << 20

// progress draws a progress line on a terminal for runs longer than a
// second, and nothing when stderr is not a terminal.
type progress struct {
	w       io.Writer
	label   string
	tty     bool
	start   time.Time
	shown   bool
	lastPct int
	unit    string // what done and total count: bars, or a sweep's runs
	clock   exchange.Clock
}

func newProgress(w io.Writer, label string, clock exchange.Clock) *progress {
	return &progress{w: w, label: label, tty: isTerminal(w), start: clock.Now(), lastPct: -1, unit: "bars", clock: clock}
}

func (p *progress) update(done, total int) {
	if !p.tty || total == 0 || p.clock.Now().Sub(p.start) < time.Second {
		return
	}
	pct := done * 100 / total
	if pct == p.lastPct {
		return
	}
	p.lastPct, p.shown = pct, true
	const width = 30
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = ' '
		if i < pct*width/100 {
			bar[i] = '='
		}
	}
	fmt.Fprintf(p.w, "\r%s [%s] %3d%% %d/%d %s", p.label, bar, pct, done, total, p.unit)
}

func (p *progress) finish() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
