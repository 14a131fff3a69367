package backtest

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// Exposure marks, a bit per curve point, the points at which some position
// was held; kept apart from the curve so a point stays 16 bytes.
type Exposure []uint64

// Held reports whether a position was held at point i.
func (e Exposure) Held(i int) bool { return i/64 < len(e) && e[i/64]&(1<<(i%64)) != 0 }

// Count is the number of points with a position held.
func (e Exposure) Count() int {
	n := 0
	for _, w := range e {
		n += bits.OnesCount64(w)
	}
	return n
}

// mark records whether a position was held at point i (points are marked
// in order).
func (e *Exposure) mark(i int, held bool) {
	for len(*e) <= i/64 {
		*e = append(*e, 0)
	}
	if held {
		(*e)[i/64] |= 1 << (i % 64)
	}
}

// markRange is mark(i, held) for every i in [from, to), a word at a time.
func (e *Exposure) markRange(from, to int, held bool) {
	if to <= from {
		return
	}
	for len(*e) <= (to-1)/64 {
		*e = append(*e, 0)
	}
	if !held {
		return
	}
	for i := from; i < to; {
		w, bit := i/64, i%64
		n := min(64-bit, to-i)
		mask := ^uint64(0)
		if n < 64 {
			mask = (uint64(1)<<n - 1) << bit
		}
		(*e)[w] |= mask
		i += n
	}
}

// DrawdownSeries returns each point's drawdown below the running peak, as
// a fraction (0 at a new peak), for reports.
func DrawdownSeries(c Curve) []float64 {
	out := make([]float64, len(c.Values))
	peak := math.Inf(-1)
	for i, v := range c.Values {
		if v >= peak {
			peak = v
			continue
		}
		out[i] = (peak - v) / peak
	}
	return out
}

// exactAt returns the exact equity of point i when known, else its value
// as text.
func exactAt(c Curve, exact map[int]decimal.Decimal, i int) string {
	if d, ok := exact[i]; ok {
		return d.String()
	}
	return strconv.FormatFloat(c.Values[i], 'f', -1, 64)
}

// Metrics are a run's results. Percentages are in percent (12.5 = 12.5%).
type Metrics struct {
	Start            time.Time      `json:"start"`
	End              time.Time      `json:"end"`
	Duration         string         `json:"duration"`
	Bars             int            `json:"bars"`
	ExposurePct      float64        `json:"exposure_pct"`
	EquityStart      string         `json:"equity_start"`
	EquityFinal      string         `json:"equity_final"`
	EquityPeak       string         `json:"equity_peak"`
	ReturnPct        float64        `json:"return_pct"`
	BuyHoldPct       float64        `json:"buy_hold_return_pct"`
	CAGRPct          float64        `json:"cagr_pct"`
	AnnReturnPct     float64        `json:"annual_return_pct"`
	AnnVolPct        float64        `json:"annual_volatility_pct"`
	PeriodsPerYear   float64        `json:"periods_per_year"`
	Sharpe           float64        `json:"sharpe"`
	Sortino          float64        `json:"sortino"`
	Calmar           float64        `json:"calmar"`
	MaxDrawdownPct   float64        `json:"max_drawdown_pct"`
	MaxDrawdownDur   string         `json:"max_drawdown_duration"`
	AvgDrawdownPct   float64        `json:"avg_drawdown_pct"`
	Trades           int            `json:"trades"`
	WinRatePct       float64        `json:"win_rate_pct"`
	BestTradePct     float64        `json:"best_trade_pct"`
	WorstTradePct    float64        `json:"worst_trade_pct"`
	AvgTradePct      float64        `json:"avg_trade_pct"`
	ProfitFactor     float64        `json:"profit_factor"`
	Expectancy       string         `json:"expectancy"`
	SQN              float64        `json:"sqn"`
	AvgTradeDuration string         `json:"avg_trade_duration"`
	MaxTradeDuration string         `json:"max_trade_duration"`
	FeesPaid         string         `json:"fees_paid"`
	Volume           string         `json:"volume_traded"`
	Rejected         map[string]int `json:"orders_rejected"`
	BudgetWait       string         `json:"rate_budget_wait"`
}

