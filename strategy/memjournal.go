package strategy

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// MemoryJournal is a Journal kept in memory, for backtests (which have no
// crash to recover from; their results go to the store as a whole) and for
// tests. It keeps what those read back: refusals, fills in the order they
// were recorded, strategy state and schedule runs; of the orders, only
// whether each was acknowledged, so that an outcome contradicting that is
// an error, as in the store. It is safe for concurrent use.
type MemoryJournal struct {
	mu sync.Mutex
	// intents index intentRecs by client order id, seen the fills (their
	// positions in the order recorded, fillAt) by symbol and trade id.
	seed       maphash.Seed
	intents    hashIndex
	intentRecs intentList
	lastIntent int               // the position of the intent recorded last (intent looks there first)
	refused    map[string]string // client order id → cause
	seen       hashIndex
	// fills are kept in blocks of fillBlock, so recording a fill never
	// copies the ones before it; done holds the full blocks, joined into
	// one when Fills is asked for a range spanning blocks.
	done  [][]JournalFill
	fills []JournalFill // the block being filled
	nDone int           // fills in done
	count atomic.Int64  // fills recorded, readable without the lock
	state map[string][]byte
	runs  []Run
	// reasons are the reasons of the orders the runtime placed itself
	// (exits), by client order id.
	reasons map[string]string
	locks   []Lock
}

// fillBlock is how many fills a block holds at most (about 220 KB); the
// first holds firstFillBlock and each next one twice the one before, so a
// short run (one of a sweep's) does not pay for a large block.
const (
	fillBlock      = 1024
	firstFillBlock = 32
)

// intentRec is a recorded intent.
type intentRec struct {
	id    string
	acked bool
}

// intentBlock is how many intent records a block of an intentList holds
// (24 KiB).
const intentBlock = 1024

// intentList is the intents in the order recorded, in blocks of
// intentBlock (the first grows to that size) that a new record never
// moves: a list growing by append leaves its old arrays behind, and append
// grows a long list by a quarter at a time, so they add up to some four
// times the list (2.2 MB for a million-bar run's 20,000 intents).
type intentList struct {
	blocks [][]intentRec
	n      int
}

// at is the record at position pos, which the list holds.
func (l *intentList) at(pos int) *intentRec {
	return &l.blocks[pos/intentBlock][pos%intentBlock]
}

// add appends rec.
func (l *intentList) add(rec intentRec) {
	k := len(l.blocks) - 1
	if k < 0 || len(l.blocks[k]) == intentBlock {
		size := intentBlock
		if k < 0 {
			size = 16
		}
		l.blocks = append(l.blocks, make([]intentRec, 0, size))
		k++
	}
	l.blocks[k] = append(l.blocks[k], rec)
	l.n++
}

// JournalFill is a recorded fill with the strategy instance and the client
// order id it belongs to.
type JournalFill struct {
	Instance      string
	ClientOrderID string
	exchange.OwnTrade
}

// NewMemoryJournal returns an empty journal.
func NewMemoryJournal() *MemoryJournal {
	return &MemoryJournal{seed: maphash.MakeSeed(), refused: map[string]string{},
		state: map[string][]byte{}}
}

var _ Journal = (*MemoryJournal)(nil)

// RecordIntent implements Journal.
func (j *MemoryJournal) RecordIntent(_ context.Context, in Intent) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	id := in.ClientOrderID
	if j.intentRecs.n >= math.MaxInt32-1 {
		return false, fmt.Errorf("strategy: recording intent %s: the journal holds %d intents, its most", id, j.intentRecs.n)
	}
	h := uint32(maphash.String(j.seed, id))
	j.intents.reserve()
	i, pos := j.intents.find(h, func(pos int32) bool { return j.intentRecs.at(int(pos)).id == id })
	if pos >= 0 {
		return false, nil
	}
	j.intents.put(i, h, int32(j.intentRecs.n))
	j.lastIntent = j.intentRecs.n
	j.intentRecs.add(intentRec{id: id})
	if in.Reason != "" {
		if j.reasons == nil {
			j.reasons = map[string]string{}
		}
		j.reasons[id] = in.Reason
	}
	return true, nil
}

// intent returns the record of an intent, or nil. The runtime records
// an order's acknowledgement (or refusal) right after its intent: that
// one is found without a hash.
func (j *MemoryJournal) intent(id string) *intentRec {
	if j.intentRecs.n == 0 {
		return nil
	}
	if rec := j.intentRecs.at(j.lastIntent); rec.id == id {
		return rec
	}
	h := uint32(maphash.String(j.seed, id))
	if _, pos := j.intents.find(h, func(pos int32) bool { return j.intentRecs.at(int(pos)).id == id }); pos >= 0 {
		return j.intentRecs.at(int(pos))
	}
	return nil
}

// RecordAck implements Journal. The exchange is the authority on whether
// an order exists: an acknowledgement overrides a refusal.
func (j *MemoryJournal) RecordAck(_ context.Context, id, _ string, _ time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	rec := j.intent(id)
	if rec == nil {
		return errNoIntent("acknowledgement", id)
	}
	rec.acked = true
	if len(j.refused) > 0 {
		delete(j.refused, id)
	}
	return nil
}

// RecordUnknown implements Journal; the runtime follows the order itself,
// so only a missing intent is looked for.
func (j *MemoryJournal) RecordUnknown(_ context.Context, id string, _ error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.intent(id) == nil {
		return errNoIntent("unknown outcome", id)
	}
	return nil
}

