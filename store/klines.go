package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// klineRowsPerInsert is how many bars one INSERT statement carries: a
// statement per bar costs more in the driver than in SQLite.
const klineRowsPerInsert = 200

const klineInsertHead = `INSERT INTO klines (symbol, interval, open_ms, close_ms, ohlcv) VALUES `

// InsertKlines stores bars of one symbol and interval in one transaction
// and returns how many were new; bars already stored (same open time) are
// left as they are. All or none are stored.
func (s *Store) InsertKlines(ctx context.Context, symbol string, iv exchange.Interval, ks []exchange.Kline) (inserted int, err error) {
	if symbol == "" {
		return 0, errors.New("store: klines without a symbol")
	}
	if !iv.Valid() {
		return 0, fmt.Errorf("store: klines of %s: interval %q is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M", symbol, iv)
	}
	if len(ks) == 0 {
		return 0, nil
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var full *sql.Stmt
		args := make([]any, 0, 5*klineRowsPerInsert)
		var buf []byte
		// Boxed once, not once per row.
		var sym, ivName any = symbol, string(iv)
		for start := 0; start < len(ks); start += klineRowsPerInsert {
			batch := ks[start:min(start+klineRowsPerInsert, len(ks))]
			args = args[:0]
			for _, k := range batch {
				if k.OpenTime.IsZero() {
					return fmt.Errorf("kline %d of %s %s has no open time", start, symbol, iv)
				}
				buf = appendBar(buf[:0], k)
				args = append(args, sym, ivName, k.OpenTime.UnixMilli(), k.CloseTime.UnixMilli(), string(buf))
			}
			var res sql.Result
			var err error
			if len(batch) == klineRowsPerInsert {
				if full == nil {
					if full, err = tx.PrepareContext(ctx, klineInsert(klineRowsPerInsert)); err != nil {
						return err
					}
					defer full.Close()
				}
				res, err = full.ExecContext(ctx, args...)
			} else {
				res, err = tx.ExecContext(ctx, klineInsert(len(batch)), args...)
			}
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			inserted += int(n)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: inserting klines of %s %s: %w", symbol, iv, err)
	}
	return inserted, nil
}

func klineInsert(rows int) string {
	var b strings.Builder
	b.WriteString(klineInsertHead)
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?)")
	}
	b.WriteString(" ON CONFLICT (symbol, interval, open_ms) DO NOTHING")
	return b.String()
}

// Klines returns the stored bars of a symbol and interval opening in
// [from, to), oldest first. A zero from or to leaves that side open.
func (s *Store) Klines(ctx context.Context, symbol string, iv exchange.Interval, from, to time.Time) ([]exchange.Kline, error) {
	hi := int64(1<<63 - 1)
	if !to.IsZero() {
		hi = to.UnixMilli()
	}
	var count int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM klines WHERE symbol = ? AND interval = ? AND open_ms >= ? AND open_ms < ?`,
		symbol, string(iv), millis(from), hi).Scan(&count); err != nil {
		return nil, fmt.Errorf("store: klines of %s %s: %w", symbol, iv, classify(err))
	}
	ks, err := s.queryKlines(ctx, count, `SELECT open_ms, close_ms, ohlcv FROM klines
		WHERE symbol = ? AND interval = ? AND open_ms >= ? AND open_ms < ? ORDER BY open_ms`, symbol, string(iv), millis(from), hi)
	if err != nil {
		return nil, fmt.Errorf("store: klines of %s %s: %w", symbol, iv, err)
	}
	return ks, nil
}

// LastKline returns the latest stored bar of a symbol and interval; ok is
// false when there is none.
func (s *Store) LastKline(ctx context.Context, symbol string, iv exchange.Interval) (k exchange.Kline, ok bool, err error) {
	ks, err := s.queryKlines(ctx, 1, `SELECT open_ms, close_ms, ohlcv FROM klines
		WHERE symbol = ? AND interval = ? ORDER BY open_ms DESC LIMIT 1`, symbol, string(iv))
	if err != nil {
		return exchange.Kline{}, false, fmt.Errorf("store: last kline of %s %s: %w", symbol, iv, err)
	}
	if len(ks) == 0 {
		return exchange.Kline{}, false, nil
	}
	return ks[0], true, nil
}

func (s *Store) queryKlines(ctx context.Context, sizeHint int, q string, args ...any) ([]exchange.Kline, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := make([]exchange.Kline, 0, sizeHint)
	var bar sql.RawBytes
	var openMs, closeMs int64
	for rows.Next() {
		if err := rows.Scan(&openMs, &closeMs, &bar); err != nil {
			return nil, classify(err)
		}
		k := exchange.Kline{OpenTime: time.UnixMilli(openMs).UTC(), CloseTime: time.UnixMilli(closeMs).UTC()}
		if err := parseBar(bar, &k); err != nil {
			return nil, fmt.Errorf("the bar at %d: %w", openMs, err)
		}
		out = append(out, k)
	}
	return out, classify(rows.Err())
}

var barFields = [6]string{"open", "high", "low", "close", "volume", "quote_volume"}

// appendBar writes a bar's six decimals as the ohlcv column holds them.
func appendBar(dst []byte, k exchange.Kline) []byte {
	for i, d := range [6]decimal.Decimal{k.Open, k.High, k.Low, k.Close, k.Volume, k.QuoteVolume} {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = marketdata.AppendDecimal(dst, d)
	}
	return dst
}

// parseBar reads the ohlcv column into k.
func parseBar(b []byte, k *exchange.Kline) error {
	dst := [6]*decimal.Decimal{&k.Open, &k.High, &k.Low, &k.Close, &k.Volume, &k.QuoteVolume}
	for i := range dst {
		field := b
		if j := bytes.IndexByte(b, ','); j >= 0 {
			field, b = b[:j], b[j+1:]
		} else if i < 5 {
			return fmt.Errorf("ohlcv %q has %d values, want 6", b, i+1)
		} else {
			b = nil
		}
		d, err := marketdata.ParseDecimal(field)
		if err != nil {
			return fmt.Errorf("%s %q is not a decimal", barFields[i], field)
		}
		*dst[i] = d
	}
	if len(b) > 0 {
		return fmt.Errorf("ohlcv has more than 6 values")
	}
	return nil
}
