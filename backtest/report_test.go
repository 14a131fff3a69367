package backtest

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/spotbot/spotbot/strategy"
)

// stamper.appendTime writes what stamp writes: times of every second of
// a few days (the date kept from the time before, or not), random times
// over ±300,000 years with nanoseconds in several locations, and the
// edges of the years it formats itself (0 to 9999).
func TestStamperAppendTime(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		ny = time.FixedZone("EST", -5*3600)
	}
	zones := []*time.Location{time.UTC, ny, time.FixedZone("+0530", 5*3600+1800), time.Local}
	var times []time.Time
	for sec := int64(1577836800 - 86400); sec < 1577836800+2*86400; sec += 7 {
		times = append(times, time.Unix(sec, 0))
	}
	rng := rand.New(rand.NewPCG(20, 26))
	for range 100_000 {
		var sec int64
		switch rng.IntN(3) {
		case 0: // years 1900 to 2100
			sec = rng.Int64N(200*365*86400) - 70*365*86400
		case 1: // years -300,000 to 300,000
			sec = rng.Int64N(600_000*365*86400) - 300_000*365*86400
		default: // near the edges of years 0 and 10000
			edge := int64(stampFirst)
			if rng.IntN(2) == 0 {
				edge = stampLast + 1
			}
			sec = edge + rng.Int64N(4*86400) - 2*86400
		}
		times = append(times, time.Unix(sec, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))]))
	}
	for _, sec := range []int64{stampFirst - 1, stampFirst, stampLast, stampLast + 1, 0, -1, 1<<40 - 1, -(1 << 40)} {
		times = append(times, time.Unix(sec, 0), time.Unix(sec, 999_999_999))
	}
	times = append(times, time.Time{}, time.Date(-1, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, ny),
		time.Date(999, 3, 1, 12, 0, 0, 5, time.UTC), time.Date(2024, 2, 29, 23, 59, 59, 999_999_999, time.UTC))
	var st stamper
	b := []byte("x")
	for _, tm := range times {
		got := st.appendTime(b[:1], tm)
		if want := "x" + stamp(tm); string(got) != want {
			t.Fatalf("appendTime(%v) = %q, want %q", tm, got, want)
		}
	}
	// The fast path's edges are those of the four-digit years.
	require.Equal(t, "0000-01-01T00:00:00Z", stamp(time.Unix(stampFirst, 0)))
	require.Equal(t, "9999-12-31T23:59:59Z", stamp(time.Unix(stampLast, 0)))
}

// NewReport's rows are each trade's own texts (stamp, decimalString,
// round): one instance and several, rows on one core and split over two,
// past several blocks of rows, with times and decimals of every kind.
func TestNewReportRows(t *testing.T) {
	t.Parallel()
	s, res := benchTrades(3*reportChunk + 5)
	rng := rand.New(rand.NewPCG(5, 6))
	big := decimal.RequireFromString("-123456789012345678901234567890.000100")
	for i := 0; i < len(res.Trades); i += 1 + rng.IntN(50) {
		tr := &res.Trades[i]
		tr.Instance = []string{"a", "b"}[i%2]
		switch i % 4 {
		case 0:
			tr.EntryTime = time.Date(-5+rng.IntN(10), 1, 1, 0, 0, rng.IntN(1e6), rng.IntN(1e9), time.FixedZone("x", 3600))
			tr.Qty, tr.Fees = big, decimal.New(0, -8)
		case 1:
			tr.ExitTime = time.Date(9999+rng.IntN(3), 12, 31, 23, 0, rng.IntN(1e5), 0, time.UTC)
			tr.PnL, tr.EntryPrice = decimal.New(rng.Int64()-rng.Int64(), int32(rng.IntN(60)-30)), decimal.New(1500, 3)
		case 2:
			tr.ReturnPct = rng.NormFloat64() * 1e3
		}
	}
	for _, instances := range [][]strategy.Config{s.Instances, {{ID: "a"}, {ID: "b"}}} {
		s.Instances = instances
		rep := NewReport("rows", s, res)
		require.Len(t, rep.Trades, len(res.Trades))
		for i, tr := range res.Trades {
			want := TradeRow{Symbol: tr.Symbol, EntryTime: stamp(tr.EntryTime), ExitTime: stamp(tr.ExitTime),
				Qty: tr.Qty.String(), EntryPrice: tr.EntryPrice.String(), ExitPrice: tr.ExitPrice.String(), Fees: tr.Fees.String(),
				PnL: tr.PnL.String(), ReturnPct: round(tr.ReturnPct, 6), ExitReason: tr.ExitReason}
			if len(instances) > 1 {
				want.Instance = tr.Instance
			}
			if rep.Trades[i] != want {
				t.Fatalf("%d instances: row %d = %+v, want %+v", len(instances), i, rep.Trades[i], want)
			}
		}
	}
}

// roundReference is how round rounded before: through the text.
func roundReference(v float64, places int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', places, 64), 64)
	return r
}