// periodsPerYear derives the sampling rate from the data's calendar: a year
// of 365.25 days divided by the median spacing of the equity samples.
// Crypto markets trade every day, so no trading-day calendar applies.
func periodsPerYear(curve Curve) float64 {
	if curve.Len() < 2 {
		return 0
	}
	// Bars are evenly spaced but for gaps, so a count per distinct spacing
	// finds the median without sorting a million of them.
	counts := map[int64]int{}
	for gap, n := range curve.spacings() {
		counts[gap] += n
	}
	gaps := make([]int64, 0, len(counts))
	for g := range counts {
		gaps = append(gaps, g)
	}
	slices.Sort(gaps)
	mid, seen := (curve.Len()-1)/2, 0 // index of the median among the sorted spacings
	var med int64
	for _, g := range gaps {
		seen += counts[g]
		if seen > mid {
			med = g
			break
		}
	}
	if med <= 0 {
		return 0
	}
	return float64(365.25*24*time.Hour) / float64(time.Duration(med)*time.Millisecond)
}

// buyHoldPct is the buy-and-hold return in percent: (last / first − 1) ×
// 100 of each symbol's pair of closes, averaged over the symbols with
// equal weights, summed in the symbols' order; 0 without symbols.
func buyHoldPct(closes map[string][2]decimal.Decimal) float64 {
	syms := make([]string, 0, len(closes))
	for sym, c := range closes {
		if c[0].IsPositive() {
			syms = append(syms, sym)
		}
	}
	if len(syms) == 0 {
		return 0
	}
	slices.Sort(syms)
	var bh float64
	for _, sym := range syms {
		c := closes[sym]
		bh += c[1].DivRound(c[0], 16).Sub(decimal.NewFromInt(1)).Shift(2).InexactFloat64()
	}
	return bh / float64(len(syms))
}

// ComputeInput is everything Compute needs.
type ComputeInput struct {
	Curve Curve
	// Exact holds the exact equity of some points by index; the first,
	// last and peak values are printed from it when present.
	Exact map[int]decimal.Decimal
	// Exposed marks the points at which a position was held.
	Exposed    Exposure
	Trades     []Trade
	Fees       decimal.Decimal
	Volume     decimal.Decimal
	BuyHoldPct float64
	Rejected   map[string]int
	BudgetWait time.Duration
}

// Compute derives the metrics; each formula is written in docs/metrics.md.
func Compute(in ComputeInput) Metrics {
	m := curveMetrics(in)
	m.addTrades(in)
	return m
}

// addTrades sets what Compute derives from in's trades, fees, volume and
// buy-and-hold return, to metrics curveMetrics derived from in's curve:
// the two halves are independent, so a run works out its trades while
// another core goes through the curve (driver.result).
func (m *Metrics) addTrades(in ComputeInput) {
	m.FeesPaid, m.Volume, m.BuyHoldPct = in.Fees.String(), in.Volume.String(), in.BuyHoldPct
	if in.Curve.Len() > 0 {
		tradeStats(m, in.Trades)
	}
}

