package backtest

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// SweepReport is what the sweep's HTML report draws.
type SweepReport struct {
	Title     string
	Objective string
	Params    []Param
	Runs      []SweepRun // best first
	Overfit   Overfitting
	// Spec and Best, when set, draw the chosen configuration's equity.
	Spec Spec
	Best *Result
}

type heatmap struct {
	Title  string
	XName  string
	YName  string
	XVals  []string
	Rows   []heatRow
	OnEdge bool
}

type heatRow struct {
	Y     string
	Cells []heatCellRun
}

type heatCellRun struct {
	Text, Title string
	Style       template.CSS
	Best        bool
}

// heatmaps lays the runs on the grid of the first two parameters (one
// row for one parameter), one map per combination of the others' values:
// small multiples, at most 24.
func heatmaps(params []Param, runs []SweepRun) []heatmap {
	if len(params) == 0 || len(runs) == 0 {
		return nil
	}
	byKey := map[string]SweepRun{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		byKey[r.Params.String()] = r
		if r.Err == "" {
			lo, hi = math.Min(lo, r.Score), math.Max(hi, r.Score)
		}
	}
	best := runs[0]
	x := params[0]
	y := Param{Name: "", Values: []any{""}}
	if len(params) > 1 {
		y = params[1]
	}
	rest := Grid(params[min(2, len(params)):])
	if len(rest) > 24 {
		rest = rest[:24]
	}
	var out []heatmap
	for _, other := range rest {
		h := heatmap{Title: other.String(), XName: x.Name, YName: y.Name}
		for _, xv := range x.Values {
			h.XVals = append(h.XVals, fmt.Sprint(xv))
		}
		for _, yv := range y.Values {
			row := heatRow{Y: fmt.Sprint(yv)}
			for _, xv := range x.Values {
				c := Combo{x.Name: xv}
				if y.Name != "" {
					c[y.Name] = yv
				}
				for k, v := range other {
					c[k] = v
				}
				r, ok := byKey[c.String()]
				cell := heatCellRun{Text: "", Title: c.String() + ": not run"}
				switch {
				case !ok:
				case r.Err != "":
					cell = heatCellRun{Text: "×", Title: c.String() + ": " + r.Err}
				default:
					a := 0.1
					if hi > lo {
						a = 0.1 + 0.8*(r.Score-lo)/(hi-lo)
					}
					cell = heatCellRun{Text: strconv.FormatFloat(r.Score, 'f', 3, 64), Title: fmt.Sprintf("%s: score %.4f, return %.2f%%, max drawdown %.2f%%, %d trades",
						c.String(), r.Score, r.Metrics.ReturnPct, r.Metrics.MaxDrawdownPct, r.Metrics.Trades), Style: template.CSS(fmt.Sprintf("background:rgba(9,105,218,%.2f)", a))}
				}
				if ok && r.Index == best.Index && best.Err == "" {
					cell.Best = true
				}
				row.Cells = append(row.Cells, cell)
			}
			h.Rows = append(h.Rows, row)
		}
		out = append(out, h)
	}
	return out
}

// BestOnEdge names the parameters whose best value is the first or last
// of its range: the optimum may lie outside the grid.
func BestOnEdge(params []Param, best Combo) []string {
	var out []string
	for _, p := range params {
		if len(p.Values) < 2 {
			continue
		}
		v := fmt.Sprint(best[p.Name])
		if v == fmt.Sprint(p.Values[0]) || v == fmt.Sprint(p.Values[len(p.Values)-1]) {
			out = append(out, p.Name+"="+v)
		}
	}
	return out
}

type sweepRunRow struct {
	Rank                                 int
	Score, Return, Sharpe, MaxDD, Params string
	Trades                               string
}

type overfitView struct {
	O     Overfitting
	PBO   string
	Edge  string
	Rows  []kv
	Notes []string
}

// OverfitRows are the overfitting statistics as name and value, for the
// summary and the HTML report.
func OverfitRows(o Overfitting) []kv {
	pbo := "n/a"
	if o.PBO != nil {
		pbo = fmt.Sprintf("%.3f (CSCV, %d partitions, %d splits)", *o.PBO, o.Partitions, o.Splits)
	}
	rows := []kv{
		{"Probability of backtest overfitting", pbo},
		{"Trials (distinct configurations)", strconv.Itoa(o.Trials)},
		{"Chosen Sharpe per bar", fmt.Sprintf("%.5f over %d returns (skew %.3f, kurtosis %.3f)", o.Sharpe, o.Returns, o.Skew, o.Kurtosis)},
		{"Expected best Sharpe by luck", fmt.Sprintf("%.5f (variance of trials' Sharpe %.3g)", o.ExpectedMaxSharpe, o.SharpeVariance)},
		{"Deflated Sharpe ratio", fmt.Sprintf("%.4f", o.DeflatedSharpe)},
	}
	if b := o.Bootstrap; b != nil {
		iv := func(i Interval) string { return fmt.Sprintf("[%.2f, %.2f]", i.Lo, i.Hi) }
		if b.TradeReturnPct != nil {
			rows = append(rows, kv{"Return % 95% (trades resampled)", iv(*b.TradeReturnPct)},
				kv{"Max drawdown % 95% (trades resampled)", iv(*b.TradeDrawdownPct)})
		}
		rows = append(rows, kv{fmt.Sprintf("Return %% 95%% (blocks of %d returns)", b.Block), iv(b.BlockReturnPct)},
			kv{fmt.Sprintf("Max drawdown %% 95%% (blocks of %d returns)", b.Block), iv(b.BlockDrawdownPct)},
			kv{"Bootstrap", fmt.Sprintf("%d resamples, seed %d", b.Samples, b.Seed)})
	}
	return rows
}

