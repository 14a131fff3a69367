package backtest

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// ReportSchema names the version of the JSON report's layout. It changes
// only when a field is renamed or removed; docs/backtest.md describes it.
const ReportSchema = "spotbot.backtest/v1"

// Report is a backtest's result with what produced it, as written to JSON.
type Report struct {
	Schema    string            `json:"schema"`
	Title     string            `json:"title"`
	Interval  string            `json:"interval"`
	Instances []strategy.Config `json:"instances"`
	Balances  map[string]string `json:"starting_balances"`
	FillModel string            `json:"fill_model"`
	Metrics   Metrics           `json:"metrics"`
	Final     map[string]string `json:"final_balances"`
	Trades    []TradeRow        `json:"trades"`
	Stopped   []string          `json:"stopped_instances"`
	// Locks are the protections' locks set during the run.
	Locks []LockRow `json:"locks,omitempty"`
	// Quote is the asset money is counted in; the summary shows amounts
	// in it to cents (fiat and stablecoins) or to 8 decimals.
	Quote string `json:"-"`
}

// LockRow is a protection's lock as reports write it.
type LockRow struct {
	Instance string `json:"instance"`
	Symbol   string `json:"symbol"`
	Reason   string `json:"reason"`
	From     string `json:"from"`
	Until    string `json:"until"`
}

// TradeRow is a round trip as reports write it: decimals as text, times
// in RFC 3339 UTC.
type TradeRow struct {
	// Instance is the instance whose trade it is, written only when the
	// run has several instances (one instance's reports stay as they were).
	Instance   string  `json:"instance,omitempty"`
	Symbol     string  `json:"symbol"`
	EntryTime  string  `json:"entry_time"`
	ExitTime   string  `json:"exit_time"`
	Qty        string  `json:"qty"`
	EntryPrice string  `json:"entry_price"`
	ExitPrice  string  `json:"exit_price"`
	Fees       string  `json:"fees"`
	PnL        string  `json:"pnl"`
	ReturnPct  float64 `json:"return_pct"`
	ExitReason string  `json:"exit_reason"`
}

// NewReport assembles the report of a run.
func NewReport(title string, s Spec, res *Result) Report {
	r := Report{Schema: ReportSchema, Title: title, Interval: string(s.Interval), Instances: s.Instances,
		Balances: map[string]string{}, FillModel: s.Fill.String(), Metrics: res.Metrics, Final: map[string]string{},
		Trades: make([]TradeRow, len(res.Trades)), Stopped: []string{}, Quote: s.Quote}
	if r.Quote == "" {
		r.Quote = "USDT"
	}
	for a, v := range s.Balances {
		r.Balances[a] = v.String()
	}
	for a, v := range res.Balances {
		r.Final[a] = v.String()
	}
	several := len(s.Instances) > 1
	// Formatting a trade takes a few tenths of a microsecond
	// (BenchmarkNewReport): a long run's are split across the cores,
	// each row written by one of them.
	n := len(res.Trades)
	workers := min(runtime.GOMAXPROCS(0), n/reportChunk)
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { formatTrades(r.Trades, res.Trades, w*n/workers, (w+1)*n/workers, several) })
	}
	formatTrades(r.Trades, res.Trades, 0, n/max(workers, 1), several)
	wg.Wait()
	for _, l := range res.Locks {
		r.Locks = append(r.Locks, LockRow{Instance: l.Instance, Symbol: l.Symbol, Reason: l.Reason, From: stamp(l.From), Until: stamp(l.Until)})
	}
	for _, st := range res.Stopped {
		r.Stopped = append(r.Stopped, st.ID+": "+st.Stopped)
	}
	return r
}

// reportChunk is the fewest trades NewReport hands a core of its own.
const reportChunk = 2048