// curveMetrics is Compute's part that reads only in's curve, exact
// values, exposure, refusals and budget wait.
func curveMetrics(in ComputeInput) Metrics {
	m := Metrics{Rejected: in.Rejected, BudgetWait: in.BudgetWait.String(), Bars: in.Curve.Len(), Expectancy: "0"}
	if m.Rejected == nil {
		m.Rejected = map[string]int{}
	}
	cv := in.Curve
	c := cv.Values
	if len(c) == 0 {
		return m
	}
	m.Start, m.End = cv.Point(0).Time(), cv.Point(len(c)-1).Time()
	dur := m.End.Sub(m.Start)
	m.Duration = dur.String()
	m.EquityStart, m.EquityFinal = exactAt(cv, in.Exact, 0), exactAt(cv, in.Exact, len(c)-1)
	// One pass finds the peak, sums the per-period returns and follows
	// the drawdowns; the squared deviations, which need the mean, take a
	// second one (not a slice of a million returns).
	//
	// The peak is the first point of the highest value, or a later point
	// of that value that carries an exact value (producers compute it at
	// new peaks): the last such. The exact points are few, so they are
	// looked through rather than looked up at every point.
	peak := 0
	var n int
	var sum float64
	draw := drawdown{peak: c[0], low: c[0]}
	for i := 1; i < len(c); i++ {
		v := c[i]
		if v == c[i-1] {
			// A flat stretch, i to j-1, all equal to the point before:
			// none is a new highest point; each return is 0, counted
			// while the value is positive; the drawdown's peak (when the
			// point before reached it) moves to the stretch's last
			// point, and a depth below it stays what it was.
			j := i + 1
			for j < len(c) && c[j] == v {
				j++
			}
			if v > 0 {
				n += j - i
			}
			if v >= draw.peak {
				draw.peak, draw.peakIdx = c[j-1], j-1 // equal, but maybe −0 for +0
			}
			i = j - 1
			continue
		}
		// A moving point's return (periodReturn: v differs from the
		// point before). One that rounds to +0 leaves the sum as it is
		// (the sum starts at +0 and no return is −0, so it is never −0).
		if a := c[i-1]; a > 0 {
			sum += v/a - 1
			n++
		}
		// The drawdowns (drawdown), written out here: a call per point
		// would cost more than the rest of the loop. The drawdown's peak
		// is the highest value so far, as c[peak] is (the same number,
		// maybe −0 for +0), so only a point at it can be a new highest.
		if v >= draw.peak {
			if v > c[peak] {
				peak = i
			}
			if draw.depth > 0 {
				draw.ended(&cv, i)
			}
			draw.peak, draw.peakIdx, draw.depth, draw.low = v, i, 0, v
			continue
		}
		// Below a finite positive peak, (peak − v) / peak falls as v
		// rises (each correctly rounded step is monotonic), so a point
		// not below the lowest since the peak cannot deepen the
		// drawdown: its division is skipped.
		if !(v < draw.low) && draw.peak > 0 && draw.peak <= math.MaxFloat64 {
			continue
		}
		dd := (draw.peak - v) / draw.peak
		if dd > draw.depth {
			draw.depth = dd
		}
		if dd > draw.maxDD {
			draw.maxDD = dd
		}
		draw.low = min(draw.low, v)
	}
	first := peak
	for i := range in.Exact {
		if i > peak && i < len(c) && c[i] == c[first] {
			peak = i
		}
	}
	m.EquityPeak = exactAt(cv, in.Exact, peak)
	m.ExposurePct = 100 * float64(in.Exposed.Count()) / float64(len(c))
	f0, f1 := c[0], c[len(c)-1]
	if f0 > 0 {
		m.ReturnPct = (f1/f0 - 1) * 100
		if years := dur.Hours() / (365.25 * 24); years > 0 && f1 > 0 {
			m.CAGRPct = (math.Pow(f1/f0, 1/years) - 1) * 100
		}
	}

	ppy := periodsPerYear(cv)
	m.PeriodsPerYear = ppy
	if n > 1 && ppy > 0 && f0 > 0 && f1 > 0 {
		m.AnnReturnPct = (math.Pow(f1/f0, ppy/float64(n)) - 1) * 100
		mean := sum / float64(n)
		ss, down := deviations(c, mean)
		sd := math.Sqrt(ss / float64(n-1))
		m.AnnVolPct = sd * math.Sqrt(ppy) * 100
		if sd > 0 {
			m.Sharpe = mean / sd * math.Sqrt(ppy)
		}
		if dd := math.Sqrt(down / float64(n)); dd > 0 {
			m.Sortino = mean / dd * math.Sqrt(ppy)
		}
	}

	maxDD, maxDur, avgDD := draw.end(&cv)
	m.MaxDrawdownPct, m.MaxDrawdownDur, m.AvgDrawdownPct = maxDD*100, maxDur.String(), avgDD*100
	if maxDD > 0 {
		m.Calmar = m.CAGRPct / (maxDD * 100)
	}
	return m
}

