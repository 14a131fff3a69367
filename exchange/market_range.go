package exchange

import (
	"context"
	"fmt"
	"time"
)

// klinesPerPage is the largest page the klines endpoint serves.
const klinesPerPage = 500

// KlinesPages fetches the bars of [from, to) page by page, 500 bars per
// request, calling page with each non-empty page in time order. The next
// request starts after the last open time received, so bars are never
// requested twice; duplicates and bars outside the range are dropped; a page
// whose bars go backwards is an error. Windows without bars (maintenance
// gaps) are passed over. Returning an error from page stops it, so a
// downloader can store page by page and resume from its last stored bar.
func (s *MarketService) KlinesPages(ctx context.Context, symbol string, iv Interval, from, to time.Time, page func([]Kline) error) error {
	if !iv.Valid() {
		return invalid(EpKlines, "interval", "%q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", iv)
	}
	if from.IsZero() || to.IsZero() || !to.After(from) {
		return invalid(EpKlines, "endTime", "the range needs from < to (got %s … %s)", from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	}
	next := from
	var last time.Time
	for next.Before(to) {
		// A window of 500 bars; for calendar months the window is an upper
		// bound and the limit keeps the page at 500.
		end := next
		for i := 0; i < klinesPerPage && end.Before(to); i++ {
			end = iv.Next(end)
		}
		if end.After(to) {
			end = to
		}
		ks, err := s.Klines(ctx, KlinesRequest{Symbol: symbol, Interval: iv, Start: next, End: end.Add(-time.Millisecond), Limit: klinesPerPage})
		if err != nil {
			return err
		}
		kept := ks[:0]
		for _, k := range ks {
			switch {
			case !last.IsZero() && k.OpenTime.Before(last):
				return fmt.Errorf("exchange: klines %s %s: bar %s arrived after %s", symbol, iv, k.OpenTime.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
			case k.OpenTime.Equal(last) && !last.IsZero(), k.OpenTime.Before(from), !k.OpenTime.Before(to):
				continue
			}
			last = k.OpenTime
			kept = append(kept, k)
		}
		if len(kept) > 0 {
			if err := page(kept); err != nil {
				return err
			}
		}
		// A full page may have been cut by the limit: continue right after
		// its last bar. Otherwise the window is exhausted (a short page, or
		// an empty one across a hole in the data): go to the next window.
		if len(ks) == klinesPerPage && !last.IsZero() && iv.Next(last).After(next) {
			next = iv.Next(last)
		} else {
			next = end
		}
	}
	return nil
}

// KlinesRange fetches every bar of [from, to), however many requests that
// takes (see KlinesPages).
func (s *MarketService) KlinesRange(ctx context.Context, symbol string, iv Interval, from, to time.Time) ([]Kline, error) {
	var out []Kline
	err := s.KlinesPages(ctx, symbol, iv, from, to, func(p []Kline) error {
		out = append(out, p...)
		return nil
	})
	return out, err
}
