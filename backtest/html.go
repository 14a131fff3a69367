package backtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// The HTML reports are one file each: the data, the charting library
// (when at hand) and the page's own script inlined, nothing loaded from
// the network. Without the library the charts are static SVG, with a note
// saying how to get the interactive ones.

// HTMLOptions choose how a report draws its charts.
type HTMLOptions struct {
	// Script is the charting library's file (chartlib.Loader); nil draws
	// static SVG charts instead.
	Script []byte
	// Note is shown at the top of the page, such as why the charts are
	// static and how to get the interactive ones.
	Note string
}

// maxCandles caps the candles of one price chart: longer series are
// merged into candles of several bars (open of the first, high and low
// over all, close of the last, volume summed), which keeps every extreme.
const maxCandles = 4000

// maxPoints caps the points of one line; longer lines keep the minimum
// and the maximum of each bucket.
const maxPoints = 4000

type jsChart struct {
	ID       string     `json:"id"`
	Height   int        `json:"height"`
	Intraday bool       `json:"intraday"`
	Series   []jsSeries `json:"series"`
	Fills    []jsFill   `json:"fills,omitempty"`
	Title    string     `json:"-"`
	Legend   []legend   `json:"-"`
}

type jsSeries struct {
	Type      string      `json:"type"` // candles, volume, line, area
	Title     string      `json:"title,omitempty"`
	Color     string      `json:"color,omitempty"`
	Dashed    bool        `json:"dashed,omitempty"`
	Width     int         `json:"width,omitempty"`
	Precision int         `json:"precision"`
	Data      [][]float64 `json:"data"`
}

type jsFill struct {
	T    int64  `json:"t"`
	Buy  bool   `json:"buy"`
	Text string `json:"text"`
}

type legend struct{ Name, Color string }

// palette colours the strategy's plotted series.
func palette(i int) string {
	cs := [...]string{"#bf8700", "#8250df", "#0550ae", "#bc4c00", "#116329", "#a40e26"}
	return cs[i%len(cs)]
}

// sec is a time as the charts take it: seconds since the epoch.
func sec(t time.Time) float64 { return float64(t.Unix()) }

// lineData reduces a series for display and writes it as [time, value]
// pairs, times strictly increasing.
func lineData(s series, places int) [][]float64 {
	r := s.reduce(maxPoints)
	out := make([][]float64, 0, len(r.v))
	last := math.Inf(-1)
	for i, v := range r.v {
		t := sec(r.t[i])
		if t <= last || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		last = t
		out = append(out, []float64{t, roundTo(v, places)})
	}
	return out
}