// deviations sums, over the defined returns of the points of c in order
// (periodReturn), the squared deviations from mean and the squares of
// the negative returns: what the plain loop adding (r − mean)² and, for
// r < 0, r² at each point gives, to the bit (TestDeviations), as cheaply
// as it can be had.
//
// A flat point's return is 0, so its square deviation is mean², added
// point by point (the additions round); with mean 0 that is +0, which
// changes nothing (the sums start at +0 and only ever add values that
// are not −0, so they are never −0), so a flat stretch is then skipped.
// A moving point adds r² to down through a mask rather than a branch: the
// sign of a return is a coin toss the processor would mispredict at
// every other point, which cost more than the rest of the loop; a masked
// r² is +0, which changes nothing.
func deviations(c []float64, mean float64) (ss, down float64) {
	m2 := mean * mean // (0 − mean)², the same bits as (−mean)·(−mean)
	for i := 1; i < len(c); i++ {
		a, b := c[i-1], c[i]
		if b == a {
			j := i + 1
			for j < len(c) && c[j] == a {
				j++
			}
			if a > 0 && m2 != 0 {
				for range j - i {
					ss += m2
				}
			}
			i = j - 1
			continue
		}
		if !(a > 0) {
			continue // no return from a point that is not positive
		}
		r := b/a - 1
		d := r - mean
		ss += d * d
		var neg uint64
		if r < 0 {
			neg = math.MaxUint64
		}
		down += math.Float64frombits(math.Float64bits(r*r) & neg)
	}
	return ss, down
}

// meanStd returns the mean and the sample standard deviation (n−1).
func meanStd(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// periodReturn is the return from a point of value a to the next, of
// value b, and whether it is defined (a > 0).
func periodReturn(a, b float64) (float64, bool) {
	if b == a {
		return 0, a > 0 // a/a - 1, without the division: flat bars are most bars
	}
	return b/a - 1, a > 0
}

// drawdown follows the drawdowns along a curve, point by point, from the
// first point as the peak (Compute's loop), for end: the deepest drawdown
// (a fraction of the running peak), the longest time from a peak to the
// recovery of that peak (or to the end), and the mean depth of the
// separate drawdown periods. A point's time is looked up only where a
// drawdown ends (Curve.At), not carried at every point.
type drawdown struct {
	peak    float64
	peakIdx int
	low     float64 // the lowest point since the peak (the peak at first)
	depth   float64 // of the current period
	sum     float64 // the depths of the periods so far, added in order
	periods int
	maxDD   float64
	maxDur  time.Duration
}

// ended closes the current period at point i.
func (d *drawdown) ended(c *Curve, i int) {
	d.sum += d.depth
	d.periods++
	if dur := time.Duration(c.At(i)-c.At(d.peakIdx)) * time.Millisecond; dur > d.maxDur {
		d.maxDur = dur
	}
}

// end closes a period still open at the curve's last point and returns
// the deepest drawdown, the longest one's duration and the mean depth.
func (d *drawdown) end(c *Curve) (maxDD float64, maxDur time.Duration, avg float64) {
	if d.depth > 0 {
		d.ended(c, c.Len()-1)
	}
	if d.periods > 0 {
		avg = d.sum / float64(d.periods)
	}
	return d.maxDD, d.maxDur, avg
}

func tradeStats(m *Metrics, trades []Trade) {
	m.Trades = len(trades)
	m.Expectancy = "0"
	if len(trades) == 0 {
		return
	}
	var wins int
	var gross, loss float64
	pnl := make([]float64, len(trades))
	var sumPnL decSum
	var sumRet float64
	var sumDur, maxDur time.Duration
	m.BestTradePct, m.WorstTradePct = math.Inf(-1), math.Inf(1)
	for i, t := range trades {
		p := t.PnL.InexactFloat64()
		pnl[i] = p
		sumPnL.Add(t.PnL)
		if p > 0 {
			wins++
			gross += p
		} else {
			loss -= p
		}
		sumRet += t.ReturnPct
		m.BestTradePct = math.Max(m.BestTradePct, t.ReturnPct)
		m.WorstTradePct = math.Min(m.WorstTradePct, t.ReturnPct)
		sumDur += t.Duration()
		if t.Duration() > maxDur {
			maxDur = t.Duration()
		}
	}
	n := float64(len(trades))
	m.WinRatePct = 100 * float64(wins) / n
	m.AvgTradePct = sumRet / n
	if loss > 0 {
		m.ProfitFactor = gross / loss
	}
	m.Expectancy = sumPnL.Decimal().Div(decimal.NewFromInt(int64(len(trades)))).StringFixed(8)
	if len(trades) > 1 {
		mean, sd := meanStd(pnl)
		if sd > 0 {
			m.SQN = math.Sqrt(n) * mean / sd
		}
	}
	m.AvgTradeDuration = (sumDur / time.Duration(len(trades))).Round(time.Second).String()
	m.MaxTradeDuration = maxDur.String()
}
