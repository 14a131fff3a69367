package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/strategy"
)

// barLog is a strategy that records every bar it is given: its feed,
// open time, OHLCV and the time the runtime delivered it.
type barLog struct{ lines *[]string }

func (s barLog) OnKline(ctx strategy.Context, b strategy.Bar) error {
	*s.lines = append(*s.lines, fmt.Sprintf("%s %s %s o=%s h=%s l=%s c=%s v=%s at %s", b.Symbol, b.Interval,
		b.OpenTime.Format("15:04"), b.Open, b.High, b.Low, b.Close, b.Volume, ctx.Now().Format("15:04")))
	return nil
}

// barLogRegistry registers barLog as "barlog", recording into lines.
func barLogRegistry(lines *[]string) *strategy.Registry {
	reg := strategy.NewRegistry()
	reg.Register("barlog", func(strategy.Config) (strategy.Strategy, error) { return barLog{lines: lines}, nil })
	return reg
}

// gapBars are twelve hourly BTCUSDT bars from 00:00 with 03:00 missing:
// bar h opens at 100+h, reaches 100+h+1 and 100+h-1, closes at 100+h+0.5,
// with volume h+1.
func gapBars() []exchange.Kline {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var ks []exchange.Kline
	for h := range 12 {
		if h == 3 {
			continue
		}
		p := decimal.NewFromInt(int64(100 + h))
		t := t0.Add(time.Duration(h) * time.Hour)
		ks = append(ks, exchange.Kline{OpenTime: t, CloseTime: t.Add(time.Hour - time.Millisecond), Open: p,
			High: p.Add(decimal.NewFromInt(1)), Low: p.Sub(decimal.NewFromInt(1)), Close: p.Add(decimal.RequireFromString("0.5")),
			Volume: decimal.NewFromInt(int64(h + 1))})
	}
	return ks
}

// TestPaperReplayResampleGaps replays hourly bars with 03:00 missing to a
// 4h instance in paper-replay and in a backtest of the same
// configuration, from the same data file. The daemon delivers the same
// higher-interval bars, exactly, as the backtest, in both modes:
//
//   - merge: nothing closes at the gap; 00:00-07:00 (seven base bars)
//     make one bar stamped 04:00, delivered at 08:00: open 100, high 108
//     (07:00's), low 99 (00:00's), close 107.5, volume 1+2+3+5+6+7+8 = 32;
//     then 08:00-11:00: open 108, high 112, low 107, close 111.5, volume
//     9+10+11+12 = 42, delivered at 12:00.
//   - close: the partial 00:00 bar (open 100, high 103, low 99, close
//     102.5, volume 6) is delivered at 03:00, when the next base bar shows
//     its period is over; then 04:00 (104, 108, 103, 107.5, 26) and 08:00.
func TestPaperReplayResampleGaps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var csv strings.Builder
	if err := marketdata.WriteCSV(&csv, gapBars()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "BTCUSDT-1h.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		gaps string
		want []string
	}{
		{config.GapsMerge, []string{
			"BTCUSDT 4h 04:00 o=100 h=108 l=99 c=107.5 v=32 at 08:00",
			"BTCUSDT 4h 08:00 o=108 h=112 l=107 c=111.5 v=42 at 12:00",
		}},
		{config.GapsClose, []string{
			"BTCUSDT 4h 00:00 o=100 h=103 l=99 c=102.5 v=6 at 03:00",
			"BTCUSDT 4h 04:00 o=104 h=108 l=103 c=107.5 v=26 at 08:00",
			"BTCUSDT 4h 08:00 o=108 h=112 l=107 c=111.5 v=42 at 12:00",
		}},
	} {
		t.Run(tt.gaps, func(t *testing.T) {
			t.Parallel()
			yaml := `
mode: %s
data: {source: csv, path: ` + strconv.Quote(dir) + `, interval: 1h, resample_gaps: ` + tt.gaps + `}
account: {balances: {USDT: 1000}}
store: {path: ` + strconv.Quote(filepath.Join(dir, tt.gaps+".db")) + `}
strategies:
  - {name: barlog, id: bars, symbols: [BTCUSDT], interval: 4h}
`
			var tested, back []string
			c, err := config.Load(fmt.Appendf(nil, yaml, config.ModePaperReplay), nil, nil, barLogRegistry(&tested))
			if err != nil {
				t.Fatal(err)
			}
			if c.Data.MergeGaps() != (tt.gaps == config.GapsMerge) {
				t.Fatalf("data.resample_gaps %q read as merge=%t", tt.gaps, c.Data.MergeGaps())
			}
			bot, err := New(Options{Config: c, Registry: barLogRegistry(&tested), Store: memStore(t),
				Clock: exchangetest.NewStepClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))})
			if err != nil {
				t.Fatal(err)
			}
			if err := bot.Run(t.Context()); err != nil {
				t.Fatal(err)
			}

			bc, err := config.Load(fmt.Appendf(nil, yaml, config.ModeBacktest), nil, nil, barLogRegistry(&back))
			if err != nil {
				t.Fatal(err)
			}
			reg := barLogRegistry(&back)
			spec, err := backtest.FromConfig(bc, reg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := backtest.Run(t.Context(), spec); err != nil {
				t.Fatal(err)
			}

			want := strings.Join(tt.want, "\n")
			if got := strings.Join(tested, "\n"); got != want {
				t.Errorf("paper-replay bars\n got %s\nwant %s", got, want)
			}
			if got := strings.Join(back, "\n"); got != want {
				t.Errorf("backtest bars\n got %s\nwant %s", got, want)
			}
		})
	}
}