// WriteSweepHTML writes a sweep's report: the objective over the grid as
// heatmaps (the best run outlined, flagged when on the grid's edge), the
// overfitting statistics, the chosen configuration's equity and drawdown,
// and the ranked runs.
func WriteSweepHTML(w io.Writer, r SweepReport, o HTMLOptions) error {
	p := page{Title: "spotbot sweep: " + r.Title}
	if r.Best != nil {
		p.Charts = equityJSCharts(r.Best, r.Spec)
		p.Charts[0].Title = "Equity of the chosen configuration " + r.Runs[0].Params.String()
	}
	var edge string
	if len(r.Runs) > 0 && r.Runs[0].Err == "" {
		if e := BestOnEdge(r.Params, r.Runs[0].Params); len(e) > 0 {
			edge = "The best run sits on the edge of the grid (" + strings.Join(e, ", ") + "): the optimum may lie outside it; widen the range."
		}
	}
	var rows []sweepRunRow
	for i, run := range r.Runs {
		if i >= 100 {
			break
		}
		row := sweepRunRow{Rank: i + 1, Params: run.Params.String(), Score: "-", Return: "-", Sharpe: "-", MaxDD: "-", Trades: "-"}
		if run.Err != "" {
			row.Params += " (" + run.Err + ")"
		} else {
			m := run.Metrics
			row.Score, row.Return, row.Sharpe = strconv.FormatFloat(run.Score, 'f', 4, 64), pct(m.ReturnPct), num(m.Sharpe)
			row.MaxDD, row.Trades = pct(m.MaxDrawdownPct), strconv.Itoa(m.Trades)
		}
		rows = append(rows, row)
	}
	parts := []struct {
		name string
		data any
	}{
		{"sweep-grid", struct {
			Objective string
			Maps      []heatmap
			Edge      string
		}{r.Objective, heatmaps(r.Params, r.Runs), edge}},
		{"overfitting", overfitView{O: r.Overfit, Rows: OverfitRows(r.Overfit), Notes: r.Overfit.Notes}},
		{"sweep-runs", rows},
	}
	for _, part := range parts {
		h, err := section(part.name, part.data)
		if err != nil {
			return err
		}
		p.Sections = append(p.Sections, h)
	}
	return writePage(w, p, o, func() []chart {
		if r.Best == nil {
			return nil
		}
		eq, dd := equityCharts(r.Best, r.Spec)
		return []chart{eq, dd}
	})
}

// WriteWalkForwardHTML writes a walk-forward's report: in-sample and
// out-of-sample equity stitched into one chart (each window's in-sample
// run scaled to end where its out-of-sample part starts), the windows and
// the chained out-of-sample metrics.
func WriteWalkForwardHTML(w io.Writer, title string, res *WalkForwardResult, o HTMLOptions) error {
	p := page{Title: "spotbot walk-forward: " + title}
	oos := series{}
	for _, pt := range res.Curve.All() {
		oos.t, oos.v = append(oos.t, pt.Time()), append(oos.v, pt.Value)
	}
	c := jsChart{ID: "chart-walkforward", Height: 340, Intraday: true, Title: "In-sample (grey) and out-of-sample (blue) equity",
		Legend: []legend{{"out of sample, chained", "#0969da"}, {"in sample, each window's best", "#8c959f"}}}
	c.Series = append(c.Series, jsSeries{Type: "line", Title: "out of sample", Color: "#0969da", Width: 2, Precision: 2, Data: lineData(oos, 2)})
	for _, win := range res.Windows {
		if win.TrainCurve.Len() == 0 {
			continue
		}
		// The chained equity where this window's test starts.
		at := win.TestFrom
		start := math.NaN()
		for i, pt := range res.Curve.All() {
			if !pt.Time().Before(at) {
				start = res.Curve.Values[i]
				break
			}
		}
		last := win.TrainCurve.Values[win.TrainCurve.Len()-1]
		if math.IsNaN(start) || last <= 0 {
			continue
		}
		is := series{}
		for _, pt := range win.TrainCurve.All() {
			is.t, is.v = append(is.t, pt.Time()), append(is.v, pt.Value*start/last)
		}
		c.Series = append(c.Series, jsSeries{Type: "line", Color: "#8c959f", Dashed: true, Precision: 2, Data: lineData(is, 2)})
	}
	p.Charts = []jsChart{c}
	type winRow struct{ TrainFrom, TestFrom, TestTo, Best, Score, Return, Trades string }
	var rows []winRow
	for _, win := range res.Windows {
		rows = append(rows, winRow{win.TrainFrom.Format(time.DateOnly), win.TestFrom.Format(time.DateOnly), win.TestTo.Format(time.DateOnly),
			win.Best.String(), strconv.FormatFloat(win.TrainScore, 'f', 4, 64), pct(win.Test.ReturnPct), strconv.Itoa(win.Test.Trades)})
	}
	h, err := section("windows", rows)
	if err != nil {
		return err
	}
	p.Sections = append(p.Sections, h)
	h, err = section("metrics", metricRows(Report{Title: title, Metrics: res.Aggregate, FillModel: "as configured", Quote: "USDT"}))
	if err != nil {
		return err
	}
	p.Sections = append(p.Sections, h)
	return writePage(w, p, o, func() []chart {
		a := fitAxes(oos.reduce(chartPoints))
		return []chart{{ID: "walkforward", Title: "Out-of-sample equity, chained", Lines: []line{{"equity", a.polyline(oos.reduce(chartPoints))}},
			Grid: a.gridLines(), Times: a.timeTicks(), Empty: oos.t == nil}}
	})
}