func roundTo(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// candleChart is a symbol's price chart: candles merged to at most
// maxCandles, volume, the series the strategies plot and the fills.
func candleChart(sym string, bars []exchange.Kline, places int32, plots []strategy.PlotSeries, fills Fills, trades []Trade, quote string) jsChart {
	per := (len(bars) + maxCandles - 1) / maxCandles
	per = max(per, 1)
	c := jsChart{ID: "chart-price-" + sym, Height: 420, Title: sym}
	candles := jsSeries{Type: "candles", Precision: int(places)}
	vol := jsSeries{Type: "volume"}
	starts := make([]int64, 0, len(bars)/per+1)
	for i := 0; i < len(bars); i += per {
		g := bars[i:min(i+per, len(bars))]
		hi, lo := g[0].High.InexactFloat64(), g[0].Low.InexactFloat64()
		var v float64
		for _, k := range g {
			hi, lo = math.Max(hi, k.High.InexactFloat64()), math.Min(lo, k.Low.InexactFloat64())
			v += k.Volume.InexactFloat64()
		}
		t := sec(g[0].OpenTime)
		starts = append(starts, int64(t))
		candles.Data = append(candles.Data, []float64{t, g[0].Open.InexactFloat64(), hi, lo, g[len(g)-1].Close.InexactFloat64()})
		vol.Data = append(vol.Data, []float64{t, roundTo(v, 4)})
	}
	if len(bars) > 1 {
		c.Intraday = bars[1].OpenTime.Sub(bars[0].OpenTime)*time.Duration(per) < 24*time.Hour
	}
	c.Series = append(c.Series, candles, vol)
	for k, p := range plots {
		// On the candles' times: the last value of each candle's bars.
		var data [][]float64
		for i := 0; i < len(bars) && i < len(p.Values); i += per {
			v := math.NaN()
			for j := i; j < min(i+per, len(p.Values)); j++ {
				if !math.IsNaN(p.Values[j]) {
					v = p.Values[j]
				}
			}
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				data = append(data, []float64{sec(bars[i].OpenTime), roundTo(v, int(places)+2)})
			}
		}
		c.Series = append(c.Series, jsSeries{Type: "line", Title: p.Name, Color: palette(k), Precision: int(places) + 2, Data: data})
		c.Legend = append(c.Legend, legend{p.Name, palette(k)})
	}
	// The trade a sell closed: two instances may close trades in one
	// symbol at one instant, so the instance is part of the key.
	type closing struct {
		instance string
		at       int64
	}
	pnl := map[closing]Trade{}
	for _, t := range trades {
		if t.Symbol == sym {
			pnl[closing{t.Instance, t.ExitTime.UnixMilli()}] = t
		}
	}
	for _, f := range fills.All() {
		if f.Symbol != sym || len(starts) == 0 {
			continue
		}
		// The candle holding the fill: the last start at or before it.
		ft := f.Time.Unix()
		j := sort.Search(len(starts), func(j int) bool { return starts[j] > ft }) - 1
		j = max(j, 0)
		word := "sell"
		if f.IsBuyer {
			word = "buy"
		}
		text := fmt.Sprintf("%s %s %s @ %s, fee %s %s (%s)", f.Time.UTC().Format("2006-01-02 15:04"), word, f.Qty,
			priceText(f.Price, places), f.Commission, f.CommissionAsset, f.Instance)
		if t, ok := pnl[closing{f.Instance, f.Time.UnixMilli()}]; ok && !f.IsBuyer {
			text += fmt.Sprintf("; trade PnL %s %s (%.2f%%)", money(t.PnL.String(), quote), quote, t.ReturnPct)
			if t.ExitReason != "" {
				text += "; exit: " + t.ExitReason
			}
		}
		c.Fills = append(c.Fills, jsFill{T: starts[j], Buy: f.IsBuyer, Text: text})
	}
	return c
}

// equityJSCharts are equity against buy-and-hold and the drawdown.
func equityJSCharts(res *Result, s Spec) []jsChart {
	eq := series{t: make([]time.Time, res.Curve.Len()), v: make([]float64, res.Curve.Len())}
	dd := series{t: eq.t, v: DrawdownSeries(res.Curve)}
	for i, p := range res.Curve.All() {
		eq.t[i], eq.v[i] = p.Time(), p.Value
		dd.v[i] *= -100
	}
	hold := buyHoldSeries(res, s)
	intraday := res.Curve.Len() > 1 && res.Curve.At(1)-res.Curve.At(0) < 24*3600_000
	return []jsChart{
		{ID: "chart-equity", Height: 300, Intraday: intraday, Title: "Equity", Legend: []legend{{"strategy", "#0969da"}, {"buy and hold", "#8c959f"}},
			Series: []jsSeries{{Type: "line", Title: "strategy", Color: "#0969da", Width: 2, Precision: 2, Data: lineData(eq, 2)},
				{Type: "line", Title: "buy and hold", Color: "#8c959f", Dashed: true, Precision: 2, Data: lineData(hold, 2)}}},
		{ID: "chart-drawdown", Height: 180, Intraday: intraday, Title: "Drawdown %",
			Series: []jsSeries{{Type: "area", Title: "drawdown %", Color: "#cf222e", Precision: 2, Data: lineData(dd, 3)}}},
	}
}

// page is what the page template draws.
type page struct {
	Title       string
	Note        string
	Interactive bool
	Lib         template.JS
	App         template.JS
	Data        template.JS
	Charts      []jsChart
	Static      []chart
	Sections    []template.HTML
}

