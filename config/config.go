// Package config loads spotbot's configuration: a YAML file, then
// environment overrides (SPOTBOT_ prefix), then flag overrides, into one
// typed value, validated with errors that name the field path at fault
// (`strategies[1].params.fast: must be < slow`). Secrets never come from
// the YAML: see Credentials.
package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/internal/keys"
	"github.com/spotbot/spotbot/risk"
	"github.com/spotbot/spotbot/strategy"
)

// Modes of the bot.
const (
	ModeLive        = "live"
	ModePaper       = "paper"
	ModePaperReplay = "paper-replay"
	ModeBacktest    = "backtest"
)

// Config is the whole configuration.
type Config struct {
	Mode       string            `koanf:"mode"`
	Exchange   Exchange          `koanf:"exchange"`
	Store      Store             `koanf:"store"`
	Data       Data              `koanf:"data"`
	Account    Account           `koanf:"account"`
	Sim        Sim               `koanf:"sim"`
	Symbols    []Symbol          `koanf:"symbols"`
	Risk       risk.Limits       `koanf:"risk"`
	Strategies []strategy.Config `koanf:"strategies"`
	Log        Log               `koanf:"log"`
	HTTP       HTTP              `koanf:"http"`
	Poll       Poll              `koanf:"poll"`
	Report     Report            `koanf:"report"`
	Daemon     Daemon            `koanf:"daemon"`
	Server     Server            `koanf:"server"`
	Notify     Notify            `koanf:"notify"`

	// set lists the keys the file and the environment set (not the
	// defaults, not flags), for the check of what the mode honours.
	set []string
}

// Exchange configures the REST adapter (live and paper market data).
type Exchange struct {
	BaseURL    string        `koanf:"base_url"`
	KeyHeader  string        `koanf:"key_header"`
	RecvWindow time.Duration `koanf:"recv_window"`
	Timeout    time.Duration `koanf:"timeout"`
	// KeyFile holds the access key and secret, one per line; it must not
	// be readable by group or others. SPOTBOT_API_KEY and
	// SPOTBOT_API_SECRET take precedence.
	KeyFile string `koanf:"key_file"`
	// MaxClockOffset blocks trading when the server clock differs more.
	MaxClockOffset time.Duration `koanf:"max_clock_offset"`
	// RateLimitRetries resends a request the server refused with 429 this
	// many times, each after a whole window of its rate pools.
	RateLimitRetries int `koanf:"rate_limit_retries"`
}

// Store configures the SQLite file.
type Store struct {
	Path string `koanf:"path"`
	Sync string `koanf:"sync"` // normal or full
}

// Data says where historical and replayed klines come from.
type Data struct {
	Source   string  `koanf:"source"` // sample, csv, store, or none (sim-server only)
	Path     string  `koanf:"path"`   // CSV file or folder (csv), database (store)
	Interval string  `koanf:"interval"`
	From     string  `koanf:"from"` // YYYY-MM-DD or RFC 3339; empty for all
	To       string  `koanf:"to"`
	Speed    float64 `koanf:"speed"` // replay speed factor; 0 = as fast as possible
	// ResampleGaps says how a higher interval is built across missing
	// base bars: close (the partial bar closes at its period's end) or
	// merge (base bars merge until one completes a period).
	ResampleGaps string `koanf:"resample_gaps"`
	// Cache is the folder of the binary cache of text data files (see
	// docs/data.md): empty for the user's cache folder's spotbot/bars,
	// CacheOff to read the files every time.
	Cache string `koanf:"cache"`
}

// CacheOff is the data.cache value that disables the cache.
const CacheOff = "off"

// CacheDisabled says whether data.cache turns the cache off (off in any
// case).
func (d Data) CacheDisabled() bool { return strings.EqualFold(d.Cache, CacheOff) }

// The words of data.resample_gaps.
const (
	GapsClose = "close"
	GapsMerge = "merge"
)

// MergeGaps says whether higher intervals merge base bars across gaps.
func (d Data) MergeGaps() bool { return d.ResampleGaps == GapsMerge }

// Account is the starting account of simulated modes.
type Account struct {
	Balances map[string]decimal.Decimal `koanf:"balances"`
	// Quote is the asset equity is measured in: the kill switch's daily
	// loss and drawdown, and a backtest's equity curve.
	Quote string `koanf:"quote"`
}

