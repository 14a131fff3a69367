// Package journaltest is the conformance suite of strategy.Journal: one set
// of behaviours every journal must show, run against the store (SQLite) and
// against strategy.MemoryJournal. A journal written for another database
// runs it the same way, from its own tests:
//
//	func TestJournal(t *testing.T) {
//		journaltest.Run(t, func(t *testing.T) journaltest.Harness {
//			j := openMyJournal(t) // fresh and empty
//			return journaltest.Harness{Journal: j, Refusal: ..., Fills: ..., Runs: ...}
//		})
//	}
//
// The Journal interface only writes (and loads strategy state), so a
// harness also hands the suite ways to read back what was recorded; each
// journal has its own reading API, and the harness adapts it.
//
// What the runtime relies on, and the suite checks exactly: an intent is
// created once per client order id; an unknown outcome is resolved either
// by an acknowledgement or by a refusal; an acknowledged order is never
// recorded as refused; a fill is inserted once per symbol and trade id and
// reported as not inserted after that; saved state loads back as saved and
// cannot be changed through a slice given in or out. Order states (status
// only forward, executed quantity never decreasing) are checked when the
// harness can read them (Harness.Order); a journal that keeps no order
// states, like MemoryJournal, is checked only for accepting the reports.
package journaltest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Harness is one fresh, empty journal and the ways to read it back.
type Harness struct {
	Journal strategy.Journal
	// Refusal returns the cause recorded for an order the journal holds as
	// never placed (RecordRefused), and false for any other order.
	Refusal func(ctx context.Context, clientOrderID string) (cause string, refused bool, err error)
	// Fills returns every fill recorded, oldest first, with the instance
	// and client order id it was recorded with. The suite records fills in
	// time order, as the runtime does, so oldest first and first recorded
	// first are the same order here.
	Fills func(ctx context.Context) ([]strategy.JournalFill, error)
	// Runs returns the recorded runs of one schedule, oldest first.
	Runs func(ctx context.Context, schedule string) ([]ScheduleRun, error)
	// Order returns what the journal holds about an order, and false when
	// it holds nothing. Nil for a journal that keeps no order states.
	Order func(ctx context.Context, clientOrderID string) (Order, bool, error)
}

// ScheduleRun is a recorded run of a schedule as the suite compares it.
type ScheduleRun struct {
	Instance  string
	Schedule  string
	Scheduled time.Time
	Start     time.Time
	End       time.Time
	Err       string   // the run's error text; "" when it succeeded
	Orders    []string // client order ids the run placed, in order
}

// Order is a journal's record of an order as the suite compares it.
type Order struct {
	Instance    string
	Symbol      string
	OrderID     string               // "" until acknowledged
	Status      exchange.OrderStatus // "" until acknowledged
	ExecutedQty decimal.Decimal
	CumQuoteQty decimal.Decimal
	// Outcome is where the order stands: "recorded", "unknown",
	// "acknowledged", "refused" or "final".
	Outcome string
	// Error is the cause of an unknown outcome or a refusal, "" otherwise.
	Error string
}

// Outcomes of an order.
const (
	Recorded     = "recorded"
	Unknown      = "unknown"
	Acknowledged = "acknowledged"
	Refused      = "refused"
	Final        = "final"
)

// Run runs the suite; open returns a fresh, empty journal for each test.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	t.Run("IntentCreatedOnce", func(t *testing.T) { intents(t, open) })
	t.Run("Acknowledgement", func(t *testing.T) { acknowledgement(t, open) })
	t.Run("Refusal", func(t *testing.T) { refusal(t, open) })
	t.Run("UnknownResolvedAsPlaced", func(t *testing.T) { unknownPlaced(t, open) })
	t.Run("UnknownResolvedAsNeverPlaced", func(t *testing.T) { unknownNeverPlaced(t, open) })
	t.Run("AcknowledgementOverridesRefusal", func(t *testing.T) { ackAfterRefusal(t, open) })
	t.Run("NoIntentNoOutcome", func(t *testing.T) { noIntent(t, open) })
	t.Run("StatusOnlyForward", func(t *testing.T) { statusForward(t, open) })
	t.Run("FillRecordedOnce", func(t *testing.T) { fillsOnce(t, open) })
	t.Run("ConcurrentFills", func(t *testing.T) { concurrentFills(t, open) })
	t.Run("State", func(t *testing.T) { state(t, open) })
	t.Run("Runs", func(t *testing.T) { runs(t, open) })
}

