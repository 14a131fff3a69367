package store

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

func intent(cid string) strategy.Intent {
	return strategy.Intent{Instance: "grid-1", ClientOrderID: cid, At: t0,
		Order: exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec("0.00100000"),
			Price: dec("42000.10"), NewClientOrderID: cid, STPMode: exchange.STPCancelMaker}}
}

func mustOrder(t *testing.T, s *Store, cid string) Order {
	t.Helper()
	o, ok, err := s.Order(t.Context(), cid)
	if err != nil || !ok {
		t.Fatalf("order %s: %v, %v", cid, ok, err)
	}
	return o
}

func TestIntentLifecycle(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	created, err := s.RecordIntent(ctx, intent("c1"))
	if err != nil || !created {
		t.Fatalf("first intent: %v, %v", created, err)
	}
	// Recording it again changes nothing.
	again := intent("c1")
	again.Order.Price = dec("1")
	again.At = t0.Add(time.Hour)
	if created, err := s.RecordIntent(ctx, again); err != nil || created {
		t.Fatalf("second intent: %v, %v", created, err)
	}
	o := mustOrder(t, s, "c1")
	want := Order{ClientOrderID: "c1", Instance: "grid-1", Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit,
		STPMode: exchange.STPCancelMaker, Intent: IntentRecorded, Created: t0, Updated: t0}
	if o.ClientOrderID != want.ClientOrderID || o.Instance != want.Instance || o.Symbol != want.Symbol || o.Side != want.Side ||
		o.Type != want.Type || o.STPMode != want.STPMode || o.Intent != want.Intent || !o.Created.Equal(t0) || !o.Updated.Equal(t0) ||
		o.Price.String() != "42000.1" || o.Price.Exponent() != -2 || o.Quantity.Exponent() != -8 || !o.QuoteQuantity.IsZero() ||
		o.Status != "" || o.OrderID != "" {
		t.Fatalf("order = %+v", o)
	}
	if err := s.RecordSent(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	if o := mustOrder(t, s, "c1"); o.Intent != IntentSent {
		t.Fatalf("intent = %s, want sent", o.Intent)
	}
	if err := s.RecordUnknown(ctx, "c1", errors.New("exchange: 503 after the request was written")); err != nil {
		t.Fatal(err)
	}
	if o := mustOrder(t, s, "c1"); o.Intent != IntentUnknown || o.Error != "exchange: 503 after the request was written" {
		t.Fatalf("after unknown: %s %q", o.Intent, o.Error)
	}
	open, err := s.OpenOrders(ctx, "")
	if err != nil || len(open) != 1 || open[0].ClientOrderID != "c1" {
		t.Fatalf("open orders = %v, %v", open, err)
	}
	if err := s.RecordAck(ctx, "c1", "9001", t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	o = mustOrder(t, s, "c1")
	if o.Intent != IntentAcknowledged || o.OrderID != "9001" || o.Status != exchange.StatusNew || o.Error != "" || !o.Updated.Equal(t0.Add(time.Second)) {
		t.Fatalf("after ack: %+v", o)
	}
	// An unknown outcome or a refusal after the acknowledgement changes nothing / is an error.
	if err := s.RecordUnknown(ctx, "c1", errors.New("late")); err != nil {
		t.Fatal(err)
	}
	err = s.RecordRefused(ctx, "c1", errors.New("late refusal"))
	if err == nil || err.Error() != "store: refusal of c1: the exchange acknowledged this order (intent acknowledged)" {
		t.Fatalf("refusing an acknowledged order: %v", err)
	}
	if o := mustOrder(t, s, "c1"); o.Intent != IntentAcknowledged || o.Error != "" {
		t.Fatalf("after late calls: %s %q", o.Intent, o.Error)
	}
}

func TestRefusal(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	s.RecordIntent(ctx, intent("r1"))
	if err := s.RecordRefused(ctx, "r1", errors.New("exchange: -2010 insufficient balance")); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordRefused(ctx, "r1", errors.New("again")); err != nil {
		t.Fatalf("second refusal: %v", err)
	}
	o := mustOrder(t, s, "r1")
	if o.Intent != IntentRefused || o.Error != "exchange: -2010 insufficient balance" {
		t.Fatalf("refused order = %s %q", o.Intent, o.Error)
	}
	if open, _ := s.OpenOrders(ctx, ""); len(open) != 0 {
		t.Fatalf("refused order is open: %v", open)
	}
	for _, f := range []func() error{
		func() error { return s.RecordAck(ctx, "nope", "1", t0) },
		func() error { return s.RecordUnknown(ctx, "nope", nil) },
		func() error { return s.RecordRefused(ctx, "nope", nil) },
		func() error { return s.RecordSent(ctx, "nope") },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "nope: no intent recorded with this client order id") {
			t.Errorf("missing intent: %v", err)
		}
	}
}

func TestRecordIntentRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	tests := []struct {
		name string
		mod  func(*strategy.Intent)
		want string
	}{
		{"no id", func(in *strategy.Intent) { in.ClientOrderID = "" }, "store: intent without a client order id"},
		{"id mismatch", func(in *strategy.Intent) { in.Order.NewClientOrderID = "other" }, "store: intent x carries an order with client id other"},
		{"no instance", func(in *strategy.Intent) { in.Instance = "" }, "store: intent x without an instance"},
		{"no symbol", func(in *strategy.Intent) { in.Order.Symbol = "" }, "store: intent x without a symbol"},
		{"side", func(in *strategy.Intent) { in.Order.Side = "HOLD" }, `store: intent x: side "HOLD" is not BUY or SELL`},
		{"type", func(in *strategy.Intent) { in.Order.Type = "STOP" }, `store: intent x: unknown order type "STOP"`},
	}
	for _, tt := range tests {
		in := intent("x")
		tt.mod(&in)
		if _, err := s.RecordIntent(t.Context(), in); err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func report(cid string, st exchange.OrderStatus, exec, cum string, upd time.Time) exchange.Order {
	return exchange.Order{Symbol: "BTCUSDT", OrderID: "9001", ClientOrderID: cid, Status: st, ExecutedQty: dec(exec),
		CummulativeQuoteQty: dec(cum), UpdateTime: upd, Side: exchange.SideBuy, Type: exchange.TypeLimit, OrigQty: dec("0.001"), Price: dec("42000.1")}
}

func TestStatusMovesForwardOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reports    []exchange.Order
		wantStatus exchange.OrderStatus
		wantExec   string
		wantIntent IntentState
	}{
		{"partial then late new", []exchange.Order{report("c", exchange.StatusPartiallyFilled, "0.0004", "16.8", t0.Add(2*time.Second)),
			report("c", exchange.StatusNew, "0", "0", t0.Add(time.Second))}, exchange.StatusPartiallyFilled, "0.0004", IntentAcknowledged},
		{"filled then late partial", []exchange.Order{report("c", exchange.StatusFilled, "0.001", "42.0001", t0.Add(3*time.Second)),
			report("c", exchange.StatusPartiallyFilled, "0.0004", "16.8", t0.Add(2*time.Second))}, exchange.StatusFilled, "0.001", IntentFinal},
		{"canceled then late new", []exchange.Order{report("c", exchange.StatusCanceled, "0", "0", t0.Add(3*time.Second)),
			report("c", exchange.StatusNew, "0", "0", t0)}, exchange.StatusCanceled, "0", IntentFinal},
		{"a final status stays, quantities still only grow", []exchange.Order{report("c", exchange.StatusPartiallyCanceled, "0.0005", "21", t0.Add(3*time.Second)),
			report("c", exchange.StatusFilled, "0.001", "42", t0.Add(4*time.Second))}, exchange.StatusPartiallyCanceled, "0.001", IntentFinal},
		{"executed never decreases", []exchange.Order{report("c", exchange.StatusPartiallyFilled, "0.0006", "25.2", t0.Add(3*time.Second)),
			report("c", exchange.StatusPartiallyFilled, "0.0004", "16.8", t0.Add(4*time.Second))}, exchange.StatusPartiallyFilled, "0.0006", IntentAcknowledged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := memStore(t)
			s.RecordIntent(t.Context(), intent("c"))
			for _, r := range tt.reports {
				if err := s.RecordOrder(t.Context(), "grid-1", r); err != nil {
					t.Fatal(err)
				}
			}
			o := mustOrder(t, s, "c")
			if o.Status != tt.wantStatus || o.ExecutedQty.String() != tt.wantExec || o.Intent != tt.wantIntent || o.OrderID != "9001" {
				t.Fatalf("order = %s %s %s %s", o.Status, o.ExecutedQty, o.Intent, o.OrderID)
			}
		})
	}
}

