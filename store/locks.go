package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spotbot/spotbot/strategy"
)

var _ strategy.LockRecorder = (*Store)(nil)

// RecordLock records a protection's lock of a symbol
// (strategy.LockRecorder).
func (s *Store) RecordLock(ctx context.Context, l strategy.Lock) error {
	switch {
	case l.Instance == "" || l.Symbol == "" || l.Reason == "":
		return errors.New("store: a lock needs an instance, a symbol and a reason")
	case !l.Until.After(l.From):
		return fmt.Errorf("store: lock of %s until %s does not end after it starts", l.Symbol, l.Until.UTC().Format(time.RFC3339))
	}
	_, err := s.exec(ctx, `INSERT INTO protection_locks (instance, symbol, reason, from_ms, until_ms) VALUES (?, ?, ?, ?, ?)`,
		l.Instance, l.Symbol, l.Reason, millis(l.From), millis(l.Until))
	if err != nil {
		return fmt.Errorf("store: recording lock: %w", classify(err))
	}
	return nil
}

// Locks returns the locks in force at now (ending after it), by end
// time; with all set, every lock ever recorded, oldest first.
func (s *Store) Locks(ctx context.Context, now time.Time, all bool) ([]strategy.Lock, error) {
	q := `SELECT instance, symbol, reason, from_ms, until_ms FROM protection_locks WHERE until_ms > ? ORDER BY until_ms, id`
	if all {
		q = `SELECT instance, symbol, reason, from_ms, until_ms FROM protection_locks WHERE ? IS NOT NULL ORDER BY id`
	}
	rows, err := s.r.QueryContext(ctx, q, millis(now))
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []strategy.Lock
	for rows.Next() {
		var l strategy.Lock
		var from, until int64
		if err := rows.Scan(&l.Instance, &l.Symbol, &l.Reason, &from, &until); err != nil {
			return nil, classify(err)
		}
		l.From, l.Until = fromMillis(from), fromMillis(until)
		out = append(out, l)
	}
	return out, classify(rows.Err())
}