// round gives the very float64 its text reads back as (roundReference),
// to the bit: random values over every magnitude and sign, exact ties at
// the last decimal, values either side of the 15 digits it divides
// itself, and the special values.
func TestRound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	var vals []float64
	for range 100_000 {
		vals = append(vals,
			math.Float64frombits(rng.Uint64()),                                            // any bits
			math.Ldexp(rng.Float64(), rng.IntN(120)-80),                                   // 1e-24 to 1e12
			(rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(14)-4)),                     // returns
			float64(rng.Int64N(2e15))/1e6+float64(rng.IntN(3)-1)*5e-7,                     // near a tie
			math.Nextafter(float64(rng.Int64N(2e10))/1e6+5e-7, math.Inf(1-2*rng.IntN(2)))) // beside one
	}
	for k := -30; k < 40; k++ { // dyadic ties at every decimal
		for m := range 200 {
			vals = append(vals, math.Ldexp(float64(2*m+1), k))
		}
	}
	for _, v := range []float64{0, 5e-7, 1.5e-6, 2.5e-6, 0.0078125, 999999999.9999995, 999999999.999999, 1e9, 9.999999999e9,
		9007199254.740992, 9007199254.740993, 1e10, 1.8e11, 1e21, 1e300, math.SmallestNonzeroFloat64, math.MaxFloat64,
		math.Inf(1), math.Nextafter(1, 0), math.Nextafter(1, 2)} {
		vals = append(vals, v, -v)
	}
	for _, v := range vals {
		for _, places := range []int{0, 2, 6, 8} {
			got, want := round(v, places), roundReference(v, places)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("round(%v (%#x), %d) = %v (%#x), want %v (%#x)", v, math.Float64bits(v), places,
					got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
	}
	for _, places := range []int{0, 6, 9, 12} {
		if got := round(math.NaN(), places); !math.IsNaN(got) {
			t.Fatalf("round(NaN, %d) = %v", places, got)
		}
	}
	for _, places := range []int{9, 12, 17} { // past fixedScaled's 8: strconv's text
		for _, v := range vals[:1000] {
			if got, want := round(v, places), roundReference(v, places); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("round(%v, %d) = %v, want %v", v, places, got, want)
			}
		}
	}
}

// FuzzRound checks round against its text on any float64.
func FuzzRound(f *testing.F) {
	f.Add(math.Float64bits(0.0078125))
	f.Add(math.Float64bits(-9007199254.740992))
	f.Fuzz(func(t *testing.T, fb uint64) {
		v := math.Float64frombits(fb)
		got, want := round(v, 6), roundReference(v, 6)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("round(%v (%#x), 6) = %v, want %v", v, fb, got, want)
		}
	})
}

// tradesCSVReference is how WriteTradesCSV wrote before it appended rows
// itself: encoding/csv, a field slice per row.
func tradesCSVReference(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	several := len(r.Instances) > 1
	head := []string{"symbol", "entry_time", "exit_time", "qty", "entry_price", "exit_price", "fees", "pnl", "return_pct", "exit_reason"}
	if several {
		head = append(head, "instance")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, t := range r.Trades {
		row := []string{t.Symbol, t.EntryTime, t.ExitTime, t.Qty, t.EntryPrice, t.ExitPrice, t.Fees, t.PnL,
			strconv.FormatFloat(t.ReturnPct, 'f', -1, 64), t.ExitReason}
		if several {
			row = append(row, t.Instance)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTradesCSV writes what encoding/csv wrote: a generated run's rows
// (past a block of bytes), then fields of random pieces that need quoting
// or not (commas, quotes, carriage returns, line feeds, leading spaces of
// every kind, backslashes and points, non-ASCII and invalid UTF-8, empty
// fields) with one instance and several, special floats and no trades.
func TestWriteTradesCSVAsCSV(t *testing.T) {
	t.Parallel()
	check := func(r Report) {
		t.Helper()
		var got, want bytes.Buffer
		require.NoError(t, r.WriteTradesCSV(&got))
		require.NoError(t, tradesCSVReference(&want, r))
		require.Equal(t, want.String(), got.String())
	}
	s, res := benchTrades(3000)
	rep := NewReport("csv", s, res)
	check(rep)
	pieces := []string{"", "a", "ETHBTC", "2020-01-01T00:00:00Z", "-0.05", ",", "\"", "\"\"", "\r", "\n", "\r\n", " ", "\t", "\v", "\f",
		"\u0085", "\u00a0", "\u2028", "\u3000", "é", "€", "\\", ".", "\\.", "\xff", "\xc2", "x y", "#"}
	rng := rand.New(rand.NewPCG(9, 10))
	field := func() string {
		f := ""
		for range rng.IntN(4) {
			f += pieces[rng.IntN(len(pieces))]
		}
		return f
	}
	rows := make([]TradeRow, 5000)
	floats := []float64{0, math.Copysign(0, -1), 1.5, -2.25e-9, 1e21, 123456789.125, math.NaN(), math.Inf(1), math.Inf(-1)}
	for i := range rows {
		rows[i] = TradeRow{Instance: field(), Symbol: field(), EntryTime: field(), ExitTime: field(), Qty: field(),
			EntryPrice: field(), ExitPrice: field(), Fees: field(), PnL: field(), ExitReason: field(),
			ReturnPct: floats[rng.IntN(len(floats))]}
	}
	rows = append(rows, TradeRow{Symbol: `\.`, ExitReason: `\.`, Instance: `\.`}, TradeRow{Symbol: `\..`, Qty: " ", Fees: "\t1"})
	for _, instances := range [][]strategy.Config{{{ID: "a"}}, {{ID: "a"}, {ID: "b"}}} {
		for _, trades := range [][]TradeRow{rows, nil} {
			check(Report{Instances: instances, Trades: trades})
		}
	}
}

// A failing writer's error is WriteTradesCSV's.
func TestWriteTradesCSVFails(t *testing.T) {
	t.Parallel()
	s, res := benchTrades(3000) // about 300 KB: several blocks
	rep := NewReport("csv", s, res)
	for _, n := range []int{0, 1, 3} {
		if err := rep.WriteTradesCSV(&failAfter{n: n}); err == nil || err.Error() != "disk full" {
			t.Errorf("failing after %d writes: %v", n, err)
		}
	}
}
