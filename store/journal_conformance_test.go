package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
	"github.com/spotbot/spotbot/strategy/journaltest"
)

// TestJournalConformance runs the journal suite against a store in a
// database file of a temporary directory, reading back through the
// store's own queries.
func TestJournalConformance(t *testing.T) {
	t.Parallel()
	journaltest.Run(t, func(t *testing.T) journaltest.Harness {
		s, _ := fileStore(t)
		return journaltest.Harness{
			Journal: s,
			Refusal: func(ctx context.Context, cid string) (string, bool, error) {
				o, ok, err := s.Order(ctx, cid)
				if err != nil || !ok || o.Intent != IntentRefused {
					return "", false, err
				}
				return o.Error, true, nil
			},
			Fills: func(ctx context.Context) ([]strategy.JournalFill, error) {
				fs, err := s.FillsSince(ctx, time.Time{})
				out := make([]strategy.JournalFill, len(fs))
				for i, f := range fs {
					out[i] = strategy.JournalFill{Instance: f.Instance, ClientOrderID: f.ClientOrderID, OwnTrade: exchange.OwnTrade{
						Symbol: f.Symbol, ID: f.TradeID, OrderID: f.OrderID, Price: f.Price, Qty: f.Qty, QuoteQty: f.QuoteQty,
						Commission: f.Commission, CommissionAsset: f.CommissionAsset, Time: f.Time, IsBuyer: f.Side == exchange.SideBuy,
						IsMaker: f.Maker, IsSelfTrade: f.SelfTrade, ClientOrderID: f.ClientOrderID}}
				}
				return out, err
			},
			Runs: func(ctx context.Context, schedule string) ([]journaltest.ScheduleRun, error) {
				rs, err := s.JobRuns(ctx, schedule)
				out := make([]journaltest.ScheduleRun, len(rs))
				for i, r := range rs {
					out[i] = journaltest.ScheduleRun{Instance: r.Instance, Schedule: r.Job, Scheduled: r.Scheduled, Start: r.Start, End: r.End}
					out[i].Err, out[i].Orders = splitRunDetails(r)
				}
				return out, err
			},
			Order: func(ctx context.Context, cid string) (journaltest.Order, bool, error) {
				o, ok, err := s.Order(ctx, cid)
				return journaltest.Order{Instance: o.Instance, Symbol: o.Symbol, OrderID: o.OrderID, Status: o.Status,
					ExecutedQty: o.ExecutedQty, CumQuoteQty: o.CumQuoteQty, Outcome: string(o.Intent), Error: o.Error}, ok, err
			},
		}
	})
}

// splitRunDetails reads back what runDetails wrote: the error of a failed
// run and the orders of any run.
func splitRunDetails(r JobRun) (errText string, orders []string) {
	rest := r.Details
	if !r.OK {
		i := strings.LastIndex(rest, "; ")
		errText, rest = rest[:max(i, 0)], rest[i+len("; "):]
	}
	if rest != "no orders" {
		orders = strings.Split(strings.TrimPrefix(rest, "orders: "), ", ")
	}
	return errText, orders
}
