package store

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// KlineSeries returns the stored bars of a symbol and interval opening in
// [from, to) (a zero end is open) as a marketdata.Series, parsed from the
// ohlcv column straight into fixed-point columns (no decimal per value).
// The quote volume is not kept; a bar the series cannot hold (more than 18
// significant digits, a broken row) is an error naming its open time.
// klinePage is how many bars one query of KlineSeries joins.
const klinePage = 1 << 16

func (s *Store) KlineSeries(ctx context.Context, symbol string, iv exchange.Interval, from, to time.Time) (*marketdata.Series, error) {
	if !iv.Valid() {
		return nil, fmt.Errorf("store: klines of %s: interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", symbol, iv)
	}
	hi := int64(1<<63 - 1)
	if !to.IsZero() {
		hi = to.UnixMilli()
	}
	var count int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM klines WHERE symbol = ? AND interval = ? AND open_ms >= ? AND open_ms < ?`,
		symbol, string(iv), millis(from), hi).Scan(&count); err != nil {
		return nil, fmt.Errorf("store: klines of %s %s: %w", symbol, iv, classify(err))
	}
	// SQLite joins a page of rows into one text ("open_ms,ohlcv" lines)
	// so the driver's cost (a few allocations a value) is paid per page,
	// not per bar.
	b := marketdata.NewBuilder(symbol, iv, count)
	var page []byte
	next := millis(from)
	for {
		page = page[:0]
		var n int
		var last *int64
		err := s.r.QueryRowContext(ctx, `SELECT COUNT(*), MAX(open_ms), group_concat(open_ms || ',' || ohlcv, char(10))
			FROM (SELECT open_ms, ohlcv FROM klines WHERE symbol = ? AND interval = ? AND open_ms >= ? AND open_ms < ? ORDER BY open_ms LIMIT ?)`,
			symbol, string(iv), next, hi, klinePage).Scan(&n, &last, &page)
		if err != nil {
			return nil, fmt.Errorf("store: klines of %s %s: %w", symbol, iv, classify(err))
		}
		if err := appendPage(b, page); err != nil {
			return nil, fmt.Errorf("store: klines of %s %s: %w", symbol, iv, err)
		}
		if n < klinePage || last == nil {
			break
		}
		next = *last + 1
	}
	return b.Series(), nil
}

// appendPage parses "open_ms,open,high,low,close,volume,quote_volume"
// lines into b.
func appendPage(b *marketdata.Builder, page []byte) error {
	var f [6][]byte
	for len(page) > 0 {
		line := page
		if j := bytes.IndexByte(page, '\n'); j >= 0 {
			line, page = page[:j], page[j+1:]
		} else {
			page = nil
		}
		rest := line
		for i := range f {
			j := bytes.IndexByte(rest, ',')
			if j < 0 {
				return fmt.Errorf("the bar %q has %d values, want open time and 6", line, i+1)
			}
			f[i], rest = rest[:j], rest[j+1:]
		}
		var ms int64
		for _, c := range f[0] {
			if c < '0' || c > '9' {
				return fmt.Errorf("the bar %q has no open time", line)
			}
			ms = ms*10 + int64(c-'0')
		}
		if err := b.Append(ms, f[1], f[2], f[3], f[4], f[5]); err != nil {
			return fmt.Errorf("the bar at %d: %w", ms, err)
		}
	}
	return nil
}
