package backtest

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// The HTML report is one file with inline SVG charts and inline CSS: it
// opens offline, loads nothing from the network and runs no script, so it
// renders the same in any browser and years from now.

// chartPoints caps the points of one chart line; longer series are reduced
// to the minimum and maximum of each bucket, which keeps every spike.
const chartPoints = 1200

const (
	chartW, chartH = 960.0, 260.0
	padL, padR     = 70.0, 10.0
	padT, padB     = 10.0, 24.0
)

type series struct {
	t []time.Time
	v []float64
}

// reduce returns at most about chartPoints points of s, keeping the min and
// max of each bucket in time order.
func (s series) reduce() series {
	n := len(s.v)
	if n <= chartPoints {
		return s
	}
	buckets := chartPoints / 2
	out := series{t: make([]time.Time, 0, chartPoints+2), v: make([]float64, 0, chartPoints+2)}
	for b := 0; b < buckets; b++ {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		mi, ma := lo, lo
		for i := lo; i < hi; i++ {
			if s.v[i] < s.v[mi] {
				mi = i
			}
			if s.v[i] > s.v[ma] {
				ma = i
			}
		}
		first, second := mi, ma
		if ma < mi {
			first, second = ma, mi
		}
		out.t = append(out.t, s.t[first])
		out.v = append(out.v, s.v[first])
		if second != first {
			out.t = append(out.t, s.t[second])
			out.v = append(out.v, s.v[second])
		}
	}
	return out
}

// axes maps times and values into the chart's box.
type axes struct {
	t0, t1 time.Time
	lo, hi float64
}

func (a axes) x(t time.Time) float64 {
	span := a.t1.Sub(a.t0)
	if span <= 0 {
		return padL
	}
	return padL + (chartW-padL-padR)*float64(t.Sub(a.t0))/float64(span)
}

func (a axes) y(v float64) float64 {
	if a.hi <= a.lo {
		return chartH / 2
	}
	return padT + (chartH-padT-padB)*(1-(v-a.lo)/(a.hi-a.lo))
}

func fitAxes(ss ...series) axes {
	a := axes{lo: math.Inf(1), hi: math.Inf(-1)}
	for _, s := range ss {
		for i, v := range s.v {
			if a.t0.IsZero() || s.t[i].Before(a.t0) {
				a.t0 = s.t[i]
			}
			if s.t[i].After(a.t1) {
				a.t1 = s.t[i]
			}
			a.lo, a.hi = math.Min(a.lo, v), math.Max(a.hi, v)
		}
	}
	if math.IsInf(a.lo, 0) {
		a.lo, a.hi = 0, 1
	}
	return a
}

func (a axes) polyline(s series) string {
	var b strings.Builder
	for i, v := range s.v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(a.x(s.t[i]), 'f', 1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(a.y(v), 'f', 1, 64))
	}
	return b.String()
}

// gridLines returns the y axis labels: five evenly spaced values.
func (a axes) gridLines() []gridLine {
	out := make([]gridLine, 0, 5)
	for i := 0; i <= 4; i++ {
		v := a.lo + (a.hi-a.lo)*float64(i)/4
		out = append(out, gridLine{Y: a.y(v), Label: strconv.FormatFloat(v, 'g', 6, 64)})
	}
	return out
}

type gridLine struct {
	Y     float64
	Label string
}

type line struct {
	Class  string
	Points string
}

type marker struct {
	X, Y  float64
	Class string
	Title string
}

type chart struct {
	ID      string
	Title   string
	Lines   []line
	Markers []marker
	Grid    []gridLine
	From    string
	To      string
	Empty   bool
}

// priceChart plots a symbol's closes with its fills as markers.
func priceChart(sym string, bars []exchange.Kline, fills []Fill) chart {
	s := series{t: make([]time.Time, len(bars)), v: make([]float64, len(bars))}
	for i, k := range bars {
		s.t[i], s.v[i] = k.CloseTime.Add(time.Millisecond), k.Close.InexactFloat64() // the close instant
	}
	r := s.reduce()
	a := fitAxes(r)
	c := chart{ID: "price-" + sym, Title: sym + " close with buys and sells", Lines: []line{{"price", a.polyline(r)}},
		Grid: a.gridLines(), From: stamp(a.t0), To: stamp(a.t1), Empty: len(bars) == 0}
	for _, f := range fills {
		if f.Symbol != sym {
			continue
		}
		cls, word := "sell", "sell"
		if f.IsBuyer {
			cls, word = "buy", "buy"
		}
		c.Markers = append(c.Markers, marker{X: a.x(f.Time), Y: a.y(f.Price.InexactFloat64()), Class: cls,
			Title: fmt.Sprintf("%s %s %s @ %s", stamp(f.Time), word, f.Qty, f.Price)})
	}
	return c
}

// equityCharts plots equity against buy-and-hold, and the drawdown.
func equityCharts(res *Result, s Spec) (chart, chart) {
	eq := series{t: make([]time.Time, res.Curve.Len()), v: make([]float64, res.Curve.Len())}
	dd := series{t: eq.t, v: DrawdownSeries(res.Curve)}
	for i, p := range res.Curve.All() {
		eq.t[i], eq.v[i] = p.Time(), p.Value
		dd.v[i] *= -100
	}
	hold := buyHoldSeries(res, s)
	er, hr, dr := eq.reduce(), hold.reduce(), dd.reduce()
	a := fitAxes(er, hr)
	equity := chart{ID: "equity", Title: "Equity (solid) against buy and hold (dashed)",
		Lines: []line{{"hold", a.polyline(hr)}, {"equity", a.polyline(er)}}, Grid: a.gridLines(),
		From: stamp(a.t0), To: stamp(a.t1), Empty: len(eq.v) == 0}
	b := fitAxes(dr)
	if b.hi < 0 {
		b.hi = 0
	}
	draw := chart{ID: "drawdown", Title: "Drawdown %", Lines: []line{{"drawdown", b.polyline(dr)}}, Grid: b.gridLines(),
		From: stamp(b.t0), To: stamp(b.t1), Empty: len(dd.v) == 0}
	return equity, draw
}

