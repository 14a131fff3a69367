package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategies/smacross"
	"github.com/spotbot/spotbot/strategy"
)

// The parity configuration: smacross over the sample's first 400 hours of
// BTCUSDT, with non-default simulator options (fills at the close, 10 bps
// and 1 tick of slippage, fees paid in the platform token, priced by a
// TOKUSDT market).
const (
	parityStrategies = `strategies:
  - {name: smacross, id: cross, symbols: [BTCUSDT], interval: 1h, params: {fast: 5, slow: 20, fraction: 0.5}}
`
	paritySim = `sim: {market: close, slippage_bps: 10, slippage_ticks: 1, token_fees: true}
account: {balances: {USDT: 10000, TOK: 100}}
`
	parityBars = 400
	parityWarm = 20 // smacross's warm-up: slow
)

// parityData is the bars every run replays: BTCUSDT and a flat TOKUSDT.
func parityData(t *testing.T) map[string][]exchange.Kline {
	t.Helper()
	btc, err := marketdata.Sample("BTCUSDT")
	if err != nil {
		t.Fatal(err)
	}
	btc = btc[:parityBars]
	tok := make([]exchange.Kline, len(btc))
	p := decimal.RequireFromString("2.5")
	for i, k := range btc {
		tok[i] = exchange.Kline{OpenTime: k.OpenTime, CloseTime: k.CloseTime, Open: p, High: p, Low: p, Close: p,
			Volume: decimal.NewFromInt(1000), QuoteVolume: decimal.NewFromInt(2500)}
	}
	return map[string][]exchange.Kline{"BTCUSDT": btc, "TOKUSDT": tok}
}

// orderLog records the orders a strategy asks for, as the strategy asked.
type orderLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *orderLog) add(o exchange.NewOrder, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%s %s %s %s qty=%s quote=%s", at.UTC().Format(time.RFC3339), o.Symbol, o.Side, o.Type,
		o.Quantity, o.QuoteOrderQty))
}

// recording wraps a strategy so the orders it places are logged.
type recording struct {
	*smacross.Strategy
	log *orderLog
}

type recordingCtx struct {
	strategy.Context
	log *orderLog
}

func (c recordingCtx) Place(o exchange.NewOrder) (strategy.Order, error) {
	c.log.add(o, c.Now())
	return c.Context.Place(o)
}

func (r recording) OnKline(ctx strategy.Context, b strategy.Bar) error {
	return r.Strategy.OnKline(recordingCtx{ctx, r.log}, b)
}

func parityRegistry(log *orderLog) *strategy.Registry {
	reg := strategy.NewRegistry()
	reg.Register(smacross.Name, func(c strategy.Config) (strategy.Strategy, error) {
		s, err := smacross.New(c)
		if err != nil {
			return nil, err
		}
		return recording{s.(*smacross.Strategy), log}, nil
	})
	return reg
}

// fillLine is a fill as every run must agree on it.
func fillLine(sym string, buyer bool, price, qty, quote, fee decimal.Decimal, feeAsset string, at time.Time) string {
	side := "SELL"
	if buyer {
		side = "BUY"
	}
	return fmt.Sprintf("%s %s %s price=%s qty=%s quote=%s fee=%s %s", at.UTC().Format(time.RFC3339), sym, side, price, qty, quote,
		fee, feeAsset)
}

func storeFills(t *testing.T, st *store.Store) []string {
	t.Helper()
	fs, err := st.FillsSince(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, fillLine(f.Symbol, f.Side == exchange.SideBuy, f.Price, f.Qty, f.QuoteQty, f.Commission, f.CommissionAsset, f.Time))
	}
	sort.Strings(out)
	return out
}

