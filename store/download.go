package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// klinesPerRequest is the largest page the klines endpoint serves.
const klinesPerRequest = 500

// DownloadRequest selects the bars to download: those of Symbol and
// Interval opening in [From, To). A zero To means up to the last closed
// bar.
type DownloadRequest struct {
	Symbol   string
	Interval exchange.Interval
	From     time.Time
	To       time.Time
}

// DownloadProgress is reported after each stored page.
type DownloadProgress struct {
	Symbol   string
	Interval exchange.Interval
	Done     int       // bars of the range now stored, counting those from an earlier run
	Total    int       // bars the range holds if the exchange has no gaps
	Last     time.Time // open time of the last stored bar
	Requests int       // requests made by this run
}

// DownloadResult says what a download did.
type DownloadResult struct {
	Start    time.Time // where this run started (after the bars an earlier run stored)
	End      time.Time // the end of the range, capped at the last closed bar
	Requests int       // klines requests made (plus one server-time request)
	Inserted int       // bars stored by this run
	Last     time.Time // open time of the last stored bar of the range; zero if none
}

// Download fetches closed bars through the trading port, 500 per request,
// and stores each page in its own transaction. It resumes after the last
// bar of the range already stored, so an interrupted download loses at
// most the page in flight and a rerun fetches no bar twice; the store's key
// keeps bars unique whatever happens. It makes one server-time request (to
// know which bars are closed) and then only the page requests; rate
// budgets are the trader's to enforce. progress may be nil.
func (s *Store) Download(ctx context.Context, tr exchange.Trader, req DownloadRequest, progress func(DownloadProgress)) (DownloadResult, error) {
	iv := req.Interval
	switch {
	case req.Symbol == "":
		return DownloadResult{}, errors.New("store: download: no symbol")
	case !iv.Valid():
		return DownloadResult{}, fmt.Errorf("store: download: interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", iv)
	case req.From.IsZero():
		return DownloadResult{}, errors.New("store: download: no start time")
	case !req.To.IsZero() && !req.To.After(req.From):
		return DownloadResult{}, fmt.Errorf("store: download: the range ends (%s) before it starts (%s)", req.To.UTC().Format(time.RFC3339), req.From.UTC().Format(time.RFC3339))
	}
	now, err := tr.ServerTime(ctx)
	if err != nil {
		return DownloadResult{}, fmt.Errorf("store: download %s %s: server time: %w", req.Symbol, iv, err)
	}
	// Bars opening before the current bar's open are closed.
	end := iv.Truncate(now)
	if !req.To.IsZero() && req.To.Before(end) {
		end = req.To
	}
	first := iv.Truncate(req.From)
	if first.Before(req.From) {
		first = iv.Next(first)
	}
	res := DownloadResult{Start: first, End: end}
	last, found, err := s.lastKlineIn(ctx, req.Symbol, iv, first, end)
	if err != nil {
		return res, err
	}
	done := 0
	if found {
		res.Start, res.Last = iv.Next(last), last
		done = countBars(iv, first, res.Start)
	}
	total := countBars(iv, first, end)
	report := func() {
		if progress != nil {
			progress(DownloadProgress{Symbol: req.Symbol, Interval: iv, Done: done, Total: total, Last: res.Last, Requests: res.Requests})
		}
	}
	report()
	for next := res.Start; next.Before(end); {
		if err := ctx.Err(); err != nil {
			return res, s.interrupted(req, res, err)
		}
		window := next
		for i := 0; i < klinesPerRequest && window.Before(end); i++ {
			window = iv.Next(window)
		}
		if window.After(end) {
			window = end
		}
		res.Requests++
		page, err := tr.Klines(ctx, exchange.KlinesRequest{Symbol: req.Symbol, Interval: iv, Start: next, End: window.Add(-time.Millisecond), Limit: klinesPerRequest})
		if err != nil {
			return res, s.interrupted(req, res, err)
		}
		kept := page[:0]
		for _, k := range page {
			if k.OpenTime.Before(next) || !k.OpenTime.Before(window) {
				continue // outside what was asked: never trust the range blindly
			}
			if n := len(kept); n > 0 && !k.OpenTime.After(kept[n-1].OpenTime) {
				return res, s.interrupted(req, res, fmt.Errorf("bar %s arrived after %s", k.OpenTime.UTC().Format(time.RFC3339), kept[n-1].OpenTime.UTC().Format(time.RFC3339)))
			}
			kept = append(kept, k)
		}
		if len(kept) > 0 {
			n, err := s.InsertKlines(ctx, req.Symbol, iv, kept)
			if err != nil {
				return res, s.interrupted(req, res, err)
			}
			res.Inserted += n
			res.Last = kept[len(kept)-1].OpenTime
			done = countBars(iv, first, iv.Next(res.Last))
		}
		// A full page may have been cut by the limit: continue after its
		// last bar. Otherwise the window is exhausted (a short or empty page
		// across a gap in the exchange's data).
		if len(page) == klinesPerRequest && len(kept) > 0 {
			next = iv.Next(res.Last)
		} else {
			next = window
		}
		report()
	}
	return res, nil
}

func (s *Store) interrupted(req DownloadRequest, res DownloadResult, err error) error {
	at := "nothing stored yet"
	if !res.Last.IsZero() {
		at = "stored through " + res.Last.UTC().Format(time.RFC3339)
	}
	return fmt.Errorf("store: download %s %s interrupted (%s; run it again to resume): %w", req.Symbol, req.Interval, at, err)
}

// countBars counts the bar open times in [from, to).
func countBars(iv exchange.Interval, from, to time.Time) int {
	if !to.After(from) {
		return 0
	}
	if d := iv.Duration(); d > 0 {
		return int((to.Sub(from) + d - 1) / d)
	}
	n := 0
	for t := from; t.Before(to); t = iv.Next(t) {
		n++
	}
	return n
}

// lastKlineIn returns the open time of the last stored bar opening in
// [from, to).
func (s *Store) lastKlineIn(ctx context.Context, symbol string, iv exchange.Interval, from, to time.Time) (time.Time, bool, error) {
	var ms *int64
	err := s.r.QueryRowContext(ctx, `SELECT MAX(open_ms) FROM klines WHERE symbol = ? AND interval = ? AND open_ms >= ? AND open_ms < ?`,
		symbol, string(iv), from.UnixMilli(), to.UnixMilli()).Scan(&ms)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: download %s %s: %w", symbol, iv, classify(err))
	}
	if ms == nil {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(*ms).UTC(), true, nil
}