// formatTrades sets rows[lo:hi] to the rows of trades[lo:hi], their
// instances when several. The texts of up to rowBlock rows (two stamps and
// five decimals each) are appended into one buffer and cut from one
// string made of it: one allocation where each text took one or two.
func formatTrades(rows []TradeRow, trades []Trade, lo, hi int, several bool) {
	const texts = 7 // a row's
	var st stamper
	b := make([]byte, 0, rowBlock*128)
	ends := make([]int, 0, rowBlock*texts)
	for ; lo < hi; lo += rowBlock {
		end := min(lo+rowBlock, hi)
		b, ends = b[:0], ends[:0]
		for i := lo; i < end; i++ {
			t := &trades[i]
			b = st.appendTime(b, t.EntryTime)
			ends = append(ends, len(b))
			b = st.appendTime(b, t.ExitTime)
			ends = append(ends, len(b))
			for _, d := range [...]*decimal.Decimal{&t.Qty, &t.EntryPrice, &t.ExitPrice, &t.Fees, &t.PnL} {
				b = appendDecimal(b, *d)
				ends = append(ends, len(b))
			}
		}
		text, from := string(b), 0
		for i := lo; i < end; i++ {
			var f [texts]string
			for j := range f {
				to := ends[(i-lo)*texts+j]
				f[j], from = text[from:to], to
			}
			t := &trades[i]
			var in string
			if several {
				in = t.Instance
			}
			rows[i] = TradeRow{Instance: in, Symbol: t.Symbol, EntryTime: f[0], ExitTime: f[1], Qty: f[2], EntryPrice: f[3],
				ExitPrice: f[4], Fees: f[5], PnL: f[6], ReturnPct: round(t.ReturnPct, 6), ExitReason: t.ExitReason}
		}
	}
}

