package backtest

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

type kv struct{ Name, Value string }

type configPart struct {
	Info      []kv
	Instances []instanceConfig
}

type instanceConfig struct{ ID, Name, Symbols, Interval, Params string }

func configView(rep Report, s Spec) configPart {
	out := configPart{Info: []kv{{"Interval", rep.Interval}, {"Fill model", rep.FillModel}}}
	for _, a := range sortedAssets(rep.Balances) {
		out.Info = append(out.Info, kv{"Starting " + a, rep.Balances[a]})
	}
	for _, in := range s.Instances {
		keys := make([]string, 0, len(in.Params))
		for k := range in.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		ps := make([]string, len(keys))
		for i, k := range keys {
			ps[i] = fmt.Sprintf("%s=%v", k, in.Params[k])
		}
		out.Instances = append(out.Instances, instanceConfig{ID: in.ID, Name: in.Name, Symbols: strings.Join(in.Symbols, ", "),
			Interval: string(in.Interval), Params: strings.Join(ps, " ")})
	}
	return out
}

func sortedAssets(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// metricRows are the summary's rows.
func metricRows(rep Report) []kv {
	var out []kv
	for _, r := range rep.summaryRows() {
		out = append(out, kv{r[0], r[1]})
	}
	return out
}

type groupRow struct {
	Name, Detail           string
	Fills, Trades          int
	WinRate, AvgRet, Extra string
	PnL, Fees, Volume      string
}

// groupStats sums trades into a row.
func groupStats(name, detail string, trades []Trade, quote string) groupRow {
	r := groupRow{Name: name, Detail: detail, Trades: len(trades), WinRate: "-", AvgRet: "-"}
	var pnl, fees decimal.Decimal
	var wins int
	var ret float64
	for _, t := range trades {
		pnl, fees = pnl.Add(t.PnL), fees.Add(t.Fees)
		if t.PnL.IsPositive() {
			wins++
		}
		ret += t.ReturnPct
	}
	if len(trades) > 0 {
		r.WinRate = strconv.FormatFloat(100*float64(wins)/float64(len(trades)), 'f', 1, 64)
		r.AvgRet = strconv.FormatFloat(ret/float64(len(trades)), 'f', 2, 64)
	}
	r.PnL, r.Fees = money(pnl.String(), quote), money(fees.String(), quote)
	return r
}

// instanceRows are the per-instance table: its fills, volume and round
// trips (a round trip is one instance's, so a symbol two instances trade
// counts each one's trades once).
func instanceRows(s Spec, res *Result, quote string) []groupRow {
	var out []groupRow
	for _, in := range s.Instances {
		var ts []Trade
		for _, t := range res.Trades {
			if t.Instance == in.ID {
				ts = append(ts, t)
			}
		}
		r := groupStats(in.ID, in.Name+" on "+strings.Join(in.Symbols, ", "), ts, quote)
		var vol decimal.Decimal
		for _, f := range res.Fills.All() {
			if f.Instance == in.ID {
				r.Fills++
				vol = vol.Add(f.QuoteQty)
			}
		}
		r.Volume = money(vol.String(), quote)
		out = append(out, r)
	}
	return out
}

// symbolRows are the per-symbol table, with each symbol's buy-and-hold
// return.
func symbolRows(syms []string, res *Result, quote string) []groupRow {
	var out []groupRow
	for _, sym := range syms {
		var ts []Trade
		for _, t := range res.Trades {
			if t.Symbol == sym {
				ts = append(ts, t)
			}
		}
		r := groupStats(sym, "", ts, quote)
		var vol decimal.Decimal
		for _, f := range res.Fills.All() {
			if f.Symbol == sym {
				r.Fills++
				vol = vol.Add(f.QuoteQty)
			}
		}
		r.Volume = money(vol.String(), quote)
		r.Extra = "-"
		if bh, ok := res.BuyHold[sym]; ok && bh[0].IsPositive() {
			r.Extra = strconv.FormatFloat((bh[1].InexactFloat64()/bh[0].InexactFloat64()-1)*100, 'f', 2, 64)
		}
		out = append(out, r)
	}
	return out
}

type heatCell struct {
	Text  string
	Style template.CSS
}

type heatYear struct {
	Year   int
	Months [12]heatCell
	Total  heatCell
}

// monthlyReturns are the returns of each calendar month (UTC) and year:
// the last equity of the period over the last equity before it (the
// first equity for the first period), less one.
func monthlyReturns(c Curve) []heatYear {
	if c.Len() < 2 {
		return nil
	}
	type key struct{ y, m int }
	monthEnd := map[key]float64{}
	var months []key
	prev := c.Values[0]
	yearStart := map[int]float64{}
	yearEnd := map[int]float64{}
	var years []int
	for _, p := range c.All() {
		t := p.Time()
		k := key{t.Year(), int(t.Month())}
		if _, ok := monthEnd[k]; !ok {
			months = append(months, k)
			if _, ok := yearStart[k.y]; !ok {
				years = append(years, k.y)
				yearStart[k.y] = prev
			}
		}
		monthEnd[k], yearEnd[k.y], prev = p.Value, p.Value, p.Value
	}
	cell := func(r float64) heatCell {
		a := math.Min(math.Abs(r)/10, 1) * 0.85 // full colour at ±10 %
		col := "26,127,55"
		if r < 0 {
			col = "207,34,46"
		}
		return heatCell{Text: strconv.FormatFloat(r, 'f', 1, 64), Style: template.CSS(fmt.Sprintf("background:rgba(%s,%.2f)", col, a+0.05))}
	}
	rows := map[int]*heatYear{}
	var out []heatYear
	start := c.Values[0]
	for _, k := range months {
		if rows[k.y] == nil {
			rows[k.y] = &heatYear{Year: k.y}
		}
		if start > 0 {
			rows[k.y].Months[k.m-1] = cell((monthEnd[k]/start - 1) * 100)
		}
		start = monthEnd[k]
	}
	for _, y := range years {
		if yearStart[y] > 0 {
			rows[y].Total = cell((yearEnd[y]/yearStart[y] - 1) * 100)
		}
		out = append(out, *rows[y])
	}
	return out
}

type histogram struct {
	Bars  []histBar
	Ticks []histTick
	Empty bool
}

type histBar struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

type histTick struct {
	X     float64
	Label string
}

// tradeHistogram bins the trade returns (%) into round-width bins.
func tradeHistogram(trades []Trade) histogram {
	if len(trades) == 0 {
		return histogram{Empty: true}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range trades {
		lo, hi = math.Min(lo, t.ReturnPct), math.Max(hi, t.ReturnPct)
	}
	step := niceStep(hi-lo, 20)
	first := math.Floor(lo/step) * step
	n := int(math.Floor((hi-first)/step)) + 1
	counts := make([]int, n)
	for _, t := range trades {
		counts[min(int(math.Floor((t.ReturnPct-first)/step)), n-1)]++
	}
	most := 0
	for _, c := range counts {
		most = max(most, c)
	}
	const w, h, left, bottom = 960.0, 200.0, 40.0, 24.0
	bw := (w - left) / float64(n)
	var out histogram
	for i, c := range counts {
		from := first + float64(i)*step
		bh := (h - bottom - 10) * float64(c) / float64(most)
		cls := "buy"
		if from < 0 {
			cls = "sell"
		}
		out.Bars = append(out.Bars, histBar{X: left + float64(i)*bw, Y: h - bottom - bh, W: math.Max(bw-1, 1), H: bh, Class: cls,
			Title: fmt.Sprintf("%s%% to %s%%: %d trades", tickLabel(from, step), tickLabel(from+step, step), c)})
	}
	every := max(1, n/10)
	for i := 0; i <= n; i += every {
		out.Ticks = append(out.Ticks, histTick{X: left + float64(i)*bw, Label: tickLabel(first+float64(i)*step, step)})
	}
	return out
}

// tradeTable is the trades table; a run of several instances gets an
// instance column.
type tradeTable struct {
	Several bool
	Rows    []tradeRow
}

type tradeRow struct {
	Instance, Symbol, Entry, Exit, Duration, Qty, EntryPrice, ExitPrice, Fees, PnL, Return, Reason string
	Win                                                                                            bool
}

func tradeRows(rep Report, res *Result, places map[string]int32, quote string) tradeTable {
	out := tradeTable{Several: len(rep.Instances) > 1, Rows: make([]tradeRow, 0, len(res.Trades))}
	for _, t := range res.Trades {
		pl := places[t.Symbol]
		out.Rows = append(out.Rows, tradeRow{Instance: t.Instance, Symbol: t.Symbol, Entry: t.EntryTime.UTC().Format("2006-01-02 15:04"), Exit: t.ExitTime.UTC().Format("2006-01-02 15:04"),
			Duration: humanDuration(t.Duration()), Qty: t.Qty.String(), EntryPrice: priceText(t.EntryPrice, pl), ExitPrice: priceText(t.ExitPrice, pl),
			Fees: money(t.Fees.String(), quote), PnL: money(t.PnL.String(), quote), Return: strconv.FormatFloat(t.ReturnPct, 'f', 2, 64), Reason: t.ExitReason, Win: t.PnL.IsPositive()})
	}
	return out
}