// Sim configures the simulated exchange's fill model and fees.
type Sim struct {
	Fill        string          `koanf:"fill"`   // trade-through or touch
	Market      string          `koanf:"market"` // next-open or close
	SlippageBps decimal.Decimal `koanf:"slippage_bps"`
	// SlippageTicks worsens taker fills by whole price ticks, after
	// SlippageBps.
	SlippageTicks int              `koanf:"slippage_ticks"`
	MakerFee      *decimal.Decimal `koanf:"maker_fee"` // overrides the symbol rules
	TakerFee      *decimal.Decimal `koanf:"taker_fee"`
	RateLimits    bool             `koanf:"rate_limits"` // apply the spec's budgets in simulated time
	TokenFees     bool             `koanf:"token_fees"`  // pay fees in the platform token when it covers them
	// FeeAsset is where fees are charged: received (the asset received,
	// as the exchange does) or quote (always the quote asset).
	FeeAsset string `koanf:"fee_asset"`
}

// Log configures logging.
type Log struct {
	Level  string `koanf:"level"`  // debug, info, warn, error
	Format string `koanf:"format"` // text or json
}

// HTTP configures the observability listener (off when Listen is empty).
type HTTP struct {
	Listen string `koanf:"listen"`
}

// Poll configures REST polling in live and paper modes.
type Poll struct {
	KlineDelay time.Duration `koanf:"kline_delay"` // after a bar closes
	Orders     time.Duration `koanf:"orders"`      // open-order cadence
	// Price is how often the last trade price of each symbol with exits
	// is polled, so stops trigger between bars; 0 checks exits on bars
	// only.
	Price time.Duration `koanf:"price"`
}

// Report configures backtest reports.
type Report struct {
	Dir  string `koanf:"dir"`
	HTML bool   `koanf:"html"`
}

// Defaults is the configuration every file is laid over.
func Defaults() map[string]any {
	return map[string]any{
		"mode":                        ModePaperReplay,
		"exchange.key_header":         exchange.DefaultKeyHeader,
		"exchange.recv_window":        "5s",
		"exchange.timeout":            "10s",
		"exchange.max_clock_offset":   "2s",
		"exchange.rate_limit_retries": 3,
		"store.path":                  "spotbot.db",
		"store.sync":                  "normal",
		"data.source":                 "sample",
		"account.quote":               "USDT",
		"data.interval":               "1h",
		"data.resample_gaps":          GapsClose,
		"sim.fill":                    "trade-through",
		"sim.market":                  "next-open",
		"sim.fee_asset":               FeeReceived,
		"log.level":                   "info",
		"log.format":                  "text",
		"poll.kline_delay":            "2s",
		"poll.orders":                 "5s",
		"poll.price":                  "0s",
		"report.dir":                  ".",
		"report.html":                 true,
		"daemon.unknown_orders":       UnknownAdopt,
		"daemon.shutdown_timeout":     "10s",
		"daemon.clock_sync":           "10m",
		"server.limits":               true,
	}
}

// EnvPrefix is the prefix of environment overrides. A double underscore
// separates levels, so SPOTBOT_RISK__MAX_DRAWDOWN sets risk.max_drawdown
// and SPOTBOT_EXCHANGE__BASE_URL sets exchange.base_url.
const EnvPrefix = "SPOTBOT_"

// secretKeys may never appear in a configuration file.
var secretKeys = []string{"secret", "api_secret", "secret_key", "api_key", "key"}

// secretIn returns the path of the first secret-looking key in the file's
// tree (lists included, as strategies[0].params.secret), and what to use
// instead, or "" when there is none. A sim-server account's api_key
// (server.accounts[N].api_key) is allowed: it is the access key id, which
// travels in a header of every request; its secret comes from secret_env
// or secret_file.
func secretIn(path string, v any) (string, string) {
	switch v := v.(type) {
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(v)) {
			p := name
			if path != "" {
				p = path + "." + name
			}
			if slices.Contains(secretKeys, name) && !isServerAccountKeyID(path, name) {
				if strings.HasPrefix(p, "server.accounts[") {
					return p, "give the account's secret_env or secret_file"
				}
				return p, "use SPOTBOT_API_KEY/SPOTBOT_API_SECRET or exchange.key_file"
			}
			if found, instead := secretIn(p, v[name]); found != "" {
				return found, instead
			}
		}
	case []any:
		for i, e := range v {
			if found, instead := secretIn(fmt.Sprintf("%s[%d]", path, i), e); found != "" {
				return found, instead
			}
		}
	}
	return "", ""
}