func TestRecordOrderLookups(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	s.RecordIntent(ctx, intent("c"))
	s.RecordAck(ctx, "c", "9001", t0)
	// A cancel reply names the order by origClientOrderId.
	cancel := report("cancel-77", exchange.StatusCanceled, "0", "0", t0.Add(time.Minute))
	cancel.OrigClientOrderID = "c"
	cancel.CancelReason = exchange.CancelReasonSTP
	if err := s.RecordOrder(ctx, "grid-1", cancel); err != nil {
		t.Fatal(err)
	}
	o := mustOrder(t, s, "c")
	if o.Status != exchange.StatusCanceled || o.CancelReason != "stp_cancel" || !o.Updated.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after cancel reply: %+v", o)
	}
	if _, ok, _ := s.Order(ctx, "cancel-77"); ok {
		t.Fatal("the cancel request id became an order")
	}
	// A report by exchange order id only.
	s.RecordIntent(ctx, intent("d"))
	s.RecordAck(ctx, "d", "9002", t0)
	byID := report("", exchange.StatusFilled, "0.001", "42", t0.Add(time.Hour))
	byID.OrderID = "9002"
	if err := s.RecordOrder(ctx, "grid-1", byID); err != nil {
		t.Fatal(err)
	}
	if o := mustOrder(t, s, "d"); o.Status != exchange.StatusFilled || o.Intent != IntentFinal {
		t.Fatalf("by order id: %+v", o)
	}
	// An order placed by another tool is added.
	ext := report("manual-1", exchange.StatusNew, "0", "0", t0)
	ext.OrderID, ext.Time = "5", t0
	if err := s.RecordOrder(ctx, "manual", ext); err != nil {
		t.Fatal(err)
	}
	if o := mustOrder(t, s, "manual-1"); o.Instance != "manual" || o.Intent != IntentAcknowledged || o.OrderID != "5" || o.Quantity.String() != "0.001" {
		t.Fatalf("external order: %+v", o)
	}
	if err := s.RecordOrder(ctx, "x", exchange.Order{Symbol: "BTCUSDT", ClientOrderID: "z", Status: "DONE"}); err == nil ||
		err.Error() != `store: order BTCUSDT/z: unknown status "DONE"` {
		t.Errorf("bad status: %v", err)
	}
	open, _ := s.OpenOrders(ctx, "manual")
	if len(open) != 1 || open[0].ClientOrderID != "manual-1" {
		t.Errorf("open orders of manual = %v", open)
	}
}

func TestRefusalOverriddenByExchange(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	s.RecordIntent(ctx, intent("c"))
	s.RecordRefused(ctx, "c", errors.New("proven unknown"))
	if err := s.RecordOrder(ctx, "grid-1", report("c", exchange.StatusNew, "0", "0", t0)); err != nil {
		t.Fatal(err)
	}
	if o := mustOrder(t, s, "c"); o.Intent != IntentAcknowledged || o.Status != exchange.StatusNew {
		t.Fatalf("after the exchange reported it: %s %s", o.Intent, o.Status)
	}
}
