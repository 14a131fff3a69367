package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
)

// modeRule says which modes honour the keys under prefix, and why the
// others do not.
type modeRule struct {
	prefix string
	modes  []string
	why    string
}

// modeRules returns what each mode honours, most specific prefix first. A
// key the configuration file or the environment sets that the mode cannot
// honour is an error (Validate), never silently ignored: a slippage
// configured for a live bot, or a replay speed for a backtest, says the
// author expects something that will not happen.
func modeRules() []modeRule {
	simulatedModes, replayModes, exchangeModes, daemonModes := modesWhere(Config.Simulated), modesWhere(Config.Replays),
		modesWhere(Config.ReachesExchange), modesWhere(Config.RunsDaemon)
	return []modeRule{
		{"data.speed", []string{ModePaperReplay, ModeSimServer}, "only paper-replay and the simulated server pace a replay"},
		{"data.resample_gaps", []string{ModePaperReplay, ModeBacktest}, "only the strategy runtime builds higher intervals from replayed bars; the simulated server's klines close at period ends"},
		{"data.interval", []string{ModePaper, ModePaperReplay, ModeBacktest, ModeSimServer}, "live trading polls each strategy's own interval"},
		{"data.", replayModes, "only paper-replay, backtest and the simulated server replay data"},
		{"symbols", []string{ModePaperReplay, ModeBacktest}, "live and paper trade by the exchange's rules, the simulated server by server.symbols"},
		{"sim.", simulatedModes, "only the simulated exchange has a fill model"},
		{"account.balances", []string{ModePaper, ModePaperReplay, ModeBacktest}, "the live account's balances are the exchange's, the simulated server's are under server.accounts"},
		{"server.", []string{ModeSimServer}, "only bot sim-server serves"},
		{"exchange.", exchangeModes, "only live and paper reach the exchange"},
		{"poll.", exchangeModes, "only live and paper poll the exchange"},
		{"daemon.", daemonModes, "only bot run runs a daemon"},
		{"http.", daemonModes, "only bot run serves the observability listener"},
		{"report.", []string{ModeBacktest}, "only backtests write reports"},
	}
}

// unhonoured lists the keys set by the file or the environment that the
// configured mode cannot honour.
func (c *Config) unhonoured() []error {
	var errs []error
	for _, key := range c.set {
		for _, r := range modeRules() {
			if !strings.HasPrefix(key, r.prefix) {
				continue
			}
			if !slices.Contains(r.modes, c.Mode) {
				errs = append(errs, fmt.Errorf("%s: not used in %s mode (%s); remove it or change mode", key, c.Mode, r.why))
			}
			break
		}
	}
	return errs
}

// userLayer is what the YAML text and then the environment say, parsed
// once: Inspect lays it over the defaults, its keys are what the check of
// the mode's options looks at, and ModeOf reads the mode from it. The
// file's layer is searched for secrets before the environment joins; a
// secret is an error that still returns the layer (ModeOf needs only the
// mode).
func userLayer(yamlText []byte, environ []string) (*koanf.Koanf, error) {
	u := koanf.New(".")
	if len(yamlText) > 0 {
		if err := u.Load(rawbytes.Provider(yamlText), yaml.Parser()); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	var secret error
	if key, instead := secretIn("", u.Raw()); key != "" {
		secret = fmt.Errorf("config: %s: secrets must not be in the configuration file; %s", key, instead)
	}
	if err := u.Load(envProvider(environ), nil); err != nil {
		return nil, fmt.Errorf("config: environment: %w", err)
	}
	return u, secret
}

// envProvider reads SPOTBOT_ variables from environ as configuration paths.
func envProvider(environ []string) *env.Env {
	return env.Provider(".", env.Opt{
		Prefix:      EnvPrefix,
		EnvironFunc: func() []string { return environ },
		TransformFunc: func(key, v string) (string, any) {
			return envPath(strings.TrimPrefix(key, EnvPrefix)), v
		},
	})
}

// The capabilities of the configured mode: commands ask these instead of
// comparing mode strings.

// Simulated says orders go to the simulated exchange (paper, paper-replay,
// backtest, the simulated server).
func (c Config) Simulated() bool { return c.Mode != ModeLive }

// Replays says the bars come from data.source (paper-replay, backtest,
// the simulated server).
func (c Config) Replays() bool {
	return c.Mode == ModePaperReplay || c.Mode == ModeBacktest || c.Mode == ModeSimServer
}

// ReachesExchange says the session talks to exchange.base_url (live: the
// trading port; paper: public market data).
func (c Config) ReachesExchange() bool { return c.Mode == ModeLive || c.Mode == ModePaper }

// RunsDaemon says `bot run` runs the configuration (live, paper,
// paper-replay).
func (c Config) RunsDaemon() bool {
	return c.Mode == ModeLive || c.Mode == ModePaper || c.Mode == ModePaperReplay
}

// modesWhere lists the modes with a capability.
func modesWhere(has func(Config) bool) []string {
	var out []string
	for _, m := range []string{ModeLive, ModePaper, ModePaperReplay, ModeBacktest, ModeSimServer} {
		if has(Config{Mode: m}) {
			out = append(out, m)
		}
	}
	return out
}

// ModeOf is the mode a configuration text selects, with the environment
// and the defaults laid over it, without validating anything else: a
// command refuses a configuration of another mode before listing its
// problems. Text that does not parse selects the default mode; Load
// reports the error.
func ModeOf(yamlText []byte, environ []string) string {
	if u, _ := userLayer(yamlText, environ); u != nil && u.Exists("mode") {
		return strings.ToLower(u.String("mode"))
	}
	return strings.ToLower(Defaults()["mode"].(string))
}