// isServerAccountKeyID tells server.accounts[N] and api_key apart from
// every other place a key named api_key could be.
func isServerAccountKeyID(parent, name string) bool {
	idx, ok := strings.CutPrefix(parent, "server.accounts[")
	if !ok || name != "api_key" || !strings.HasSuffix(idx, "]") {
		return false
	}
	_, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
	return err == nil
}

// topLevel lists the configuration's top-level keys, from Config's tags.
func topLevel() map[string]bool {
	out := map[string]bool{}
	for _, k := range keys.Of(reflect.TypeOf(Config{})) {
		out[k] = true
	}
	return out
}

// envPath maps an environment variable name (without the SPOTBOT_ prefix)
// to a configuration path, or "" when the variable is not configuration:
// the credentials, and variables of other spotbot tools (such as
// SPOTBOT_SIM_SECRET) whose first level is not a configuration section.
// Levels are lower-cased except map keys that name assets
// (SPOTBOT_ACCOUNT__BALANCES__BTC sets account.balances.BTC).
func envPath(key string) string {
	if key == "API_KEY" || key == "API_SECRET" {
		return "" // credentials, read by Credentials
	}
	parts := strings.Split(key, "__")
	parts[0] = strings.ToLower(parts[0])
	if !topLevel()[parts[0]] {
		return ""
	}
	for i := 1; i < len(parts); i++ {
		if i == 2 && parts[0] == "account" && parts[1] == "balances" {
			continue
		}
		parts[i] = strings.ToLower(parts[i])
	}
	return strings.Join(parts, ".")
}

