package backtest

import (
	"math/rand/v2"
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
