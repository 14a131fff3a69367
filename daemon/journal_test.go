package daemon

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// TestJournalWritesOutliveCancellation: a shutdown signal cancels the
// context while the runtime may be recording; the journal still records
// the intent, its acknowledgement, the fill, the final status and the
// state. (Found by the reliability soak: a cancelled intent write stopped
// a grid instance, and a lost final status left the store behind.)
func TestJournalWritesOutliveCancellation(t *testing.T) {
	t.Parallel()
	st := memStore(t)
	j := newJournal(st, slog.New(slog.DiscardHandler), false)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	no := exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Price: dec("100"), Quantity: dec("1"),
		NewClientOrderID: "g-1"}
	if created, err := j.RecordIntent(ctx, strategy.Intent{Instance: "g", ClientOrderID: "g-1", Order: no, At: at}); err != nil || !created {
		t.Fatalf("intent: created %v, %v", created, err)
	}
	if err := j.RecordUnknown(ctx, "g-1", context.Canceled); err != nil {
		t.Fatalf("unknown: %v", err)
	}
	if err := j.RecordAck(ctx, "g-1", "7", at); err != nil {
		t.Fatalf("ack: %v", err)
	}
	tr := exchange.OwnTrade{Symbol: "BTCUSDT", ID: "70", OrderID: "7", Price: dec("100"), Qty: dec("1"), QuoteQty: dec("100"),
		Commission: dec("0.001"), CommissionAsset: "BTC", IsBuyer: true, Time: at}
	if inserted, err := j.RecordFill(ctx, "g", "g-1", tr); err != nil || !inserted {
		t.Fatalf("fill: inserted %v, %v", inserted, err)
	}
	eo := exchange.Order{Symbol: "BTCUSDT", OrderID: "7", ClientOrderID: "g-1", Price: dec("100"), OrigQty: dec("1"), ExecutedQty: dec("1"),
		CummulativeQuoteQty: dec("100"), Status: exchange.StatusFilled, Type: exchange.TypeLimit, Side: exchange.SideBuy, Time: at, UpdateTime: at}
	if err := j.RecordOrder(ctx, "g", eo); err != nil {
		t.Fatalf("order: %v", err)
	}
	if err := j.SaveState(ctx, "g", []byte(`{"n":1}`)); err != nil {
		t.Fatalf("state: %v", err)
	}
	o, found, err := st.Order(t.Context(), "g-1")
	if err != nil || !found || o.Status != exchange.StatusFilled || o.OrderID != "7" || !o.ExecutedQty.Equal(dec("1")) || o.Intent != "final" {
		t.Fatalf("stored order %+v found=%v err=%v", o, found, err)
	}
	fills, err := st.FillsByOrder(t.Context(), "g-1")
	if err != nil || len(fills) != 1 || fills[0].TradeID != "70" {
		t.Fatalf("stored fills %+v, %v", fills, err)
	}
	state, ok, err := st.LoadState(t.Context(), "g")
	if err != nil || !ok || string(state) != `{"n":1}` {
		t.Fatalf("stored state %q ok=%v err=%v", state, ok, err)
	}
}