// Load reads YAML text (may be empty), then environment variables from
// environ (os.Environ() in the commands, a fixed list in tests), then
// overrides (flag values keyed by path, e.g. "data.from"), and validates.
// reg builds each strategy instance to validate its parameters.
func Load(yamlText []byte, environ []string, overrides map[string]any, reg *strategy.Registry) (*Config, error) {
	c, err := Inspect("", yamlText, environ, overrides, reg)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Inspect loads as Load does and reports every problem at once, one a
// line, each naming its field path and its source: the line of file (the
// name of the YAML text; without one, lines are not given) or the
// environment variable. It also returns the configuration as far as it
// decoded, for further checks (`bot check`); that is nil when the text
// does not parse or holds a secret.
func Inspect(file string, yamlText []byte, environ []string, overrides map[string]any, reg *strategy.Registry) (*Config, error) {
	k := koanf.New(".")
	if err := k.Load(confmap.Provider(Defaults(), "."), nil); err != nil {
		return nil, err
	}
	user, err := userLayer(yamlText, environ)
	if err != nil {
		return nil, err
	}
	if err := k.Merge(user); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(overrides) > 0 {
		if err := k.Load(confmap.Provider(overrides, "."), nil); err != nil {
			return nil, fmt.Errorf("config: flags: %w", err)
		}
	}
	var c Config
	c.set = user.Keys()
	slices.Sort(c.set)
	var probs []problem
	var failed []string
	err = k.UnmarshalWithConf("", &c, koanf.UnmarshalConf{DecoderConfig: &mapstructure.DecoderConfig{
		TagName:          "koanf",
		ErrorUnused:      true,
		WeaklyTypedInput: true, // environment values arrive as text
		Result:           &c,
		DecodeHook:       mapstructure.ComposeDecodeHookFunc(yamlTimeHook, strategy.DecodeHook()),
	}})
	if err != nil {
		probs, failed = decodeProblems(err)
	}
	c.normalise()
	o := newOrigin(file, yamlText, environ, overrides)
	return &c, o.annotate(probs, c.Validate(reg), failed)
}

// normalise lower-cases the enumerations, which are read regardless of
// case (log.level: DEBUG).
func (c *Config) normalise() {
	for _, f := range []*string{&c.Mode, &c.Log.Level, &c.Log.Format, &c.Sim.Fill, &c.Sim.Market, &c.Sim.FeeAsset, &c.Store.Sync,
		&c.Data.Source, &c.Data.ResampleGaps, &c.Daemon.UnknownOrders} {
		*f = strings.ToLower(*f)
	}
}

// LoadFile reads a YAML file and then the process environment.
func LoadFile(path string, overrides map[string]any, reg *strategy.Registry) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Inspect(path, b, os.Environ(), overrides, reg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

var timeType = reflect.TypeOf(time.Time{})

// yamlTimeHook turns the timestamps YAML makes of unquoted dates back into
// text for string fields (data.from: 2021-01-01).
func yamlTimeHook(from, to reflect.Type, data any) (any, error) {
	if from != timeType || to.Kind() != reflect.String {
		return data, nil
	}
	t := data.(time.Time).UTC()
	if t.Equal(t.Truncate(24 * time.Hour)) {
		return t.Format("2006-01-02"), nil
	}
	return t.Format(time.RFC3339), nil
}

// Validate checks the configuration, naming the field path of the first
// problem.
func (c *Config) Validate(reg *strategy.Registry) error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
	}
	switch c.Mode {
	case ModeLive, ModePaper, ModePaperReplay, ModeBacktest, ModeSimServer:
	default:
		add("mode", "%smust be live, paper, paper-replay, backtest or sim-server", shown(c.Mode))
	}
	if c.Mode == ModeLive || c.Mode == ModePaper {
		if c.Exchange.BaseURL == "" {
			add("exchange.base_url", "required in %s mode", c.Mode)
		}
	}
	if c.Exchange.RecvWindow <= 0 || c.Exchange.RecvWindow >= exchange.MaxRecvWindow {
		add("exchange.recv_window", "%s must be above 0 and below 60s", c.Exchange.RecvWindow)
	}
	if c.Exchange.Timeout <= 0 {
		add("exchange.timeout", "must be positive")
	}
	if c.Store.Sync != "normal" && c.Store.Sync != "full" {
		add("store.sync", "%smust be normal or full", shown(c.Store.Sync))
	}
	switch c.Data.Source {
	case "sample":
	case "csv", "store":
		if c.Data.Path == "" {
			add("data.path", "required for source %s", c.Data.Source)
		}
	case "none":
		// Only a sim-server can run without bars (its clock then runs in
		// real time); every other mode reads them.
		if c.Mode != ModeSimServer {
			add("data.source", "none is only for mode sim-server; %s mode needs bars: sample, csv or store", c.Mode)
		}
	default:
		if c.Mode == ModeSimServer {
			add("data.source", "%smust be sample, csv, store or none", shown(c.Data.Source))
		} else {
			add("data.source", "%smust be sample, csv or store", shown(c.Data.Source))
		}
	}
	if _, err := exchange.ParseInterval(c.Data.Interval); err != nil {
		add("data.interval", "%v", err)
	}
	if _, err := c.Data.Range(); err != nil {
		errs = append(errs, err)
	}
	if g := c.Data.ResampleGaps; g != GapsClose && g != GapsMerge {
		add("data.resample_gaps", "%smust be %s or %s", shown(g), GapsClose, GapsMerge)
	}
	if c.Data.Speed < 0 {
		add("data.speed", "must not be negative")
	}
	if d := c.Data.Cache; d != "" && !c.Data.CacheDisabled() {
		if st, err := os.Stat(d); err == nil && !st.IsDir() {
			add("data.cache", "%s is a file, not a folder (a folder, or off)", d)
		}
	}
	funded := false
	for a, v := range c.Account.Balances {
		if v.IsNegative() {
			add("account.balances."+a, "must not be negative")
		}
		funded = funded || v.IsPositive()
	}
	if c.Mode == ModeBacktest && !funded {
		add("account.balances", "a backtest needs a starting balance, for example account.balances.USDT: 10000 (without one no order can be placed)")
	}
	errs = append(errs, c.Sim.problems()...)
	errs = append(errs, symbolProblems(c.Symbols)...)
	if err := c.Risk.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("risk.%w", err))
	}
	ids := map[string]int{}
	var withExits []strategy.Config // the instances whose symbols poll.price polls
	for i, s := range c.Strategies {
		p := fmt.Sprintf("strategies[%d]", i)
		if err := s.Validate(); err != nil {
			errs = append(errs, prefixEach(p, err)...)
			continue
		}
		if j, dup := ids[s.ID]; dup {
			add(p+".id", "%q already used by strategies[%d]", s.ID, j)
		}
		ids[s.ID] = i
		if reg != nil {
			built, err := reg.New(s)
			switch {
			case err != nil && strings.HasPrefix(err.Error(), "unknown strategy"):
				add(p+".name", "%v", err)
			case err != nil:
				errs = append(errs, fmt.Errorf("%s.%w", p, err))
			default:
				errs = append(errs, schedulesOf(p, s, built)...)
				if hasExits(s, built) {
					withExits = append(withExits, s)
				}
			}
		} else if hasExits(s, nil) { // without a registry, the configured exits
			withExits = append(withExits, s)
		}
	}
	if l := c.HTTP.Listen; l != "" {
		if _, _, err := net.SplitHostPort(l); err != nil {
			add("http.listen", "%v", err)
		}
	}
	if c.Account.Quote == "" || strings.ToUpper(c.Account.Quote) != c.Account.Quote {
		add("account.quote", "%q must be an asset name in capitals, such as USDT", c.Account.Quote)
	}
	if c.Exchange.RateLimitRetries < 0 {
		add("exchange.rate_limit_retries", "%d must not be negative", c.Exchange.RateLimitRetries)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		add("log.level", "%smust be debug, info, warn or error", shown(c.Log.Level))
	}
	if c.Log.Format != "text" && c.Log.Format != "json" {
		add("log.format", "%smust be text or json", shown(c.Log.Format))
	}
	errs = append(errs, c.unhonoured()...)
	errs = append(errs, c.Poll.validate()...)
	if err := c.pricePollProblem(withExits); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.Daemon.validate()...)
	errs = append(errs, c.Server.validate(c.Mode)...)
	errs = append(errs, c.Notify.validate()...)
	return errors.Join(errs...)
}