// T0 is the time of the suite's first event, in whole milliseconds (a
// journal may keep times to the millisecond).
func T0() time.Time { return time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC) }

func at(ms int) time.Time { return T0().Add(time.Duration(ms) * time.Millisecond) }

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// env is one test's journal.
type env struct {
	t   *testing.T
	h   Harness
	j   strategy.Journal
	ctx context.Context
}

func setup(t *testing.T, open func(t *testing.T) Harness) *env {
	t.Helper()
	h := open(t)
	if h.Journal == nil || h.Refusal == nil || h.Fills == nil || h.Runs == nil {
		t.Fatal("journaltest: the harness needs a Journal, Refusal, Fills and Runs")
	}
	return &env{t: t, h: h, j: h.Journal, ctx: t.Context()}
}

func (e *env) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// intent is a valid limit buy of symbol by instance.
func intent(instance, cid, symbol string) strategy.Intent {
	return strategy.Intent{Instance: instance, ClientOrderID: cid, At: at(0), Order: exchange.NewOrder{Symbol: symbol,
		Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: d("0.5"), Price: d("20000"), NewClientOrderID: cid}}
}

// record records a new intent to buy BTCUSDT, which must be created.
func (e *env) record(instance, cid string) {
	e.t.Helper()
	created, err := e.j.RecordIntent(e.ctx, intent(instance, cid, "BTCUSDT"))
	e.must(err)
	if !created {
		e.t.Fatalf("RecordIntent(%s) created false on an empty journal", cid)
	}
}

// wantRefusal asserts whether an order is held as refused, and with what
// cause ("" for not refused).
func (e *env) wantRefusal(cid, cause string) {
	e.t.Helper()
	got, refused, err := e.h.Refusal(e.ctx, cid)
	e.must(err)
	if refused != (cause != "") || got != cause {
		e.t.Errorf("refusal of %s: %q (refused %v), want %q (refused %v)", cid, got, refused, cause, cause != "")
	}
}

// wantOrder asserts the order's record, rendered by orderLine, when the
// harness can read orders.
func (e *env) wantOrder(cid, want string) {
	e.t.Helper()
	if e.h.Order == nil {
		return
	}
	o, ok, err := e.h.Order(e.ctx, cid)
	e.must(err)
	got := "none"
	if ok {
		got = orderLine(o)
	}
	if got != want {
		e.t.Errorf("order %s:\n got %s\nwant %s", cid, got, want)
	}
}

// orderLine renders an order record as
// "inst BTCUSDT id=11 NEW exec=0 cum=0 acknowledged err=".
func orderLine(o Order) string {
	return fmt.Sprintf("%s %s id=%s %s exec=%s cum=%s %s err=%s", o.Instance, o.Symbol, o.OrderID, o.Status,
		o.ExecutedQty, o.CumQuoteQty, o.Outcome, o.Error)
}

// wantErr asserts that err is not nil: the journal refuses the call.
func wantErr(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
	}
}

// fillLine renders a recorded fill as one line:
// "inst cid BTCUSDT#1 order=11 BUY 0.2@20000 quote=4000 fee=0.0002 BTC maker=true self=false at=...".
func fillLine(f strategy.JournalFill) string {
	side := exchange.SideSell
	if f.IsBuyer {
		side = exchange.SideBuy
	}
	return fmt.Sprintf("%s %s %s#%s order=%s %s %s@%s quote=%s fee=%s %s maker=%t self=%t at=%s", f.Instance, f.ClientOrderID,
		f.Symbol, f.ID, f.OrderID, side, f.Qty, f.Price, f.QuoteQty, f.Commission, f.CommissionAsset, f.IsMaker, f.IsSelfTrade,
		f.Time.UTC().Format(time.RFC3339Nano))
}

func (e *env) wantFills(want ...string) {
	e.t.Helper()
	fs, err := e.h.Fills(e.ctx)
	e.must(err)
	got := make([]string, len(fs))
	for i, f := range fs {
		got[i] = fillLine(f)
	}
	if !slices.Equal(got, want) {
		e.t.Errorf("fills:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// runLine renders a run as one line.
func runLine(r ScheduleRun) string {
	return fmt.Sprintf("%s/%s scheduled=%s start=%s end=%s err=%q orders=%v", r.Instance, r.Schedule,
		r.Scheduled.UTC().Format(time.RFC3339Nano), r.Start.UTC().Format(time.RFC3339Nano), r.End.UTC().Format(time.RFC3339Nano),
		r.Err, r.Orders)
}