// RecordRefused implements Journal. Refusing an acknowledged order is an
// error; refusing an order twice keeps the first cause.
func (j *MemoryJournal) RecordRefused(_ context.Context, id string, cause error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	rec := j.intent(id)
	switch {
	case rec == nil:
		return errNoIntent("refusal", id)
	case rec.acked:
		return fmt.Errorf("strategy: refusal of %s: the exchange acknowledged this order", id)
	}
	if _, done := j.refused[id]; !done {
		j.refused[id] = cause.Error()
	}
	return nil
}

func errNoIntent(what, id string) error {
	return fmt.Errorf("strategy: %s of %s: no intent recorded with this client order id", what, id)
}

// RecordOrder implements Journal; order states are not kept.
func (j *MemoryJournal) RecordOrder(context.Context, string, exchange.Order) error { return nil }

// RecordFill implements Journal: a fill is kept once per symbol and trade id.
func (j *MemoryJournal) RecordFill(_ context.Context, instance, clientOrderID string, t exchange.OwnTrade) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	h := uint32(maphash.String(j.seed, t.ID)) // a trade id repeats across symbols only: same compares both
	j.seen.reserve()
	i, pos := j.seen.find(h, func(pos int32) bool {
		f := j.fillAt(int(pos))
		return f.ID == t.ID && f.Symbol == t.Symbol
	})
	if pos >= 0 {
		return false, nil
	}
	n := j.nDone + len(j.fills)
	if n >= math.MaxInt32-1 {
		return false, fmt.Errorf("strategy: recording fill %s %s: the journal holds %d fills, its most", t.Symbol, t.ID, n)
	}
	j.seen.put(i, h, int32(n))
	if len(j.fills) == cap(j.fills) {
		size := min(fillBlock, max(firstFillBlock, 2*len(j.fills)))
		if len(j.fills) > 0 {
			j.done = append(j.done, j.fills)
			j.nDone += len(j.fills)
		}
		j.fills = make([]JournalFill, 0, size)
	}
	j.fills = append(j.fills, JournalFill{Instance: instance, ClientOrderID: clientOrderID, OwnTrade: t})
	j.count.Add(1)
	return true, nil
}

// fillAt is the fill recorded at position pos (counted from 0 in the
// order recorded), which the journal holds. seen keeps positions only: a
// fill's key is read from the fill itself, and only when its hash matches.
func (j *MemoryJournal) fillAt(pos int) *JournalFill {
	if pos >= j.nDone {
		return &j.fills[pos-j.nDone]
	}
	for _, b := range j.done {
		if pos < len(b) {
			return &b[pos]
		}
		pos -= len(b)
	}
	panic("strategy: memory journal: fill position out of range") // seen holds recorded positions only
}

// FillCount is how many fills are recorded. It takes no lock: a backtest
// asks at every bar whether anything new was recorded.
func (j *MemoryJournal) FillCount() int { return int(j.count.Load()) }

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
	return append([]byte(nil), s...), ok, nil // the caller may change it
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
// Asking for fills of the block being filled only (the new fills since the
// last call, as a backtest does each bar) copies nothing.
func (j *MemoryJournal) Fills(n int) []JournalFill {
	j.mu.Lock()
	defer j.mu.Unlock()
	n = max(n, 0)
	if n >= j.nDone {
		return j.fills[min(n-j.nDone, len(j.fills)):]
	}
	if last := j.done[len(j.done)-1]; n >= j.nDone-len(last) {
		// Just past a block's end (new fills since the last call filled
		// it): copy the few fills asked for rather than join all blocks.
		off := n - (j.nDone - len(last))
		return append(append(make([]JournalFill, 0, len(last)-off+len(j.fills)), last[off:]...), j.fills...)
	}
	// The range spans blocks: join them all into one, which also serves
	// later calls.
	all := make([]JournalFill, 0, j.nDone+len(j.fills))
	for _, b := range j.done {
		all = append(all, b...)
	}
	all = append(all, j.fills...)
	j.done, j.nDone = nil, 0
	j.fills = all
	return all[n:]
}

// FillBlocks returns every fill recorded, in the order recorded, as the
// blocks the journal keeps them in, none empty. The blocks are shared: do
// not modify them (fills recorded later do not change them). Unlike
// Fills(0), it joins nothing: a fifty-million-bar backtest's two million
// fills are 400 MB, which a join would copy at the end of the run.
func (j *MemoryJournal) FillBlocks() [][]JournalFill {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([][]JournalFill, 0, len(j.done)+1)
	out = append(out, j.done...)
	if len(j.fills) > 0 {
		out = append(out, j.fills)
	}
	return out
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

// Reason returns the reason recorded with an order's intent: an exit's
// (ExitStopLoss, ...), or "" for a strategy's own order.
func (j *MemoryJournal) Reason(clientOrderID string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.reasons[clientOrderID]
}

var _ LockRecorder = (*MemoryJournal)(nil)

// RecordLock implements LockRecorder.
func (j *MemoryJournal) RecordLock(_ context.Context, l Lock) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.locks = append(j.locks, l)
	return nil
}

// Locks returns the locks recorded, in order.
func (j *MemoryJournal) Locks() []Lock {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Lock(nil), j.locks...)
}