// prefixEach puts the path prefix p before each problem of err (several
// when it joins them, as an instance's exits and protections do).
func prefixEach(p string, err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{fmt.Errorf("%s.%w", p, err)}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, prefixEach(p, e)...)
	}
	return out
}

// schedulesOf checks an instance's schedules as the runtime would parse
// them at start. A schedule set on a strategy that has none is an error,
// not ignored: the author expects runs that would never happen.
func schedulesOf(p string, s strategy.Config, built strategy.Strategy) []error {
	var errs []error
	sch, ok := built.(strategy.Scheduler)
	if !ok {
		if s.Schedule != "" {
			if err := strategy.ParseSchedule(s.Schedule); err != nil {
				errs = append(errs, fmt.Errorf("%s.schedule: %q: %w", p, s.Schedule, err))
			}
			errs = append(errs, fmt.Errorf("%s.schedule: strategy %s has no schedules; remove schedule", p, s.Name))
		}
		return errs
	}
	for _, x := range sch.Schedules() {
		if err := strategy.ParseSchedule(x.Spec); err != nil {
			errs = append(errs, fmt.Errorf("%s.schedule: %q (%s): %w", p, x.Spec, x.Name, err))
		}
	}
	return errs
}

// Range returns the data.from/data.to window; zero times are open ends.
func (d Data) Range() ([2]time.Time, error) {
	var out [2]time.Time
	for i, v := range []string{d.From, d.To} {
		if v == "" {
			continue
		}
		t, err := ParseTime(v)
		if err != nil {
			return out, fmt.Errorf("data.%s: %w", [2]string{"from", "to"}[i], err)
		}
		out[i] = t
	}
	if !out[0].IsZero() && !out[1].IsZero() && !out[1].After(out[0]) {
		return out, errors.New("data.to: must be after data.from")
	}
	return out, nil
}

// ParseTime accepts YYYY-MM-DD (midnight UTC) or RFC 3339.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither YYYY-MM-DD nor RFC 3339", s)
	}
	return t.UTC(), nil
}