// feedAsTimePasses makes clock the live run's clock and the simulated
// server's: each wait moves it at once, feeds x the bars that closed
// meanwhile, and at stop ends the session.
func feedAsTimePasses(clock *exchangetest.StepClock, x *sim.Exchange, bars map[string][]exchange.Kline, stop time.Time,
	cancel context.CancelFunc) {
	type symbolBar struct {
		sym string
		k   exchange.Kline
	}
	var all []symbolBar
	for _, sym := range slices.Sorted(maps.Keys(bars)) {
		for _, k := range bars[sym] {
			all = append(all, symbolBar{sym, k})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].k.OpenTime.Before(all[j].k.OpenTime) })
	var mu sync.Mutex
	next := 0
	clock.OnStep = func(now time.Time) {
		mu.Lock()
		defer mu.Unlock()
		for next < len(all) && !exchange.Interval60m.Next(all[next].k.OpenTime).After(now) {
			if err := x.FeedKline(all[next].sym, exchange.Interval60m, all[next].k); err != nil {
				panic(err) // the sample's bars are valid and in order: a test bug
			}
			next++
		}
		x.SetTime(now)
		if !now.Before(stop) {
			cancel()
		}
	}
}

// One strategy, written once, makes the same orders and fills, to the
// last digit and millisecond, in a backtest, in paper-replay, and live
// through the REST client against the simulated server over HTTP.
func TestParityBacktestPaperReplayLive(t *testing.T) {
	checkParity(t, parityStrategies)
}

// Exits emulated by the runtime (a stop, a target, a holding limit) close
// positions alike in the three modes: the same fills, and the same exit
// reasons recorded in both stores as in the backtest's trades.
func TestParityWithExits(t *testing.T) {
	strats := strings.Replace(parityStrategies, "fraction: 0.5}", "fraction: 0.5}, exits: {stop_loss: 2%, take_profit: 2%, max_hold: 5h}, protections: {cooldown: 3h}", 1)
	res := checkParity(t, strats)
	reasons := map[string]int{}
	for _, tr := range res.Trades {
		reasons[tr.ExitReason]++
	}
	if reasons[strategy.ExitStopLoss] == 0 || reasons[strategy.ExitTakeProfit] == 0 || reasons[strategy.ExitMaxHold] == 0 {
		t.Errorf("the backtest's exits %v, want every kind", reasons)
	}
	if len(res.Locks) == 0 {
		t.Error("no cooldown lock in the backtest")
	}
}

