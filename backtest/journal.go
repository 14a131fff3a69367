package backtest

import (
	"context"
	"sync/atomic"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// journal is a backtest's journal: a MemoryJournal that counts the fills
// it records, so the driver asks it for new fills (which takes its lock)
// only at the instants that have some, not at every bar.
type journal struct {
	*strategy.MemoryJournal
	fills atomic.Int64
}

var _ strategy.Journal = (*journal)(nil)

// RecordFill implements strategy.Journal.
func (j *journal) RecordFill(ctx context.Context, instance, clientOrderID string, t exchange.OwnTrade) (bool, error) {
	ok, err := j.MemoryJournal.RecordFill(ctx, instance, clientOrderID, t)
	if ok {
		j.fills.Add(1)
	}
	return ok, err
}
