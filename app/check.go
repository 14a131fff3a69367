package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// invalidConfig lists a configuration's problems. It unwraps to ErrUsage
// so the exit code is 2, as for any input the command cannot act on.
type invalidConfig struct {
	path     string
	problems []string
}

func (e *invalidConfig) Error() string {
	return fmt.Sprintf("%s: %d problem(s):\n  %s", e.path, len(e.problems), strings.Join(e.problems, "\n  "))
}

func (e *invalidConfig) Unwrap() error { return ErrUsage }

// newCheckCmd is `bot check`.
func newCheckCmd(prog string, d deps) *cobra.Command {
	var cfgPath string
	c := &cobra.Command{
		Use:   "check --config FILE",
		Short: "Validate a configuration without trading",
		Long: `check validates a configuration without trading: every field, each strategy
instance built with its parameters and schedules, the replayed data
(paper-replay, backtest), the store's folder, the listen address and, in
live mode, that credentials are present (their values are never printed).
Prints "ok" and a summary, or every problem by field path; exits 2 when
the configuration is invalid. A bot sim-server configuration is checked as
sim-server would build it.`,
		Example: "  " + prog + " check --config configs/live.yaml\n  " + prog + " check --config configs/sim.yaml",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return checkFile(c.Context(), d.reg, cfgPath, c.OutOrStdout(), d.environ())
		},
	}
	c.Flags().StringVar(&cfgPath, "config", "", "configuration file (required)")
	return c
}

// checkFile is `bot check --config cfgPath`.
func checkFile(ctx context.Context, reg *strategy.Registry, cfgPath string, stdout io.Writer, environ []string) error {
	if cfgPath == "" {
		return fmt.Errorf("%w: check: --config FILE is required", ErrUsage)
	}
	text, err := os.ReadFile(cfgPath)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	cfg, err := config.Inspect(cfgPath, text, environ, nil, reg)
	if err != nil {
		problems := problemsOf(err)
		if cfg != nil && cfg.Mode != config.ModeSimServer {
			// Every problem in one pass: the checks beyond the fields
			// too, on what decoded, except the replayed data when the
			// fields that select it are wrong.
			_, more := checkConfig(cfg, environ, !mentions(problems, "data.", "strategies["))
			problems = append(problems, more...)
		}
		return &invalidConfig{path: cfgPath, problems: problems}
	}
	if cfg.Mode == config.ModeSimServer {
		// Built as sim-server builds it, without listening: secrets,
		// recorded exchange info and replayed bars all read.
		run, err := buildSimServer(ctx, cfg, environ)
		if err != nil {
			return &invalidConfig{path: cfgPath, problems: problemsOf(err)}
		}
		fmt.Fprintf(stdout, "%s: ok (a bot sim-server configuration)\n%s\n", cfgPath, run.source)
		return nil
	}
	sum, problems := checkConfig(cfg, environ, true)
	if len(problems) > 0 {
		return &invalidConfig{path: cfgPath, problems: problems}
	}
	fmt.Fprintf(stdout, "%s: ok\n", cfgPath)
	return sum.print(stdout)
}

// summary is what a valid configuration runs.
type summary struct {
	cfg         *config.Config
	credentials string
}

// checkConfig checks a loaded configuration beyond its fields (which
// config.Validate checked, strategy parameters and schedules included),
// returning every problem as "field.path: what is wrong". withData checks
// that the replayed data has bars for every symbol.
func checkConfig(cfg *config.Config, environ []string, withData bool) (summary, []string) {
	sum := summary{cfg: cfg, credentials: "not needed"}
	var problems []string
	add := func(path string, err error) { problems = append(problems, path+": "+err.Error()) }
	if withData && (cfg.Mode == config.ModePaperReplay || cfg.Mode == config.ModeBacktest) {
		if syms := strategy.SymbolsOf(cfg.Strategies); len(syms) > 0 {
			if err := checkData(cfg, syms); err != nil {
				add("data", err)
			}
		}
	}
	if cfg.Mode != config.ModeBacktest {
		if dir := filepath.Dir(cfg.Store.Path); dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				add("store.path", fmt.Errorf("folder %s does not exist", dir))
			}
		}
	}
	if cfg.Mode == config.ModeLive {
		c := *cfg
		c.Exchange.KeyFile = expandHome(c.Exchange.KeyFile, environ)
		key, secret, err := c.Credentials(environ)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case key.IsZero() || secret.IsZero():
			problems = append(problems, "credentials: empty key or secret")
		case envHas(environ, config.EnvPrefix+"API_KEY"):
			sum.credentials = "present (" + config.EnvPrefix + "API_KEY, " + config.EnvPrefix + "API_SECRET)"
		default:
			sum.credentials = "present (exchange.key_file " + cfg.Exchange.KeyFile + ")"
		}
	}
	return sum, problems
}

// checkData loads the bars a replay would use, so a missing file or an
// interval the sample lacks shows now rather than at start.
func checkData(cfg *config.Config, syms []string) error {
	iv, err := exchange.ParseInterval(cfg.Data.Interval)
	if err != nil {
		return err
	}
	rng, err := cfg.Data.Range()
	if err != nil {
		return err
	}
	_, err = session.LoadSeries(cfg.Data, iv, syms, rng) // the compact form: check reads the data, it keeps none
	return err
}

// problemsOf splits a joined validation error into one problem a line,
// without the "config: " prefix the loader adds to decoding errors.
func problemsOf(err error) []string {
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// mentions says a problem concerns a path starting with one of prefixes.
func mentions(problems []string, prefixes ...string) bool {
	for _, p := range problems {
		for _, pre := range prefixes {
			if strings.HasPrefix(p, pre) {
				return true
			}
		}
	}
	return false
}

func envHas(environ []string, name string) bool {
	for _, kv := range environ {
		if n, v, _ := strings.Cut(kv, "="); n == name && v != "" {
			return true
		}
	}
	return false
}

func (s summary) print(w io.Writer) error {
	c := s.cfg
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	mode := c.Mode
	switch c.Mode {
	case config.ModeLive, config.ModePaper:
		mode += " (" + c.Exchange.BaseURL + ")"
	default:
		mode += " (data: " + c.Data.Source
		if c.Data.Path != "" {
			mode += " " + c.Data.Path
		}
		mode += " " + c.Data.Interval + ")"
	}
	fmt.Fprintf(tw, "mode:\t%s\n", mode)
	fmt.Fprintf(tw, "strategies:\t%d\n", len(c.Strategies))
	for _, in := range c.Strategies {
		what := strings.Join(in.Symbols, ",")
		if in.Interval != "" {
			what += " " + in.Interval
		}
		if in.Schedule != "" {
			what = strings.TrimSpace(what + " schedule " + in.Schedule)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", in.ID, in.Name, strings.TrimSpace(what))
	}
	syms := strategy.SymbolsOf(c.Strategies)
	if len(syms) == 0 {
		syms = []string{"none"}
	}
	fmt.Fprintf(tw, "symbols:\t%s\n", strings.Join(syms, ", "))
	if c.Mode != config.ModeBacktest {
		fmt.Fprintf(tw, "store:\t%s\n", c.Store.Path)
		listen := "off"
		if c.HTTP.Listen != "" {
			listen = c.HTTP.Listen
		}
		fmt.Fprintf(tw, "http:\t%s\n", listen)
	}
	fmt.Fprintf(tw, "credentials:\t%s\n", s.credentials)
	return tw.Flush()
}
