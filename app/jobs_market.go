package app

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// jobMarket is what a job runs against.
type jobMarket struct {
	port      exchange.Trader
	events    exchange.EventSource // the simulator's order events; nil live
	clock     strategy.Clock
	base      exchange.Interval // the runtime's base interval; empty live
	history   map[strategy.Feed][]exchange.Kline
	simulated bool
	describe  string
}

// fixedClock is the time of a simulated job run: the end of its data.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// dustQuote and dustToken are the assets the simulated exchange values
// dust in and converts it to (sim.Options defaults).
const (
	dustQuote = "USDT"
	dustToken = "TOK"
)

// market builds the port, clock and history of the configured mode.
func (j *jobRun) market(ctx context.Context, sc strategy.Config) (*jobMarket, error) {
	cfg := j.cfg
	iv, err := exchange.ParseInterval(cfg.Data.Interval)
	if err != nil {
		return nil, fmt.Errorf("data.interval: %w", err)
	}
	bars := j.barsNeeded(sc, iv)
	switch cfg.Mode {
	case config.ModePaperReplay:
		return j.replayMarket(ctx, sc, iv, bars)
	case config.ModePaper:
		client, err := j.client(false)
		if err != nil {
			return nil, err
		}
		return j.paperMarket(ctx, client, sc, iv, bars)
	case config.ModeLive:
		client, err := j.client(true)
		if err != nil {
			return nil, err
		}
		return j.liveMarket(ctx, client, sc, bars)
	}
	return nil, fmt.Errorf("jobs run: mode: %q is not a trading mode", cfg.Mode)
}

// barsNeeded is how many base bars the instance's warm-up needs, at least
// two so every feed has a last price.
func (j *jobRun) barsNeeded(sc strategy.Config, base exchange.Interval) int {
	warm := 0
	if s, err := j.reg.New(sc); err == nil {
		if w, ok := s.(strategy.WarmUpper); ok {
			warm = w.WarmUp()
		}
	}
	ratio := 1
	if iv, err := sc.ParsedInterval(); err == nil && sc.Interval != "" && base.Duration() > 0 && iv.Duration() > base.Duration() {
		ratio = int(iv.Duration() / base.Duration())
	}
	return max(warm+1, 2) * ratio
}

// pricingSymbols are the markets that price the account for dust: each
// held asset against USDT, and the token.
func pricingSymbols(c *config.Config) []string {
	var out []string
	for a := range c.Account.Balances {
		if a != dustQuote {
			out = append(out, a+dustQuote)
		}
	}
	out = append(out, dustToken+dustQuote)
	sort.Strings(out)
	return out
}

// replayMarket is the simulated exchange at the end of data.source: the
// instance's symbols must have data; the account's other assets and the
// token are priced where the source has them.
func (j *jobRun) replayMarket(ctx context.Context, sc strategy.Config, iv exchange.Interval, n int) (*jobMarket, error) {
	cfg := j.cfg
	rng, err := cfg.Data.Range()
	if err != nil {
		return nil, err
	}
	data := map[string][]exchange.Kline{}
	for _, sym := range sc.Symbols {
		got, err := session.LoadData(cfg.Data, iv, []string{sym}, rng)
		if err != nil {
			return nil, fmt.Errorf("jobs run: %w", err)
		}
		data[sym] = got[sym]
	}
	// One CSV file holds one symbol: it cannot price the others.
	if st, err := os.Stat(cfg.Data.Path); cfg.Data.Source != "csv" || err == nil && st.IsDir() {
		for _, sym := range pricingSymbols(cfg) {
			if _, ok := data[sym]; ok {
				continue
			}
			got, err := session.LoadData(cfg.Data, iv, []string{sym}, rng)
			if err != nil {
				// Dust of an unpriced asset is reported not convertible.
				j.log.Info("no data to price an asset for dust", "symbol", sym, "err", err)
				continue
			}
			data[sym] = got[sym]
		}
	}
	var end time.Time
	var rules []exchange.SymbolInfo
	for _, sym := range sortedKeys(data) {
		ks := data[sym]
		if t := iv.Next(ks[len(ks)-1].OpenTime); t.After(end) {
			end = t
		}
		info, err := session.SymbolRules(cfg.Symbols, sym, ks)
		if err != nil {
			return nil, fmt.Errorf("jobs run: %w", err)
		}
		rules = append(rules, info)
		data[sym] = ks[max(0, len(ks)-n):]
	}
	x, err := j.newSim(ctx, rules, data, iv)
	if err != nil {
		return nil, err
	}
	src := cfg.Data.Source
	if cfg.Data.Path != "" {
		src += " " + cfg.Data.Path
	}
	return &jobMarket{port: x.Master(), events: x.Master(), clock: fixedClock{end}, base: iv, history: baseFeeds(data, iv), simulated: true,
		describe: "paper-replay (simulated account, at the end of " + src + " " + cfg.Data.Interval + ")"}, nil
}