// buyHoldSeries is the starting equity split equally over the traded
// symbols at their first close and held: the benchmark the buy-and-hold
// return metric measures.
func buyHoldSeries(res *Result, s Spec) series {
	if res.Curve.Len() == 0 || len(res.BuyHold) == 0 {
		return series{}
	}
	start := res.Curve.Values[0]
	out := series{t: make([]time.Time, 0, res.Curve.Len()), v: make([]float64, 0, res.Curve.Len())}
	type held struct {
		bars  []exchange.Kline
		i     int
		first float64
	}
	syms := make([]string, 0, len(res.BuyHold))
	for sym := range res.BuyHold {
		syms = append(syms, sym)
	}
	sort.Strings(syms) // a fixed summation order keeps the report byte-identical
	hs := make([]*held, 0, len(syms))
	for _, sym := range syms {
		hs = append(hs, &held{bars: s.Data[sym], first: res.BuyHold[sym][0].InexactFloat64()})
	}
	for _, p := range res.Curve.All() {
		pt := p.Time()
		var v float64
		for _, h := range hs {
			for h.i+1 < len(h.bars) && !h.bars[h.i+1].CloseTime.After(pt) {
				h.i++
			}
			v += h.bars[h.i].Close.InexactFloat64() / h.first
		}
		out.t = append(out.t, pt)
		out.v = append(out.v, start*v/float64(len(hs)))
	}
	return out
}

type metricRow struct{ Name, Value string }

type htmlPage struct {
	Report  Report
	Charts  []chart
	Metrics []metricRow
}

// WriteHTML writes the self-contained HTML report: a price chart per symbol
// with buy and sell markers, equity against buy-and-hold, drawdown, the
// metrics table and the trades table.
func WriteHTML(w io.Writer, rep Report, s Spec, res *Result) error {
	page := htmlPage{Report: rep}
	syms := make([]string, 0, len(s.Data))
	for sym := range s.Data {
		syms = append(syms, sym)
	}
	sort.Strings(syms)
	for _, sym := range syms {
		page.Charts = append(page.Charts, priceChart(sym, s.Data[sym], res.Fills))
	}
	eq, dd := equityCharts(res, s)
	page.Charts = append(page.Charts, eq, dd)
	var sb strings.Builder
	if err := rep.WriteSummary(&sb); err != nil {
		return err
	}
	for _, ln := range strings.Split(strings.TrimRight(sb.String(), "\n"), "\n") {
		name, value, _ := strings.Cut(ln, "  ")
		page.Metrics = append(page.Metrics, metricRow{strings.TrimSpace(name), strings.TrimSpace(value)})
	}
	return htmlTemplate.Execute(w, page)
}

var htmlTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>spotbot backtest: {{.Report.Title}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
svg{display:block;max-width:100%;height:auto;border:1px solid #d0d7de;background:#fcfcfd}
.price{fill:none;stroke:#57606a;stroke-width:1}
.equity{fill:none;stroke:#0969da;stroke-width:1.5}
.hold{fill:none;stroke:#8c959f;stroke-width:1;stroke-dasharray:4 3}
.drawdown{fill:none;stroke:#cf222e;stroke-width:1}
.grid{stroke:#eaeef2}.label{font-size:11px;fill:#57606a}
.buy{fill:#1a7f37}.sell{fill:#cf222e}
table{border-collapse:collapse;margin-top:8px}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
th{background:#f6f8fa}td:first-child,th:first-child{text-align:left}
</style>
</head>
<body>
<h1>spotbot backtest: {{.Report.Title}}</h1>
<p>Interval {{.Report.Interval}}; fill model: {{.Report.FillModel}}.</p>
{{range .Charts}}
<h2>{{.Title}}</h2>
<svg id="{{.ID}}" class="chart" viewBox="0 0 960 260" role="img" aria-label="{{.Title}}">
{{range .Grid}}<line class="grid" x1="70" x2="950" y1="{{printf "%.1f" .Y}}" y2="{{printf "%.1f" .Y}}"/><text class="label" x="4" y="{{printf "%.1f" .Y}}">{{.Label}}</text>
{{end}}{{range .Lines}}<polyline class="{{.Class}}" points="{{.Points}}"/>
{{end}}{{range .Markers}}<circle class="{{.Class}}" cx="{{printf "%.1f" .X}}" cy="{{printf "%.1f" .Y}}" r="3"><title>{{.Title}}</title></circle>
{{end}}<text class="label" x="70" y="256">{{.From}}</text><text class="label" x="950" y="256" text-anchor="end">{{.To}}</text>
</svg>
{{end}}
<h2>Metrics</h2>
<table id="metrics">
{{range .Metrics}}<tr><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</table>
<h2>Trades</h2>
<table id="trades">
<tr><th>symbol</th><th>entry</th><th>exit</th><th>qty</th><th>entry price</th><th>exit price</th><th>fees</th><th>PnL</th><th>return %</th></tr>
{{range .Report.Trades}}<tr><td>{{.Symbol}}</td><td>{{.EntryTime}}</td><td>{{.ExitTime}}</td><td>{{.Qty}}</td><td>{{.EntryPrice}}</td><td>{{.ExitPrice}}</td><td>{{.Fees}}</td><td>{{.PnL}}</td><td>{{.ReturnPct}}</td></tr>
{{end}}</table>
</body>
</html>
`))