// rowBlock is the most rows formatTrades cuts from one string (about 12 KB).
const rowBlock = 128

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// round is v to places decimals as its text of that many decimals reads
// back: the float64 nearest the decimal strconv.FormatFloat(v, 'f',
// places, 64) writes. That decimal is v·10^places rounded to an integer q
// (fixedScaled, the digits appendScaled writes) over 10^places; with q
// below 10^15 both are exact float64s and their quotient, rounded to the
// nearest as ParseFloat rounds, is the same float64. Other values are
// written and parsed.
func round(v float64, places int) float64 {
	if q, ok := fixedScaled(v, places); ok && q < 1e15 {
		r := float64(q) / float64(exchange.Pow10(places))
		if math.Signbit(v) {
			r = -r
		}
		return r
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', places, 64), 64)
	return r
}

// WriteSummary writes the metrics as an aligned two-column table, in
// readable units: durations in days and hours, money in the quote asset
// to cents (8 decimals for a quote that is not fiat-like). report.json
// keeps the exact values.
func (r Report) WriteSummary(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, row := range r.summaryRows() {
		fmt.Fprintf(tw, "%s\t%s\n", row[0], row[1])
	}
	return tw.Flush()
}

// summaryRows are the summary's rows, shared by the terminal and HTML.
func (r Report) summaryRows() [][2]string {
	m := r.Metrics
	q := r.Quote
	cash := func(s string) string {
		if s == "" {
			return "-"
		}
		return strings.TrimSpace(money(s, q) + " " + q)
	}
	rows := [][2]string{
		{"Backtest", r.Title},
		{"Fill model", r.FillModel},
		{"Start", stamp(m.Start)},
		{"End", stamp(m.End)},
		{"Duration", humanDurationText(m.Duration)},
		{"Bars", strconv.Itoa(m.Bars)},
		{"Exposure %", pct(m.ExposurePct)},
		{"Equity start", cash(m.EquityStart)},
		{"Equity final", cash(m.EquityFinal)},
		{"Equity peak", cash(m.EquityPeak)},
		{"Return %", pct(m.ReturnPct)},
		{"Buy & hold return %", pct(m.BuyHoldPct)},
		{"CAGR %", pct(m.CAGRPct)},
		{"Annual return %", pct(m.AnnReturnPct)},
		{"Annual volatility %", pct(m.AnnVolPct)},
		{"Sharpe", num(m.Sharpe)},
		{"Sortino", num(m.Sortino)},
		{"Calmar", num(m.Calmar)},
		{"Max drawdown %", pct(m.MaxDrawdownPct)},
		{"Max drawdown duration", humanDurationText(m.MaxDrawdownDur)},
		{"Avg drawdown %", pct(m.AvgDrawdownPct)},
		{"Trades", strconv.Itoa(m.Trades)},
		{"Win rate %", pct(m.WinRatePct)},
		{"Best trade %", pct(m.BestTradePct)},
		{"Worst trade %", pct(m.WorstTradePct)},
		{"Avg trade %", pct(m.AvgTradePct)},
		{"Profit factor", num(m.ProfitFactor)},
		{"Expectancy", cash(m.Expectancy)},
		{"SQN", num(m.SQN)},
		{"Avg trade duration", humanDurationText(m.AvgTradeDuration)},
		{"Max trade duration", humanDurationText(m.MaxTradeDuration)},
		{"Fees paid", cash(m.FeesPaid)},
		{"Volume traded", cash(m.Volume)},
		{"Rate budget wait", humanDurationText(m.BudgetWait)},
	}
	for _, rule := range sortedKeys(m.Rejected) {
		rows = append(rows, [2]string{"Rejected: " + rule, strconv.Itoa(m.Rejected[rule])})
	}
	for _, s := range r.Stopped {
		rows = append(rows, [2]string{"Stopped", s})
	}
	return rows
}

func pct(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
func num(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// WriteTradesCSV writes the round trips, one per row; a run of several
// instances gets a last column, instance, naming whose trade each is.
//
// The rows are appended into a block of bytes written whole, each field
// quoted as encoding/csv quotes it (appendCSVField), without a slice of
// fields per row: the bytes are those encoding/csv wrote
// (TestWriteTradesCSVAsCSV).
func (r Report) WriteTradesCSV(w io.Writer) error {
	const block = 64 << 10
	b := make([]byte, 0, block+1024)
	b = append(b, "symbol,entry_time,exit_time,qty,entry_price,exit_price,fees,pnl,return_pct,exit_reason"...)
	several := len(r.Instances) > 1
	if several {
		b = append(b, ",instance"...)
	}
	b = append(b, '\n')
	for i := range r.Trades {
		t := &r.Trades[i]
		for _, f := range [...]string{t.Symbol, t.EntryTime, t.ExitTime, t.Qty, t.EntryPrice, t.ExitPrice, t.Fees, t.PnL} {
			b = appendCSVField(b, f)
			b = append(b, ',')
		}
		// A float's text (digits, a sign, a point, NaN or Inf) is never
		// quoted.
		b = strconv.AppendFloat(b, t.ReturnPct, 'f', -1, 64)
		b = append(b, ',')
		b = appendCSVField(b, t.ExitReason)
		if several {
			b = append(b, ',')
			b = appendCSVField(b, t.Instance)
		}
		b = append(b, '\n')
		if len(b) >= block {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	_, err := w.Write(b)
	return err
}

// appendCSVField appends f as a field as encoding/csv's Writer writes it
// (comma-separated, "\n" line ends): quoted when it holds a comma, a
// quote, a carriage return or a line feed, begins with a space
// (unicode.IsSpace) or is \., its quotes doubled.
func appendCSVField(b []byte, f string) []byte {
	if !csvNeedsQuotes(f) {
		return append(b, f...)
	}
	b = append(b, '"')
	for {
		i := strings.IndexByte(f, '"')
		if i < 0 {
			break
		}
		b = append(b, f[:i+1]...)
		b = append(b, '"')
		f = f[i+1:]
	}
	b = append(b, f...)
	return append(b, '"')
}

// csvNeedsQuotes is encoding/csv's fieldNeedsQuotes for a comma. The
// bytes it looks for (a comma, a quote, \r, \n and ASCII spaces) are all
// below '-', and the other spaces begin with a byte above 0x7f: a field
// of bytes from '-' on that begins with an ASCII byte and is not \. (a
// trade's times and decimals, a symbol) is looked at no further.
func csvNeedsQuotes(f string) bool {
	if f == "" {
		return false
	}
	if f == `\.` {
		return true
	}
	if f[0] < utf8.RuneSelf && bytesFrom(f, '-') {
		return false
	}
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case ',', '"', '\r', '\n':
			return true
		}
	}
	r, _ := utf8.DecodeRuneInString(f)
	return unicode.IsSpace(r)
}