// paperMarket is the simulated exchange priced from the exchange's public
// klines, with its symbol rules.
func (j *jobRun) paperMarket(ctx context.Context, client *exchange.Client, sc strategy.Config, iv exchange.Interval, n int) (*jobMarket, error) {
	info, err := client.ExchangeInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs run: exchange info: %w", err)
	}
	listed := map[string]exchange.SymbolInfo{}
	for _, s := range info.Symbols {
		listed[s.Symbol] = s
	}
	want := map[string]bool{}
	for _, sym := range sc.Symbols {
		if _, ok := listed[sym]; !ok {
			return nil, fmt.Errorf("jobs run: %s: symbol %s is not listed by the exchange", sc.ID, sym)
		}
		want[sym] = true
	}
	for _, sym := range pricingSymbols(j.cfg) {
		if _, ok := listed[sym]; ok {
			want[sym] = true
		}
	}
	data := map[string][]exchange.Kline{}
	var rules []exchange.SymbolInfo
	now := j.clock.Now()
	for _, sym := range sortedKeys(want) {
		ks, err := closedKlines(ctx, client, sym, iv, n, now)
		if err != nil {
			return nil, err
		}
		if len(ks) > 0 {
			data[sym] = ks
		}
		rules = append(rules, listed[sym])
	}
	x, err := j.newSim(ctx, rules, data, iv)
	if err != nil {
		return nil, err
	}
	if now.After(x.Now()) {
		x.SetTime(now)
	}
	return &jobMarket{port: x.Master(), events: x.Master(), clock: j.clock, base: iv, history: baseFeeds(data, iv), simulated: true,
		describe: "paper (simulated account, prices from " + j.cfg.Exchange.BaseURL + ")"}, nil
}

// liveMarket is the exchange itself; history comes from its klines.
func (j *jobRun) liveMarket(ctx context.Context, client *exchange.Client, sc strategy.Config, n int) (*jobMarket, error) {
	m := &jobMarket{port: client, clock: j.clock, history: map[strategy.Feed][]exchange.Kline{},
		describe: "live (" + j.cfg.Exchange.BaseURL + ")"}
	feeds, err := sc.Feeds()
	if err != nil && len(sc.Symbols) > 0 {
		return nil, err
	}
	now := j.clock.Now()
	for _, f := range feeds {
		ks, err := closedKlines(ctx, client, f.Symbol, f.Interval, n, now)
		if err != nil {
			return nil, err
		}
		m.history[f] = ks
	}
	return m, nil
}

// closedKlines returns up to n of the latest klines closed by now.
func closedKlines(ctx context.Context, client *exchange.Client, sym string, iv exchange.Interval, n int, now time.Time) ([]exchange.Kline, error) {
	ks, err := client.Klines(ctx, exchange.KlinesRequest{Symbol: sym, Interval: iv, Limit: min(n+1, 500)})
	if err != nil {
		return nil, fmt.Errorf("jobs run: klines of %s: %w", sym, err)
	}
	for len(ks) > 0 && iv.Next(ks[len(ks)-1].OpenTime).After(now) {
		ks = ks[:len(ks)-1]
	}
	return ks[max(0, len(ks)-n):], nil
}

// client builds the REST client, signed when trading live.
func (j *jobRun) client(signed bool) (*exchange.Client, error) {
	cfg := j.cfg
	opts := []exchange.Option{exchange.WithBaseURL(cfg.Exchange.BaseURL), exchange.WithKeyHeader(cfg.Exchange.KeyHeader),
		exchange.WithRecvWindow(cfg.Exchange.RecvWindow), exchange.WithTimeout(cfg.Exchange.Timeout),
		exchange.WithRateLimitRetries(cfg.Exchange.RateLimitRetries), exchange.WithClock(j.clock), exchange.WithLogger(j.log)}
	if signed {
		c := *cfg
		c.Exchange.KeyFile = expandHome(c.Exchange.KeyFile, j.environ)
		key, secret, err := c.Credentials(j.environ)
		if err != nil {
			return nil, err
		}
		opts = append(opts, exchange.WithCredentials(key, secret))
	}
	client, err := exchange.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("exchange: %w", err)
	}
	return client, nil
}

// newSim builds the simulated exchange of the configuration's sim
// section, funded from account.balances and fed data. A job has no next
// bar, so market orders fill at once at the last close.
func (j *jobRun) newSim(ctx context.Context, rules []exchange.SymbolInfo, data map[string][]exchange.Kline, iv exchange.Interval) (*sim.Exchange, error) {
	fill, err := session.FillFromConfig(j.cfg.Sim)
	if err != nil {
		return nil, fmt.Errorf("jobs run: %w", err)
	}
	var start time.Time
	for _, ks := range data {
		if start.IsZero() || ks[0].OpenTime.Before(start) {
			start = ks[0].OpenTime
		}
	}
	x, err := session.NewSim(ctx, session.Venue{Fill: fill, Start: start, Rules: rules, Balances: j.cfg.Account.Balances,
		Immediate: true, Retention: session.KeepRun})
	if err != nil {
		return nil, fmt.Errorf("jobs run: %w", err)
	}
	if err := simserver.FeedAll(x, data, iv); err != nil {
		return nil, fmt.Errorf("jobs run: %w", err)
	}
	return x, nil
}

func baseFeeds(data map[string][]exchange.Kline, iv exchange.Interval) map[strategy.Feed][]exchange.Kline {
	out := make(map[strategy.Feed][]exchange.Kline, len(data))
	for sym, ks := range data {
		out[strategy.Feed{Symbol: sym, Interval: iv}] = ks
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