// writePage renders a page: the charts interactive when the library is at
// hand, else the static charts.
func writePage(w io.Writer, p page, o HTMLOptions, static func() []chart) error {
	p.Note = o.Note
	if o.Script != nil {
		p.Interactive = true
		p.Lib = template.JS(strings.ReplaceAll(string(o.Script), "</script", `<\/script`))
		p.App = template.JS(reportScript)
		b, err := json.Marshal(struct {
			Charts []jsChart `json:"charts"`
		}{p.Charts})
		if err != nil {
			return err
		}
		p.Data = template.JS(strings.ReplaceAll(string(b), "</", `<\/`))
	} else if static != nil {
		p.Static = static()
	}
	return pageTemplate().Execute(w, p)
}

// section renders one named block of sectionTemplates.
func section(name string, data any) (template.HTML, error) {
	var b bytes.Buffer
	if err := sectionTemplates().ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// WriteHTML writes the report of one run: per symbol the candles with
// volume, the series the strategies plot and the fills; equity against
// buy-and-hold; drawdown; the parameters and configuration; the metrics;
// tables per instance and per symbol; monthly and yearly returns; the
// trade returns' histogram; and every trade.
func WriteHTML(w io.Writer, rep Report, s Spec, res *Result, o HTMLOptions) error {
	quote := s.Quote
	if quote == "" {
		quote = "USDT"
	}
	syms := make([]string, 0, len(s.Data))
	for sym := range s.Data {
		syms = append(syms, sym)
	}
	sort.Strings(syms)
	p := page{Title: "spotbot backtest: " + rep.Title}
	places := map[string]int32{}
	for _, sym := range syms {
		places[sym] = pricePlaces(s, sym)
		p.Charts = append(p.Charts, candleChart(sym, s.Klines(sym), places[sym], plotsFor(s, sym), res.Fills, res.Trades, quote))
	}
	p.Charts = append(p.Charts, equityJSCharts(res, s)...)
	parts := []struct {
		name string
		data any
	}{
		{"config", configView(rep, s)},
		{"metrics", metricRows(rep)},
		{"instances", instanceRows(s, res, quote)},
		{"symbols", symbolRows(syms, res, quote)},
		{"monthly", monthlyReturns(res.Curve)},
		{"histogram", tradeHistogram(res.Trades)},
		{"trades", tradeRows(rep, res, places, quote)},
	}
	for _, part := range parts {
		h, err := section(part.name, part.data)
		if err != nil {
			return err
		}
		p.Sections = append(p.Sections, h)
	}
	return writePage(w, p, o, func() []chart {
		var cs []chart
		for _, sym := range syms {
			cs = append(cs, priceChart(sym, s.Klines(sym), res.Fills))
		}
		eq, dd := equityCharts(res, s)
		return append(cs, eq, dd)
	})
}

// pricePlaces is the decimal places prices of the symbol are shown with:
// the symbol's price scale, but no more than the data's prices use.
func pricePlaces(s Spec, sym string) int32 {
	scale := int32(8)
	found := false
	for i := range s.Symbols {
		if s.Symbols[i].Symbol == sym {
			scale, found = s.Symbols[i].PriceScale(), true
		}
	}
	if !found {
		if info, err := session.DefaultRules(sym, firstBar(s.Data[sym])); err == nil {
			scale = info.PriceScale()
		}
	}
	var used int32
	var head []exchange.Kline
	if ks := s.Data[sym]; ks != nil {
		head = ks.Slice(0, min(ks.Len(), 1000)).Klines()
	}
	for _, k := range head {
		for _, d := range []decimal.Decimal{k.Open, k.High, k.Low, k.Close} {
			// String drops trailing zeros: the decimals the price needs.
			if _, frac, ok := strings.Cut(d.String(), "."); ok && int32(len(frac)) > used {
				used = int32(len(frac))
			}
		}
	}
	return min(scale, max(used, 0))
}

// plotsFor asks each instance trading sym that implements
// strategy.Plotter for its series, built afresh from its configuration.
func plotsFor(s Spec, sym string) []strategy.PlotSeries {
	var out []strategy.PlotSeries
	for _, cfg := range s.Instances {
		if s.Registry == nil || !contains(cfg.Symbols, sym) {
			continue
		}
		st, err := s.Registry.New(cfg)
		if err != nil {
			continue
		}
		if pl, ok := st.(strategy.Plotter); ok {
			for _, ps := range pl.Plot(sym, s.Klines(sym)) {
				if len(s.Instances) > 1 {
					ps.Name = cfg.ID + " " + ps.Name
				}
				out = append(out, ps)
			}
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
