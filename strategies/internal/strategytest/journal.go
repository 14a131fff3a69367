package strategytest

import (
	"context"
	"sync"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Journal is an in-memory strategy.Journal that keeps what tests inspect:
// refusals, fills, state and schedule runs.
type Journal struct {
	mu      sync.Mutex
	intents map[string]strategy.Intent
	Refused map[string]string // client order id → cause
	fills   map[string]bool
	state   map[string][]byte
	Runs    []strategy.Run
}

// NewJournal returns an empty journal.
func NewJournal() *Journal {
	return &Journal{intents: map[string]strategy.Intent{}, Refused: map[string]string{},
		fills: map[string]bool{}, state: map[string][]byte{}}
}

var _ strategy.Journal = (*Journal)(nil)

// RecordIntent implements strategy.Journal.
func (j *Journal) RecordIntent(_ context.Context, in strategy.Intent) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.intents[in.ClientOrderID]; ok {
		return false, nil
	}
	j.intents[in.ClientOrderID] = in
	return true, nil
}

// RecordAck implements strategy.Journal.
func (j *Journal) RecordAck(context.Context, string, string, time.Time) error { return nil }

// RecordUnknown implements strategy.Journal.
func (j *Journal) RecordUnknown(context.Context, string, error) error { return nil }

// RecordRefused implements strategy.Journal.
func (j *Journal) RecordRefused(_ context.Context, id string, cause error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.Refused[id] = cause.Error()
	return nil
}

// RecordOrder implements strategy.Journal.
func (j *Journal) RecordOrder(context.Context, string, exchange.Order) error { return nil }

// RecordFill implements strategy.Journal.
func (j *Journal) RecordFill(_ context.Context, _, _ string, t exchange.OwnTrade) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := t.Symbol + "/" + t.ID
	if j.fills[k] {
		return false, nil
	}
	j.fills[k] = true
	return true, nil
}

// SaveState implements strategy.Journal.
func (j *Journal) SaveState(_ context.Context, inst string, b []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.state[inst] = append([]byte(nil), b...)
	return nil
}

// LoadState implements strategy.Journal.
func (j *Journal) LoadState(_ context.Context, inst string) ([]byte, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, ok := j.state[inst]
	return b, ok, nil
}

// State returns an instance's saved state.
func (j *Journal) State(inst string) []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state[inst]
}

// RecordRun implements strategy.Journal.
func (j *Journal) RecordRun(_ context.Context, r strategy.Run) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.Runs = append(j.Runs, r)
	return nil
}
