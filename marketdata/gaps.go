package marketdata

import (
	"fmt"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// Gap is a run of missing bars: From is the open time of the first missing
// bar, To the open time of the last, Missing how many bars are missing.
type Gap struct {
	From    time.Time
	To      time.Time
	Missing int
}

// String describes the gap for a report.
func (g Gap) String() string {
	if g.Missing == 1 {
		return fmt.Sprintf("1 bar missing at %s", g.From.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("%d bars missing from %s to %s", g.Missing, g.From.UTC().Format(time.RFC3339), g.To.UTC().Format(time.RFC3339))
}

// Gaps returns the runs of missing bars between consecutive klines of
// interval iv, in time order. The klines must be in increasing open-time
// order (as ReadCSV returns them).
func Gaps(ks []exchange.Kline, iv exchange.Interval) []Gap {
	var gaps []Gap
	for i := 1; i < len(ks); i++ {
		want := iv.Next(ks[i-1].OpenTime)
		if !ks[i].OpenTime.After(want) {
			continue
		}
		g := Gap{From: want}
		for t := want; t.Before(ks[i].OpenTime); t = iv.Next(t) {
			g.To = t
			g.Missing++
		}
		gaps = append(gaps, g)
	}
	return gaps
}
