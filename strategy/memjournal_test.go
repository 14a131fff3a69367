package strategy

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

func TestMemoryJournal(t *testing.T) {
	t.Parallel()
	j, ctx := NewMemoryJournal(), t.Context()
	if ok, _ := j.RecordIntent(ctx, Intent{ClientOrderID: "a"}); !ok {
		t.Error("first intent not created")
	}
	if ok, _ := j.RecordIntent(ctx, Intent{ClientOrderID: "a"}); ok {
		t.Error("second intent with the same id created")
	}
	for _, tr := range []exchange.OwnTrade{{Symbol: "BTCUSDT", ID: "1"}, {Symbol: "ETHUSDT", ID: "1"}, {Symbol: "BTCUSDT", ID: "1"}} {
		if _, err := j.RecordFill(ctx, "s", "a", tr); err != nil {
			t.Fatal(err)
		}
	}
	if all, tail := j.Fills(0), j.Fills(1); len(all) != 2 || len(tail) != 1 || tail[0].Symbol != "ETHUSDT" || all[0].Instance != "s" ||
		all[0].ClientOrderID != "a" || len(j.Fills(5)) != 0 {
		t.Errorf("fills %+v", all)
	}
	if ok, _ := j.RecordIntent(ctx, Intent{ClientOrderID: "b"}); !ok {
		t.Error("intent b not created")
	}
	if err := j.RecordRefused(ctx, "b", errors.New("no funds")); err != nil {
		t.Error(err)
	}
	state := []byte("x")
	_ = j.SaveState(ctx, "s", state)
	state[0] = 'y' // the journal keeps its own copy
	_ = j.RecordRun(ctx, Run{Schedule: "daily"})
	if j.Refused("b") != "no funds" || j.Refused("a") != "" || string(j.State("s")) != "x" || len(j.Runs()) != 1 {
		t.Errorf("refused %q, state %q, runs %v", j.Refused("b"), j.State("s"), j.Runs())
	}
}

// TestMemoryJournalFillBlocks records fills across several blocks and reads
// them back from every kind of start: within the block being filled, across
// blocks (which joins them) and after more fills follow a join.
func TestMemoryJournalFillBlocks(t *testing.T) {
	t.Parallel()
	j, ctx := NewMemoryJournal(), t.Context()
	record := func(from, to int) {
		for i := from; i < to; i++ {
			tr := exchange.OwnTrade{Symbol: "BTCUSDT", ID: strconv.Itoa(i)}
			if ok, err := j.RecordFill(ctx, "s", "c"+tr.ID, tr); !ok || err != nil {
				t.Fatalf("fill %d: inserted %v, err %v", i, ok, err)
			}
			if ok, _ := j.RecordFill(ctx, "s", "c"+tr.ID, tr); ok {
				t.Fatalf("fill %d inserted twice", i)
			}
		}
	}
	check := func(n, total int) {
		t.Helper()
		fs := j.Fills(n)
		want := max(total-n, 0)
		if len(fs) != want {
			t.Fatalf("Fills(%d) has %d fills, want %d", n, len(fs), want)
		}
		for i := range fs {
			if id := strconv.Itoa(n + i); fs[i].ID != id || fs[i].ClientOrderID != "c"+id {
				t.Fatalf("Fills(%d)[%d] = %s/%s, want %s", n, i, fs[i].ID, fs[i].ClientOrderID, id)
			}
		}
	}
	// blocks checks FillBlocks: blocks of the sizes given, none empty,
	// holding the fills from 0 in order, the journal's own.
	blocks := func(sizes ...int) {
		t.Helper()
		bs := j.FillBlocks()
		got := make([]int, len(bs))
		for k, b := range bs {
			got[k] = len(b)
		}
		if !slices.Equal(got, sizes) {
			t.Fatalf("FillBlocks of sizes %v, want %v", got, sizes)
		}
		i := 0
		for _, b := range bs {
			for k := range b {
				if id := strconv.Itoa(i); b[k].ID != id {
					t.Fatalf("FillBlocks fill %d is %s, want %s", i, b[k].ID, id)
				}
				i++
			}
		}
		if len(bs) > 0 {
			last := bs[len(bs)-1]
			if &last[len(last)-1] != &j.Fills(i - 1)[0] {
				t.Fatal("FillBlocks' last block is a copy")
			}
		}
	}
	blocks()
	record(0, 32)
	blocks(32)
	record(32, 33)
	blocks(32, 1)
	total := 2*fillBlock + 5
	record(33, total)
	blocks(32, 64, 128, 256, 512, 1024, 37)
	if n := j.FillCount(); n != total { // duplicates were offered too, and not counted
		t.Fatalf("FillCount %d, want %d", n, total)
	}
	// Blocks of 32, 64, ... 1024, 1024: 2,016 fills in full blocks.
	if want := 32 + 64 + 128 + 256 + 512 + 1024; j.nDone != want || len(j.done) != 6 {
		t.Fatalf("%d fills in %d full blocks, want %d in 6", j.nDone, len(j.done), want)
	}
	nDone, last := j.nDone, len(j.done[len(j.done)-1])
	check(nDone+1, total) // the block being filled
	check(total, total)
	check(3*fillBlock, total)
	check(nDone-3, total) // in the last full block: a copy
	if j.nDone != nDone {
		t.Fatalf("a read of the last full block joined the blocks")
	}
	check(nDone-last-1, total) // across blocks: joins
	blocks(total)
	check(0, total)
	record(2*fillBlock+5, 4*fillBlock)
	check(0, 4*fillBlock)
	check(4*fillBlock-2, 4*fillBlock)
	record(4*fillBlock, 4*fillBlock+1)
	check(4*fillBlock, 4*fillBlock+1)
	check(3, 4*fillBlock+1)
	// Every fill recorded, in joined and in full blocks, is known again by
	// its symbol and trade id; the same trade id of another symbol is new.
	record(4*fillBlock+1, 5*fillBlock)
	for i := range 5 * fillBlock {
		tr := exchange.OwnTrade{Symbol: "BTCUSDT", ID: strconv.Itoa(i)}
		if ok, err := j.RecordFill(ctx, "s", "c"+tr.ID, tr); ok || err != nil {
			t.Fatalf("fill %d offered again: inserted %v, err %v", i, ok, err)
		}
	}
	if len(j.done) == 0 {
		t.Fatal("no full block left: the re-offers did not reach one")
	}
	for _, id := range []string{"0", "2047", "5119"} {
		if ok, err := j.RecordFill(ctx, "s", "e"+id, exchange.OwnTrade{Symbol: "ETHUSDT", ID: id}); !ok || err != nil {
			t.Fatalf("ETHUSDT trade %s: inserted %v, err %v", id, ok, err)
		}
	}
	if n := j.FillCount(); n != 5*fillBlock+3 {
		t.Fatalf("FillCount %d, want %d", n, 5*fillBlock+3)
	}
}