// checkParity runs the strategies in the three modes and compares their
// fills, orders and exit reasons; it returns the backtest's result.
func checkParity(t *testing.T, strats string) *backtest.Result {
	t.Helper()
	ctx := t.Context()
	data := parityData(t)
	start := data["BTCUSDT"][0].OpenTime
	end := exchange.Interval60m.Next(data["BTCUSDT"][parityBars-1].OpenTime)

	// The backtest.
	btLog := &orderLog{}
	reg := parityRegistry(btLog)
	c, err := config.Load([]byte("mode: backtest\n"+paritySim+strats), nil, nil, reg)
	if err != nil {
		t.Fatal(err)
	}
	fill, err := session.FillFromConfig(c.Sim)
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]*marketdata.Series{}
	for sym, ks := range data {
		if series[sym], err = marketdata.FromKlines(sym, exchange.Interval60m, ks); err != nil {
			t.Fatal(err)
		}
	}
	res, err := backtest.Run(ctx, backtest.Spec{Instances: c.Strategies, Registry: reg, Interval: exchange.Interval60m, Data: series,
		Balances: c.Account.Balances, Fill: fill})
	if err != nil {
		t.Fatal(err)
	}
	var btFills []string
	for _, f := range res.Fills.All() {
		btFills = append(btFills, fillLine(f.Symbol, f.IsBuyer, f.Price, f.Qty, f.QuoteQty, f.Commission, f.CommissionAsset, f.Time))
	}
	sort.Strings(btFills)
	if len(btFills) < 6 || !strings.Contains(strings.Join(btFills, "\n"), " TOK") {
		t.Fatalf("the backtest made %d fills, want several paid in TOK:\n%s", len(btFills), strings.Join(btFills, "\n"))
	}

	// Paper-replay: the daemon over the same bars.
	prLog := &orderLog{}
	c, err = config.Load([]byte("mode: paper-replay\ndata: {speed: 0}\n"+paritySim+strats), nil, nil, parityRegistry(prLog))
	if err != nil {
		t.Fatal(err)
	}
	prStore, err := store.Open(ctx, filepath.Join(t.TempDir(), "replay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer prStore.Close()
	bot, err := daemon.New(daemon.Options{Config: c, Registry: parityRegistry(prLog), Store: prStore, Replay: data,
		Clock: exchangetest.NewStepClock(end)})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Run(ctx); err != nil {
		t.Fatal(err)
	}

	// Live: the REST client against the simulated server of `bot
	// sim-server`, built by its own builder from a sim-server
	// configuration with the same sim section, the same bars (a CSV
	// folder) and the same rules (a recorded exchangeInfo); the bars past
	// the warm-up are fed as time passes.
	liveLog := &orderLog{}
	run := parityServer(t, data)
	x := run.x
	hs := httptest.NewServer(run.s)
	defer hs.Close()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	clock := exchangetest.NewStepClock(x.Now())
	feedAsTimePasses(clock, x, run.replay.Bars, end.Add(time.Minute), cancel)
	if got := x.Now(); !got.Equal(start.Add(parityWarm * time.Hour)) {
		t.Fatalf("the server starts at %s, want the end of the warm-up", got)
	}
	lc, err := config.Load([]byte(fmt.Sprintf("mode: live\nexchange: {base_url: %q}\npoll: {kline_delay: 0s, orders: 1h}\n", hs.URL)+
		strats), nil, nil, parityRegistry(liveLog))
	if err != nil {
		t.Fatal(err)
	}
	client, err := exchange.New(exchange.WithBaseURL(hs.URL), exchange.WithClock(clock),
		exchange.WithCredentials(exchange.NewSecret(parityKey), exchange.NewSecret(paritySecret)))
	if err != nil {
		t.Fatal(err)
	}
	liveStore, err := store.Open(ctx, filepath.Join(t.TempDir(), "live.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer liveStore.Close()
	bot, err = daemon.New(daemon.Options{Config: lc, Registry: parityRegistry(liveLog), Store: liveStore, Clock: clock, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Run(lctx); err != nil {
		t.Fatal(err)
	}

	want := strings.Join(btFills, "\n")
	for name, got := range map[string][]string{"paper-replay": storeFills(t, prStore), "live": storeFills(t, liveStore)} {
		if g := strings.Join(got, "\n"); g != want {
			t.Errorf("%s fills:\n%s\nbacktest fills:\n%s", name, g, want)
		}
	}
	for name, l := range map[string]*orderLog{"paper-replay": prLog, "live": liveLog} {
		if g, w := strings.Join(l.lines, "\n"), strings.Join(btLog.lines, "\n"); g != w {
			t.Errorf("%s orders:\n%s\nbacktest orders:\n%s", name, g, w)
		}
	}
	var btReasons []string
	for _, f := range res.Fills.All() {
		if !f.IsBuyer {
			btReasons = append(btReasons, f.Time.UTC().Format(time.RFC3339)+" "+orDefault(exitReasonOf(res, f.ClientOrderID)))
		}
	}
	sort.Strings(btReasons)
	for name, st := range map[string]*store.Store{"paper-replay": prStore, "live": liveStore} {
		if g, w := strings.Join(storeReasons(t, st), "\n"), strings.Join(btReasons, "\n"); g != w {
			t.Errorf("%s exit reasons:\n%s\nbacktest:\n%s", name, g, w)
		}
	}
	var btLocks []string
	for _, l := range res.Locks {
		btLocks = append(btLocks, lockLine(l))
	}
	for name, st := range map[string]*store.Store{"paper-replay": prStore, "live": liveStore} {
		ls, err := st.Locks(ctx, time.Time{}, true)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range ls {
			got = append(got, lockLine(l))
		}
		if g, w := strings.Join(got, "\n"), strings.Join(btLocks, "\n"); g != w {
			t.Errorf("%s locks:\n%s\nbacktest:\n%s", name, g, w)
		}
	}
	t.Logf("%d orders, %d fills, %d locks alike in all three", len(btLog.lines), len(btFills), len(btLocks))
	return res
}

// exitReasonOf is the reason of the trade a backtest's sell closed, "" for
// a sell that did not close one.
func exitReasonOf(res *backtest.Result, cid string) string {
	for _, f := range res.Fills.All() {
		if f.ClientOrderID != cid {
			continue
		}
		for _, tr := range res.Trades {
			if tr.ExitTime.Equal(f.Time) {
				return tr.ExitReason
			}
		}
	}
	return ""
}

func orDefault(reason string) string {
	if reason == "" || reason == strategy.ExitSignal {
		return "(strategy)"
	}
	return reason
}

// storeReasons lists a store's sells with the exit reason of their order.
func storeReasons(t *testing.T, st *store.Store) []string {
	t.Helper()
	fs, err := st.FillsSince(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		if f.Side == exchange.SideBuy {
			continue
		}
		o, ok, err := st.Order(t.Context(), f.ClientOrderID)
		if err != nil || !ok {
			t.Fatalf("order %s of a fill: %v %v", f.ClientOrderID, ok, err)
		}
		out = append(out, f.Time.UTC().Format(time.RFC3339)+" "+orDefault(o.ExitReason))
	}
	sort.Strings(out)
	return out
}

const (
	parityKey    = "mx0vglParity0001"
	paritySecret = "0123456789abcdef0123456789abcdef"
)

// parityServer builds `bot sim-server`'s server from a sim-server
// configuration: the parity sim section, the data as a CSV folder, the
// default rules as a recorded exchangeInfo, parityWarm bars fed at once.
func parityServer(t *testing.T, data map[string][]exchange.Kline) *simRun {
	t.Helper()
	dir := t.TempDir()
	var info exchange.ExchangeInfo
	for _, sym := range []string{"BTCUSDT", "TOKUSDT"} {
		r, err := session.DefaultRules(sym, data[sym])
		if err != nil {
			t.Fatal(err)
		}
		info.Symbols = append(info.Symbols, r)
		var b bytes.Buffer
		if err := marketdata.WriteCSV(&b, data[sym]); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sym+"-1h.csv"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	js, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "exchangeInfo.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`mode: sim-server
server:
  exchange_info: %s
  accounts:
    - {name: main, api_key: %s, secret_env: PARITY_SECRET, balances: {USDT: 10000, TOK: 100}}
  warmup: %d
data: {source: csv, path: %s, interval: 1h, speed: 1, cache: off}
`, filepath.Join(dir, "exchangeInfo.json"), parityKey, parityWarm, dir) + paritySim[:strings.Index(paritySim, "account:")]
	env := []string{"PARITY_SECRET=" + paritySecret}
	cfg, err := loadConfigText(strategy.NewRegistry(), simServerCmd, "parity sim-server", []byte(text), env, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, err := buildSimServer(t.Context(), cfg, env)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func lockLine(l strategy.Lock) string {
	return fmt.Sprintf("%s %s %s %s-%s", l.Instance, l.Symbol, l.Reason, l.From.UTC().Format(time.RFC3339), l.Until.UTC().Format(time.RFC3339))
}

// Exits sent as marketable limit orders (exits.order: limit, here at the
// last close) are the same IMMEDIATE_OR_CANCEL orders with the same fills
// in the three modes. The parity venue's slippage would take a sell below
// the last close, so each limit exit fills at its limit: at the same time
// as the market exit of the same run without order: limit, at a higher
// price.
func TestParityWithLimitExits(t *testing.T) {
	exits := "fraction: 0.5}, exits: {stop_loss: 2%, take_profit: 2%, max_hold: 5h"
	market := checkParity(t, strings.Replace(parityStrategies, "fraction: 0.5}", exits+"}", 1))
	limit := checkParity(t, strings.Replace(parityStrategies, "fraction: 0.5}", exits+", order: limit}", 1))
	if limit.Fills.Len() != market.Fills.Len() || limit.Fills.Len() == 0 {
		t.Fatalf("%d fills with limit exits, %d with market ones", limit.Fills.Len(), market.Fills.Len())
	}
	sells := 0
	for i, f := range limit.Fills.All() {
		m := market.Fills.At(i)
		if !f.Time.Equal(m.Time) || f.IsBuyer != m.IsBuyer {
			t.Fatalf("fill %d: %s buyer=%t with limit exits, %s buyer=%t with market ones", i, f.Time, f.IsBuyer, m.Time, m.IsBuyer)
		}
		if f.IsBuyer {
			continue
		}
		sells++
		if !f.Price.GreaterThan(m.Price) {
			t.Errorf("exit at %s: limit %s, market %s; want the limit higher", f.Time, f.Price, m.Price)
		}
	}
	if sells == 0 {
		t.Error("no exit")
	}
}
