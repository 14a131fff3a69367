package strategy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// gapBars are hourly bars 00:00 to 07:00 without 03:00: bar i opens at
// 10+i, reaches 11+i and 9+i, closes at 10.5+i, volume i+1.
func gapBars() []exchange.Kline {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []exchange.Kline
	for i := range 8 {
		if i == 3 {
			continue
		}
		at := t0.Add(time.Duration(i) * time.Hour)
		d := func(v float64) decimal.Decimal { return decimal.NewFromFloat(v + float64(i)) }
		out = append(out, exchange.Kline{OpenTime: at, CloseTime: at.Add(time.Hour - time.Millisecond), Open: d(10), High: d(11),
			Low: d(9), Close: d(10.5), Volume: decimal.NewFromInt(int64(i + 1))})
	}
	return out
}

// feed runs bars through an aggregator of 4h as the runtime does: the
// gap check (Advance) at each base bar's open, then the bar itself.
func feed(a *aggregator, bars []exchange.Kline) string {
	var got []string
	show := func(how string, k exchange.Kline) {
		got = append(got, fmt.Sprintf("%s %s-%s o=%s h=%s l=%s c=%s v=%s", how, k.OpenTime.Format("15:04"),
			k.CloseTime.Format("15:04:05.000"), k.Open, k.High, k.Low, k.Close, k.Volume))
	}
	for i := range bars {
		if k, ok := a.closeBefore(bars[i].OpenTime); ok {
			show("gap", k.Kline())
		}
		fk, err := exchange.FixedKlineOf(&bars[i])
		if err != nil {
			panic(err)
		}
		var out [2]exchange.FixedKline
		for _, k := range out[:a.add(&fk, exchange.Interval60m, &out)] {
			show("bar", k.Kline())
		}
	}
	return strings.Join(got, "\n")
}

// data.resample_gaps: close ends the 00:00 4h bar at its period's end
// from the three bars that exist (open 10, high 13, low 9, close 12.5,
// volume 1+2+3); merge carries it on through 04:00-07:00 and delivers one
// bar when 07:00 completes the 04:00 period: open 10 (the first bar's),
// high 18, low 9, close 17.5, volume 1+2+3+5+6+7+8 = 32.
func TestResampleGaps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		merge bool
		want  string
	}{
		{false, "gap 00:00-03:59:59.999 o=10 h=13 l=9 c=12.5 v=6\nbar 04:00-07:59:59.999 o=14 h=18 l=13 c=17.5 v=26"},
		{true, "bar 04:00-07:59:59.999 o=10 h=18 l=9 c=17.5 v=32"},
	} {
		if got := feed(&aggregator{iv: exchange.Interval4h, merge: c.merge}, gapBars()); got != c.want {
			t.Errorf("merge=%t:\n got %s\nwant %s", c.merge, got, c.want)
		}
	}
}

// addVolume sums as decimal does, coefficient and exponent, across
// exponents, and rounds only a sum past an int64 coefficient.
func TestAddVolume(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]string{{"1.5", "2.25"}, {"120", "0.001"}, {"0", "0.00000000"}, {"99999999.99999999", "0.00000001"},
		{"9000000000.00000000", "9000000000.00000000"}} {
		a, b := decimal.RequireFromString(c[0]), decimal.RequireFromString(c[1])
		fa, _ := exchange.FixedOf(a)
		fb, _ := exchange.FixedOf(b)
		got, want := addVolume(fa, fb), a.Add(b)
		if got.Coef != want.CoefficientInt64() || got.Exp != want.Exponent() {
			t.Errorf("%s + %s = %v (exp %d), want %s (exp %d)", c[0], c[1], got, got.Exp, want, want.Exponent())
		}
	}
	big := exchange.NewFixed(9e18, -8)
	if got := addVolume(big, big); got != exchange.NewFixed(18, 10) { // 1.8e11, trailing zeros dropped
		t.Errorf("past int64: %+v", got)
	}
}
