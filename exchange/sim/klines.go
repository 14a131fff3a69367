package sim

import (
	"sort"

	"github.com/spotbot/spotbot/exchange"
)

// Klines returns klines fed so far: with a start time the bars from it,
// otherwise the most recent ones, up to End when set; at most Limit
// (default and maximum 500). An interval never fed is built from the
// finest fed interval that divides it, so a replay of 1m bars also answers
// 5m or 60m requests; the last such bar may be still forming.
func (x *Exchange) Klines(r exchange.KlinesRequest) ([]exchange.Kline, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.klines(r)
}

func (x *Exchange) klines(r exchange.KlinesRequest) ([]exchange.Kline, error) {
	m, err := x.market(r.Symbol)
	if err != nil {
		return nil, err
	}
	if !r.Interval.Valid() {
		return nil, apiErr(exchange.CodeParameterError, "invalid interval %q", r.Interval)
	}
	limit, err := listLimit(r.Limit, 500, 500)
	if err != nil {
		return nil, err
	}
	if !r.Start.IsZero() && !r.End.IsZero() && r.End.Before(r.Start) {
		return nil, apiErr(exchange.CodeParameterError, "endTime is before startTime")
	}
	ks := m.bars(r.Interval)
	if len(ks) == 0 {
		ks = m.resample(r.Interval)
	}
	lo := sort.Search(len(ks), func(i int) bool { return !ks[i].OpenTime.Before(r.Start) })
	hi := len(ks)
	if !r.End.IsZero() {
		hi = sort.Search(len(ks), func(i int) bool { return ks[i].OpenTime.After(r.End) })
	}
	if hi < lo {
		hi = lo
	}
	if hi-lo > limit {
		if r.Start.IsZero() {
			lo = hi - limit
		} else {
			hi = lo + limit
		}
	}
	return append([]exchange.Kline{}, ks[lo:hi]...), nil
}

// resample builds bars of iv from the finest fed interval that divides it.
func (m *market) resample(iv exchange.Interval) []exchange.Kline {
	var src []exchange.Kline
	for _, f := range exchange.Intervals() {
		d := f.Duration()
		if d == 0 || len(m.bars(f)) == 0 {
			continue
		}
		if iv == exchange.Interval1M || (iv.Duration() > d && iv.Duration()%d == 0) {
			src = m.bars(f)
			break
		}
	}
	var out []exchange.Kline
	for _, k := range src {
		open := iv.Truncate(k.OpenTime)
		n := len(out)
		if n == 0 || !out[n-1].OpenTime.Equal(open) {
			out = append(out, exchange.Kline{OpenTime: open, Open: k.Open, High: k.High, Low: k.Low, Close: k.Close,
				Volume: k.Volume, QuoteVolume: k.QuoteVolume, CloseTime: iv.Next(open).Add(-1e6)})
			continue
		}
		b := &out[n-1]
		if k.High.GreaterThan(b.High) {
			b.High = k.High
		}
		if k.Low.LessThan(b.Low) {
			b.Low = k.Low
		}
		b.Close = k.Close
		b.Volume = b.Volume.Add(k.Volume)
		b.QuoteVolume = b.QuoteVolume.Add(k.QuoteVolume)
	}
	return out
}
