package backtest

import (
	"context"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// journal is the runtime's journal in a backtest: it keeps in memory what
// the store keeps live, and collects the fills and runs the report needs.
// A backtest has no crash to recover from, so nothing is written to disk;
// the run's results go to the store as a whole when the caller asks.
type journal struct {
	intents map[string]strategy.Intent
	refused map[string]error
	fills   []Fill
	seen    map[tradeKey]struct{}
	state   map[string][]byte
	runs    []strategy.Run
}

type tradeKey struct{ symbol, id string }

// Fill is one execution in a backtest, with the strategy instance and
// client order id that caused it.
type Fill struct {
	Instance      string
	ClientOrderID string
	exchange.OwnTrade
}

func newJournal() *journal {
	return &journal{intents: map[string]strategy.Intent{}, refused: map[string]error{},
		seen: map[tradeKey]struct{}{}, state: map[string][]byte{}}
}

var _ strategy.Journal = (*journal)(nil)

func (j *journal) RecordIntent(_ context.Context, in strategy.Intent) (bool, error) {
	if _, ok := j.intents[in.ClientOrderID]; ok {
		return false, nil
	}
	j.intents[in.ClientOrderID] = in
	return true, nil
}

func (j *journal) RecordAck(context.Context, string, string, time.Time) error { return nil }

func (j *journal) RecordUnknown(context.Context, string, error) error { return nil }

func (j *journal) RecordRefused(_ context.Context, id string, cause error) error {
	j.refused[id] = cause
	return nil
}

func (j *journal) RecordOrder(context.Context, string, exchange.Order) error { return nil }

func (j *journal) RecordFill(_ context.Context, instance, clientOrderID string, t exchange.OwnTrade) (bool, error) {
	k := tradeKey{t.Symbol, t.ID}
	if _, ok := j.seen[k]; ok {
		return false, nil
	}
	j.seen[k] = struct{}{}
	j.fills = append(j.fills, Fill{Instance: instance, ClientOrderID: clientOrderID, OwnTrade: t})
	return true, nil
}

func (j *journal) SaveState(_ context.Context, instance string, state []byte) error {
	j.state[instance] = append([]byte(nil), state...)
	return nil
}

func (j *journal) LoadState(_ context.Context, instance string) ([]byte, bool, error) {
	s, ok := j.state[instance]
	return s, ok, nil
}

func (j *journal) RecordRun(_ context.Context, run strategy.Run) error {
	j.runs = append(j.runs, run)
	return nil
}
