package backtest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Readable numbers for people: the terminal summary and the HTML report.
// The JSON and CSV reports keep the exact values.

// moneyPlaces is how many decimals amounts in the quote asset are shown
// with: cents for fiat and stablecoins, 8 otherwise.
func moneyPlaces(quote string) int32 {
	switch quote {
	case "", "USDT", "USDC", "BUSD", "FDUSD", "TUSD", "DAI", "USD", "EUR", "GBP", "TRY", "BRL":
		return 2
	}
	return 8
}

// money rounds a decimal text to the quote asset's places, with
// thousands separators; text that is not a decimal is returned as is.
func money(s, quote string) string {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return s
	}
	return group(d.StringFixed(moneyPlaces(quote)))
}

// group inserts thousands separators into a plain decimal text.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// humanDuration writes a duration in days and hours ("12d 5h"), hours and
// minutes under a day, minutes and seconds under an hour.
func humanDuration(d time.Duration) string {
	if d < 0 {
		return "-" + humanDuration(-d)
	}
	day := 24 * time.Hour
	switch {
	case d >= day:
		days, hours := d/day, (d%day+time.Hour/2)/time.Hour
		if hours == 24 {
			days, hours = days+1, 0
		}
		return fmt.Sprintf("%dd %dh", days, hours)
	case d >= time.Hour:
		return fmt.Sprintf("%dh %dm", d/time.Hour, (d%time.Hour+time.Minute/2)/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm %ds", d/time.Minute, (d%time.Minute+time.Second/2)/time.Second)
	}
	return d.Round(time.Millisecond).String()
}

// humanDurationText is humanDuration of a Go duration text; other text is
// returned as is.
func humanDurationText(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return humanDuration(d)
}

// priceText writes a price to the given number of decimals (the symbol's
// tick).
func priceText(d decimal.Decimal, places int32) string { return group(d.StringFixed(places)) }

// niceStep is the round axis step (1, 2 or 5 times a power of ten) that
// splits span into about n intervals.
func niceStep(span float64, n int) float64 {
	if span <= 0 || n < 1 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// niceTicks returns round tick values covering [lo, hi], about n of them.
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		return []float64{lo}
	}
	step := niceStep(hi-lo, n)
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// tickLabel writes a tick value with as many decimals as its step needs.
func tickLabel(v, step float64) string {
	places := 0
	if step < 1 {
		places = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return group(strconv.FormatFloat(v, 'f', places, 64))
}