// TestMemoryJournalRepeatedIntent: a repeated client order id is refused
// and leaves the first intent as it was (acknowledged, so a refusal of it
// is an error), and the intents after it keep their own state.
func TestMemoryJournalRepeatedIntent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	j := NewMemoryJournal()
	for _, id := range []string{"a", "b"} {
		if created, err := j.RecordIntent(ctx, Intent{ClientOrderID: id}); !created || err != nil {
			t.Fatalf("%s: created %v, %v", id, created, err)
		}
	}
	if err := j.RecordAck(ctx, "a", "1", time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if created, err := j.RecordIntent(ctx, Intent{ClientOrderID: id}); created || err != nil {
			t.Fatalf("repeated %s: created %v, %v", id, created, err)
		}
	}
	if created, err := j.RecordIntent(ctx, Intent{ClientOrderID: "c"}); !created || err != nil {
		t.Fatalf("c: created %v, %v", created, err)
	}
	err := j.RecordRefused(ctx, "a", errors.New("no"))
	if err == nil || err.Error() != "strategy: refusal of a: the exchange acknowledged this order" {
		t.Errorf("refusing the acknowledged a: %v", err)
	}
	for _, id := range []string{"b", "c"} {
		if err := j.RecordRefused(ctx, id, errors.New("no "+id)); err != nil {
			t.Errorf("refusing %s: %v", id, err)
		}
		if got := j.Refused(id); got != "no "+id {
			t.Errorf("%s refused for %q", id, got)
		}
	}
	if err := j.RecordAck(ctx, "d", "4", time.Time{}); err == nil || err.Error() != "strategy: acknowledgement of d: no intent recorded with this client order id" {
		t.Errorf("acknowledging d: %v", err)
	}
}

// TestMemoryJournalIntentsAcrossBlocks: intents recorded over several of
// the list's blocks are each found again by id, the first and last of
// every block included: a repeat is refused, an acknowledgement marks the
// one intent it names (so refusing it is an error, refusing its
// neighbours is not).
func TestMemoryJournalIntentsAcrossBlocks(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	j := NewMemoryJournal()
	const n = 2*intentBlock + 500
	id := func(i int) string { return "o" + strconv.Itoa(i) }
	for i := range n {
		if created, err := j.RecordIntent(ctx, Intent{ClientOrderID: id(i)}); !created || err != nil {
			t.Fatalf("%s: created %v, %v", id(i), created, err)
		}
	}
	if got := len(j.intentRecs.blocks); got != 3 {
		t.Fatalf("%d intents in %d blocks, want 3", n, got)
	}
	edges := []int{0, intentBlock - 1, intentBlock, 2*intentBlock - 1, 2 * intentBlock, n - 1}
	for _, i := range edges {
		if created, err := j.RecordIntent(ctx, Intent{ClientOrderID: id(i)}); created || err != nil {
			t.Fatalf("repeated %s: created %v, %v", id(i), created, err)
		}
		if err := j.RecordAck(ctx, id(i), strconv.Itoa(i), time.Time{}); err != nil {
			t.Fatalf("acknowledging %s: %v", id(i), err)
		}
	}
	for _, i := range edges {
		want := "strategy: refusal of " + id(i) + ": the exchange acknowledged this order"
		if err := j.RecordRefused(ctx, id(i), errors.New("no")); err == nil || err.Error() != want {
			t.Errorf("refusing the acknowledged %s: %v", id(i), err)
		}
	}
	for _, i := range []int{1, intentBlock - 2, intentBlock + 1, n - 2} {
		if err := j.RecordRefused(ctx, id(i), errors.New("no "+id(i))); err != nil {
			t.Errorf("refusing %s: %v", id(i), err)
		}
		if got := j.Refused(id(i)); got != "no "+id(i) {
			t.Errorf("%s refused for %q", id(i), got)
		}
	}
}
