package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"time"
	"unsafe"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// klinePage is about how many bars one query of KlineSeries joins.
const klinePage = 1 << 16

// klineHintMax caps the bars KlineSeries reserves room for before it
// knows how many there are (64 M bars, 3 GiB).
const klineHintMax = 1 << 26

// KlineSeries returns the stored bars of a symbol and interval opening in
// [from, to) (a zero end is open) as a marketdata.Series, parsed from the
// ohlcv column straight into fixed-point columns (no decimal per value).
// The quote volume is not kept; a bar the series cannot hold (more than 18
// significant digits, a broken row) is an error naming its open time.
//
// SQLite joins the rows of a time window (about klinePage bars) into one
// text, so the driver's cost (a few allocations a value) is paid per
// window, not per bar; a window without gaps leaves its open times out
// (they follow from the first). The windows are fetched on up to two read
// connections at once, SQLite's stepping being most of the time, while
// this goroutine parses them in order.
func (s *Store) KlineSeries(ctx context.Context, symbol string, iv exchange.Interval, from, to time.Time) (*marketdata.Series, error) {
	if !iv.Valid() {
		return nil, fmt.Errorf("store: klines of %s: interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", symbol, iv)
	}
	fail := func(err error) error { return fmt.Errorf("store: klines of %s %s: %w", symbol, iv, err) }
	hi := int64(1<<63 - 1)
	if !to.IsZero() {
		hi = to.UnixMilli()
	}
	// The first and last open times are one seek each on the primary key;
	// a COUNT(*) would scan every row before the first window starts.
	var first, last *int64
	if err := s.r.QueryRowContext(ctx, `SELECT
		(SELECT open_ms FROM klines WHERE symbol = ?1 AND interval = ?2 AND open_ms >= ?3 AND open_ms < ?4 ORDER BY open_ms LIMIT 1),
		(SELECT open_ms FROM klines WHERE symbol = ?1 AND interval = ?2 AND open_ms >= ?3 AND open_ms < ?4 ORDER BY open_ms DESC LIMIT 1)`,
		symbol, string(iv), millis(from), hi).Scan(&first, &last); err != nil {
		return nil, fail(classify(err))
	}
	if first == nil || last == nil {
		return marketdata.NewBuilder(symbol, iv, 0).Series(), nil
	}
	// At most this many bars fit between the first and the last (months
	// counted as 28 days): exactly the count without gaps, the common
	// case, so the columns are allocated once; the builder trims what gaps
	// leave unused (memory the span would have needed anyway), and grows
	// past the cap.
	step := iv.Duration().Milliseconds()
	if step == 0 {
		step = 28 * 24 * time.Hour.Milliseconds()
	}
	most := (*last-*first)/step + 1
	b := marketdata.NewBuilder(symbol, iv, int(min(most, klineHintMax)))
	// Windows of equal time span over [first, last]: every bar falls in
	// exactly one, whatever the gaps.
	k := min((most+klinePage-1)/klinePage, *last-*first+1)
	span := (*last - *first) / k
	bounds := make([]int64, k+1)
	for i := range k {
		bounds[i] = *first + i*span
	}
	bounds[k] = *last + 1
	// Bars on multiples of the interval (all intervals but weeks, which
	// start on Mondays, and months, whose length varies) may leave their
	// open times out.
	ivMs := iv.Duration().Milliseconds()
	if iv == exchange.Interval1W {
		ivMs = 0
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pages := make([]chan klineWindow, k)
	for i := range pages {
		pages[i] = make(chan klineWindow, 1)
	}
	inFlight := make(chan struct{}, 2)
	go func() {
		for i := range k {
			select {
			case inFlight <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() { pages[i] <- s.klineWindow(ctx, symbol, iv, ivMs, bounds[i], bounds[i+1]) }()
		}
	}()
	for i := range k {
		var w klineWindow
		select {
		case w = <-pages[i]:
		case <-ctx.Done():
			return nil, fail(ctx.Err())
		}
		<-inFlight
		if w.err != nil {
			return nil, fail(classify(w.err))
		}
		if err := appendWindow(b, w, ivMs); err != nil {
			return nil, fail(err)
		}
	}
	return b.Series(), nil
}

// klineWindow is the bars of a time window as SQLite joined them.
type klineWindow struct {
	text    sql.NullString // "open_ms,ohlcv" lines, or "ohlcv" lines when gapless
	gapless bool           // the open times step by the interval from first
	first   int64
	err     error
}

// klineWindow fetches the bars opening in [lo, hi). When ivMs > 0 it
// first asks for the values alone with the counts that prove the window
// has no gap; otherwise, or when it has one, for the open times too.
func (s *Store) klineWindow(ctx context.Context, symbol string, iv exchange.Interval, ivMs, lo, hi int64) klineWindow {
	var w klineWindow
	if ivMs > 0 {
		// Distinct times (the key), all on multiples of the interval, as
		// many as the multiples from the first to the last: exactly those.
		// One flat query over the primary key's range: SQLite joins the
		// values in the order it scans them, the key's (the table has no
		// other index, and the store never sets reverse_unordered_selects;
		// TestKlineSeriesOrder inserts out of order). A subquery with
		// ORDER BY ran as a co-routine copying every value once more, and
		// group_concat's own ORDER BY sorts: both cost a third of the load.
		var n, off int64
		var first, last *int64
		// The first and last times are a seek each, not a step per row.
		w.err = s.r.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(open_ms % ?5), 0), group_concat(ohlcv, char(10)),
			(SELECT open_ms FROM klines WHERE symbol = ?1 AND interval = ?2 AND open_ms >= ?3 AND open_ms < ?4 ORDER BY open_ms LIMIT 1),
			(SELECT open_ms FROM klines WHERE symbol = ?1 AND interval = ?2 AND open_ms >= ?3 AND open_ms < ?4 ORDER BY open_ms DESC LIMIT 1)
			FROM klines WHERE symbol = ?1 AND interval = ?2 AND open_ms >= ?3 AND open_ms < ?4`,
			symbol, string(iv), lo, hi, ivMs).Scan(&n, &off, &w.text, &first, &last)
		if w.err != nil {
			return w
		}
		if first == nil || off == 0 && *first%ivMs == 0 && (*last-*first)/ivMs+1 == n {
			w.gapless = true
			if first != nil {
				w.first = *first
			}
			return w
		}
	}
	w.text = sql.NullString{}
	w.err = s.r.QueryRowContext(ctx, `SELECT group_concat(open_ms || ',' || ohlcv, char(10))
		FROM klines WHERE symbol = ? AND interval = ? AND open_ms >= ? AND open_ms < ?`,
		symbol, string(iv), lo, hi).Scan(&w.text)
	return w
}

// appendWindow parses a window's lines ("open_ms,open,high,low,close,
// volume,quote_volume", the open time left out when gapless) into b.
func appendWindow(b *marketdata.Builder, w klineWindow, ivMs int64) error {
	var f [6][]byte
	skip := 0
	if w.gapless {
		skip = 1
	}
	// The driver hands the joined text over as a string; scanning it
	// into a []byte would copy a window's megabytes once more. It is only
	// read here, and the builder copies what it keeps into integers.
	page, ms := unsafe.Slice(unsafe.StringData(w.text.String), len(w.text.String)), w.first
	for len(page) > 0 {
		// The fields up to the volume, then the rest of the line (the
		// quote volume, not kept): each byte is looked at once. A line
		// short of values shows as a field holding a line break, which
		// no number parses; badLine words it.
		start, rest := page, page
		for i := skip; i < len(f); i++ {
			j := bytes.IndexByte(rest, ',')
			if j < 0 {
				return badLine(start, skip)
			}
			f[i], rest = rest[:j], rest[j+1:]
		}
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			page = rest[j+1:]
		} else {
			page = nil
		}
		if !w.gapless {
			ms = 0
			for _, c := range f[0] {
				if c < '0' || c > '9' {
					return badLine(start, skip)
				}
				ms = ms*10 + int64(c-'0')
			}
		}
		if err := b.Append(ms, f[1], f[2], f[3], f[4], f[5]); err != nil {
			if bytes.IndexByte(start[:len(start)-len(rest)], '\n') >= 0 {
				return badLine(start, skip)
			}
			return fmt.Errorf("the bar at %d: %w", ms, err)
		}
		ms += ivMs
	}
	return nil
}

// badLine words what is wrong with the first line of text, a window's
// line that did not parse: too few values (the open time not counted),
// or no open time (skip is 1 when the lines leave the open time out).
func badLine(text []byte, skip int) error {
	line := text
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		line = text[:j]
	}
	if n := bytes.Count(line, []byte{','}) + skip; n < 6 {
		return fmt.Errorf("the bar %q has %d values, want 6", line, n)
	}
	return fmt.Errorf("the bar %q has no open time", line)
}
