package backtest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// oneSymbolTwoInstances trades BTCUSDT with two smacross instances: each
// holds a position of its own (ctx.Position is per instance).
const oneSymbolTwoInstances = `mode: backtest
data: {source: sample, interval: 1h}
account: {balances: {USDT: 10000}}
strategies:
  - {name: smacross, id: fast, symbols: [BTCUSDT], interval: 1h, params: {fast: 5, slow: 20, fraction: 0.4}}
  - {name: smacross, id: slow, symbols: [BTCUSDT], interval: 1h, params: {fast: 10, slow: 50, fraction: 0.4}}
`

// TestSharedSymbolTradesPerInstance: two instances on one symbol get
// their own round trips, so the per-instance table counts each trade once
// (folded by symbol, both rows showed the same 79 trades), and the
// reports name the instance of each trade.
func TestSharedSymbolTradesPerInstance(t *testing.T) {
	t.Parallel()
	s := specOf(t, oneSymbolTwoInstances)
	res, err := Run(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	// smacross buys once and sells its whole position in one order, so
	// an instance's trades are its sells, each closing at one of them.
	sells := map[string]map[int64]bool{}
	var pnl, fees decimal.Decimal
	count := map[string]int{}
	for _, f := range res.Fills.All() {
		if !f.IsBuyer {
			if sells[f.Instance] == nil {
				sells[f.Instance] = map[int64]bool{}
			}
			sells[f.Instance][f.Time.UnixMilli()] = true
		}
	}
	for _, tr := range res.Trades {
		count[tr.Instance]++
		if !sells[tr.Instance][tr.ExitTime.UnixMilli()] {
			t.Errorf("trade of %s exits at %s, where it sold nothing", tr.Instance, stamp(tr.ExitTime))
		}
		pnl, fees = pnl.Add(tr.PnL), fees.Add(tr.Fees)
	}
	if count["fast"] != 138 || count["slow"] != 53 || len(sells["fast"]) != 138 || len(sells["slow"]) != 53 || res.Metrics.Trades != 191 {
		t.Errorf("trades %v (metrics %d), sells fast %d slow %d; want 138 and 53", count, res.Metrics.Trades, len(sells["fast"]), len(sells["slow"]))
	}
	var got []string
	for _, r := range instanceRows(s, res, "USDT") {
		got = append(got, strings.Join([]string{r.Name, itoa(r.Fills), r.Volume, itoa(r.Trades), r.WinRate, r.AvgRet, r.PnL, r.Fees}, " "))
	}
	// The two rows add up to the whole run's trades (the same totals
	// folding by symbol gave, split between the instances).
	want := []string{
		"fast 276 1,482,135.38 138 39.9 0.62 4,098.04 1,482.14",
		"slow 106 401,951.35 53 39.6 1.46 1,734.66 401.95",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("per-instance rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if pnl.StringFixed(2) != "5832.70" || fees.StringFixed(2) != "1884.09" {
		t.Errorf("total PnL %s fees %s, want 5832.70 and 1884.09", pnl.StringFixed(2), fees.StringFixed(2))
	}

	rep := NewReport("fast, slow", s, res)
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Trades []map[string]any `json:"trades"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Trades) != 191 || doc.Trades[0]["instance"] != res.Trades[0].Instance || doc.Trades[0]["instance"] == "" {
		t.Errorf("report.json: %d trades, the first's instance %v", len(doc.Trades), doc.Trades[0]["instance"])
	}
	b.Reset()
	if err := rep.WriteTradesCSV(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if lines[0] != "symbol,entry_time,exit_time,qty,entry_price,exit_price,fees,pnl,return_pct,exit_reason,instance" || len(lines) != 192 ||
		!strings.HasSuffix(lines[1], ","+res.Trades[0].Instance) {
		t.Errorf("trades.csv header %q, %d lines, first row %q", lines[0], len(lines), lines[1])
	}
	b.Reset()
	if err := WriteHTML(&b, rep, s, res, HTMLOptions{Note: "static"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	table := page[strings.Index(page, `<table id="trades">`):]
	if n, m := strings.Count(table, "<tr><td>fast</td><td>BTCUSDT</td>"), strings.Count(table, "<tr><td>slow</td><td>BTCUSDT</td>"); n != 138 || m != 53 ||
		!strings.Contains(table, "<tr><th>instance</th><th>symbol</th>") {
		t.Errorf("trades table: %d rows of fast, %d of slow, want 138 and 53 under an instance column", n, m)
	}
}

// TestSingleInstanceReportsNameNoInstance: one instance's trade rows carry
// no instance, so its reports are as they were (the goldens pin them
// byte for byte), while its trades know their instance.
func TestSingleInstanceReportsNameNoInstance(t *testing.T) {
	t.Parallel()
	s, res, rep := defaultRun(t)
	if len(res.Trades) == 0 || res.Trades[0].Instance != s.Instances[0].ID {
		t.Fatalf("%d trades, the first of instance %q", len(res.Trades), res.Trades[0].Instance)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Trades []map[string]any `json:"trades"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for i, tr := range doc.Trades {
		if _, ok := tr["instance"]; ok || len(tr) != 10 {
			t.Fatalf("trade row %d has keys %v, want the 10 without instance", i, tr)
		}
	}
	b.Reset()
	if err := WriteHTML(&b, rep, s, res, HTMLOptions{Note: "static"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "<th>instance</th><th>symbol</th>") {
		t.Error("a single instance's trades table has an instance column")
	}
}

// TestFillHoverNamesItsInstancesTrade: two instances selling one symbol at
// one instant each see their own trade's PnL on their sell's marker.
func TestFillHoverNamesItsInstancesTrade(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	bars := []exchange.Kline{{OpenTime: t0, CloseTime: t0.Add(time.Hour - time.Millisecond), Open: dec("100"), High: dec("101"),
		Low: dec("99"), Close: dec("100"), Volume: dec("1")}}
	sell := func(in string) Fill {
		return Fill{Instance: in, OwnTrade: exchange.OwnTrade{Symbol: "BTCUSDT", Price: dec("100"), Qty: dec("1"), QuoteQty: dec("100"),
			Commission: dec("0.1"), CommissionAsset: "USDT", Time: t0.Add(30 * time.Minute)}}
	}
	trades := []Trade{
		{Instance: "a", Symbol: "BTCUSDT", ExitTime: t0.Add(30 * time.Minute), PnL: dec("5"), ReturnPct: 5, ExitReason: "signal"},
		{Instance: "b", Symbol: "BTCUSDT", ExitTime: t0.Add(30 * time.Minute), PnL: dec("-3"), ReturnPct: -3, ExitReason: "stop_loss"},
	}
	c := candleChart("BTCUSDT", bars, 2, nil, fillsOf([][]Fill{{sell("a"), sell("b")}}), trades, "USDT")
	want := []string{
		"2024-01-01 00:30 sell 1 @ 100.00, fee 0.1 USDT (a); trade PnL 5.00 USDT (5.00%); exit: signal",
		"2024-01-01 00:30 sell 1 @ 100.00, fee 0.1 USDT (b); trade PnL -3.00 USDT (-3.00%); exit: stop_loss",
	}
	if len(c.Fills) != 2 || c.Fills[0].Text != want[0] || c.Fills[1].Text != want[1] {
		t.Errorf("markers %+v, want %q", c.Fills, want)
	}
}
