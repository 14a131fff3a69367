package backtest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// The static charts: inline SVG, drawn when the charting library is not
// at hand, so a report written offline still shows its curves.

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

// reduce returns at most about points points of s (chartPoints for the
// static SVG, maxPoints for the interactive charts), keeping the min and
// max of each bucket in time order.
func (s series) reduce(points int) series {
	n := len(s.v)
	if n <= points {
		return s
	}
	buckets := points / 2
	out := series{t: make([]time.Time, 0, points+2), v: make([]float64, 0, points+2)}
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

// gridLines returns the y axis lines at round values.
func (a axes) gridLines() []gridLine {
	ticks := niceTicks(a.lo, a.hi, 4)
	step := niceStep(a.hi-a.lo, 4)
	out := make([]gridLine, 0, len(ticks))
	for _, v := range ticks {
		out = append(out, gridLine{Y: a.y(v), Label: tickLabel(v, step)})
	}
	return out
}

// timeTicks returns about six dated labels along the x axis, at round
// days (or hours, over less than two days).
func (a axes) timeTicks() []timeTick {
	span := a.t1.Sub(a.t0)
	if span <= 0 {
		return nil
	}
	step, layout := 24*time.Hour, "2006-01-02"
	if span < 48*time.Hour {
		step, layout = time.Hour, "01-02 15:04"
	}
	n := time.Duration(math.Ceil(float64(span/step) / 6))
	step *= max(n, 1)
	var out []timeTick
	for t := a.t0.Truncate(step).Add(step); !t.After(a.t1); t = t.Add(step) {
		out = append(out, timeTick{X: a.x(t), Label: t.UTC().Format(layout)})
	}
	return out
}

type timeTick struct {
	X     float64
	Label string
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
	Times   []timeTick
	Empty   bool
}

// priceChart plots a symbol's closes with its fills as markers.
func priceChart(sym string, bars []exchange.Kline, fills Fills) chart {
	s := series{t: make([]time.Time, len(bars)), v: make([]float64, len(bars))}
	for i, k := range bars {
		s.t[i], s.v[i] = k.CloseTime.Add(time.Millisecond), k.Close.InexactFloat64() // the close instant
	}
	r := s.reduce(chartPoints)
	a := fitAxes(r)
	c := chart{ID: "price-" + sym, Title: sym + " close with buys and sells", Lines: []line{{"price", a.polyline(r)}},
		Grid: a.gridLines(), Times: a.timeTicks(), Empty: len(bars) == 0}
	for _, f := range fills.All() {
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
	er, hr, dr := eq.reduce(chartPoints), hold.reduce(chartPoints), dd.reduce(chartPoints)
	a := fitAxes(er, hr)
	equity := chart{ID: "equity", Title: "Equity (blue, solid) against buy and hold (grey, dashed)",
		Lines: []line{{"hold", a.polyline(hr)}, {"equity", a.polyline(er)}}, Grid: a.gridLines(),
		Times: a.timeTicks(), Empty: len(eq.v) == 0}
	b := fitAxes(dr)
	if b.hi < 0 {
		b.hi = 0
	}
	draw := chart{ID: "drawdown", Title: "Drawdown %", Lines: []line{{"drawdown", b.polyline(dr)}}, Grid: b.gridLines(),
		Times: b.timeTicks(), Empty: len(dd.v) == 0}
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
		hs = append(hs, &held{bars: s.Klines(sym), first: res.BuyHold[sym][0].InexactFloat64()})
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
