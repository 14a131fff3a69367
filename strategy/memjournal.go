package strategy

import (
	"context"
	"sync"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// MemoryJournal is a Journal kept in memory, for backtests (which have no
// crash to recover from; their results go to the store as a whole) and for
// tests. It keeps what those read back: refusals, fills in the order they
// were recorded, strategy state and schedule runs. It is safe for
// concurrent use.
type MemoryJournal struct {
	mu      sync.Mutex
	intents map[string]Intent
	refused map[string]string // client order id → cause
	seen    map[fillKey]struct{}
	fills   []JournalFill
	state   map[string][]byte
	runs    []Run
}

type fillKey struct{ symbol, id string }

// JournalFill is a recorded fill with the strategy instance and the client
// order id it belongs to.
type JournalFill struct {
	Instance      string
	ClientOrderID string
	exchange.OwnTrade
}

// NewMemoryJournal returns an empty journal.
func NewMemoryJournal() *MemoryJournal {
	return &MemoryJournal{intents: map[string]Intent{}, refused: map[string]string{}, seen: map[fillKey]struct{}{},
		state: map[string][]byte{}}
}

var _ Journal = (*MemoryJournal)(nil)

// RecordIntent implements Journal.
func (j *MemoryJournal) RecordIntent(_ context.Context, in Intent) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.intents[in.ClientOrderID]; ok {
		return false, nil
	}
	j.intents[in.ClientOrderID] = in
	return true, nil
}

// RecordAck implements Journal; an acknowledgement needs no memory here.
func (j *MemoryJournal) RecordAck(context.Context, string, string, time.Time) error { return nil }

// RecordUnknown implements Journal; the runtime follows the order itself.
func (j *MemoryJournal) RecordUnknown(context.Context, string, error) error { return nil }

// RecordRefused implements Journal.
func (j *MemoryJournal) RecordRefused(_ context.Context, id string, cause error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refused[id] = cause.Error()
	return nil
}

// RecordOrder implements Journal; order states are not kept.
func (j *MemoryJournal) RecordOrder(context.Context, string, exchange.Order) error { return nil }

// RecordFill implements Journal: a fill is kept once per symbol and trade id.
func (j *MemoryJournal) RecordFill(_ context.Context, instance, clientOrderID string, t exchange.OwnTrade) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := fillKey{t.Symbol, t.ID}
	if _, ok := j.seen[k]; ok {
		return false, nil
	}
	j.seen[k] = struct{}{}
	j.fills = append(j.fills, JournalFill{Instance: instance, ClientOrderID: clientOrderID, OwnTrade: t})
	return true, nil
}

// SaveState implements Journal.
func (j *MemoryJournal) SaveState(_ context.Context, instance string, state []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.state[instance] = append([]byte(nil), state...)
	return nil
}

// LoadState implements Journal.
func (j *MemoryJournal) LoadState(_ context.Context, instance string) ([]byte, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	s, ok := j.state[instance]
	return s, ok, nil
}

// RecordRun implements Journal.
func (j *MemoryJournal) RecordRun(_ context.Context, run Run) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.runs = append(j.runs, run)
	return nil
}

// Fills returns the fills recorded from the n-th on (0 for all), in the
// order they were recorded. The slice is shared: do not modify it.
func (j *MemoryJournal) Fills(n int) []JournalFill {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.fills[min(n, len(j.fills)):]
}

// Refused returns why an order was refused, or "".
func (j *MemoryJournal) Refused(clientOrderID string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.refused[clientOrderID]
}

// State returns an instance's saved state.
func (j *MemoryJournal) State(instance string) []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state[instance]
}

// Runs returns the recorded schedule runs, oldest first.
func (j *MemoryJournal) Runs() []Run {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Run(nil), j.runs...)
}
