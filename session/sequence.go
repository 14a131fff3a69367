package session

import (
	"context"
	"fmt"
	"strconv"
)

// StateStore keeps named state: the store's strategy-state table.
type StateStore interface {
	LoadState(ctx context.Context, key string) ([]byte, bool, error)
	SaveState(ctx context.Context, key string, data []byte) error
}

// sequenceKey keys, among the strategy states of the store, the client-id
// sequence of simulated sessions; instance ids cannot contain '#'.
const sequenceKey = "#replay-sequence"

// SequenceReserve is the range of client-id sequence numbers a simulated
// session reserves before it starts, so that a session that crashes leaves
// the next one a fresh range.
const SequenceReserve = 100_000

// Sequence is a simulated session's reserved range: the runtime's first
// client-id sequence number, and the tag its trade ids carry (a simulated
// exchange numbers trades from 1 in every process).
type Sequence struct {
	Start int64
	Tag   string
}

// ReserveSequence gives a simulated session (paper, paper-replay, a job
// run) a range of client-id sequence numbers no earlier session on the
// store used: a replay starts over at the same bars, so the clock part of
// client ids repeats across sessions. Replay sessions and job runs share
// the one counter, so no client order id repeats in a store.
func ReserveSequence(ctx context.Context, st StateStore) (Sequence, error) {
	var start int64
	data, ok, err := st.LoadState(ctx, sequenceKey)
	if err != nil {
		return Sequence{}, err
	}
	if ok {
		if start, err = strconv.ParseInt(string(data), 10, 64); err != nil || start < 0 {
			return Sequence{}, fmt.Errorf("store: the saved replay sequence %q is not a number", data)
		}
	}
	if err := SaveSequence(ctx, st, start+SequenceReserve); err != nil {
		return Sequence{}, err
	}
	return Sequence{Start: start, Tag: "s" + strconv.FormatInt(start, 36) + "-"}, nil
}

// SaveSequence records where the next simulated session's sequence starts
// (a session that used less than its range gives the rest back).
func SaveSequence(ctx context.Context, st StateStore, next int64) error {
	return st.SaveState(ctx, sequenceKey, []byte(strconv.FormatInt(next, 10)))
}
