package app

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
	"github.com/spotbot/spotbot/strategy"
)

// jobJournal is the store, remembering what one job run did for its
// report. In a simulated run (fresh) no saved strategy state is restored:
// it would describe another account.
type jobJournal struct {
	*store.Store
	fresh   bool
	session string // trade-id tag of a simulated run
	orders  []string
	status  map[string]*jobOrder
}

var _ strategy.Journal = (*jobJournal)(nil)

// jobOrder is one order of the run, as last seen.
type jobOrder struct {
	order    exchange.NewOrder
	status   exchange.OrderStatus
	executed decimal.Decimal
	quote    decimal.Decimal
	fills    int
	refused  error
	unknown  error
}

func (j *jobJournal) RecordIntent(ctx context.Context, in strategy.Intent) (bool, error) {
	created, err := j.Store.RecordIntent(ctx, in)
	if err == nil && created {
		j.orders = append(j.orders, in.ClientOrderID)
		j.status[in.ClientOrderID] = &jobOrder{order: in.Order}
	}
	return created, err
}

func (j *jobJournal) RecordAck(ctx context.Context, cid, orderID string, at time.Time) error {
	if o := j.status[cid]; o != nil && o.status == "" {
		o.status = exchange.StatusNew
	}
	return j.Store.RecordAck(ctx, cid, orderID, at)
}

func (j *jobJournal) RecordUnknown(ctx context.Context, cid string, cause error) error {
	if o := j.status[cid]; o != nil {
		o.unknown = cause
	}
	return j.Store.RecordUnknown(ctx, cid, cause)
}

func (j *jobJournal) RecordRefused(ctx context.Context, cid string, cause error) error {
	if o := j.status[cid]; o != nil {
		o.refused, o.unknown = cause, nil
	}
	return j.Store.RecordRefused(ctx, cid, cause)
}

func (j *jobJournal) RecordOrder(ctx context.Context, instance string, o exchange.Order) error {
	if t := j.status[o.ClientOrderID]; t != nil {
		t.status, t.executed, t.quote, t.unknown = o.Status, o.ExecutedQty, o.CummulativeQuoteQty, nil
	}
	return j.Store.RecordOrder(ctx, instance, o)
}

func (j *jobJournal) RecordFill(ctx context.Context, instance, cid string, t exchange.OwnTrade) (bool, error) {
	if j.session != "" {
		t.ID = j.session + t.ID
	}
	inserted, err := j.Store.RecordFill(ctx, instance, cid, t)
	if o := j.status[cid]; o != nil && err == nil && inserted {
		o.fills++
	}
	return inserted, err
}

func (j *jobJournal) LoadState(ctx context.Context, instance string) ([]byte, bool, error) {
	if j.fresh {
		return nil, false, nil
	}
	return j.Store.LoadState(ctx, instance)
}

// print writes one line per order the run sent, in the order sent.
func (j *jobJournal) print(w io.Writer) {
	if len(j.orders) == 0 {
		fmt.Fprintln(w, "orders: none")
		return
	}
	for _, cid := range j.orders {
		o := j.status[cid]
		fmt.Fprintf(w, "order %s: %s -> %s\n", cid, describeOrder(o.order), o.outcome())
	}
}

func describeOrder(o exchange.NewOrder) string {
	s := string(o.Side) + " " + string(o.Type) + " " + o.Symbol
	switch {
	case !o.Quantity.IsZero():
		s += " qty " + o.Quantity.String()
	case !o.QuoteOrderQty.IsZero():
		s += " quote " + o.QuoteOrderQty.String()
	}
	if !o.Price.IsZero() {
		s += " @ " + o.Price.String()
	}
	return s
}

func (o *jobOrder) outcome() string {
	switch {
	case o.refused != nil:
		return "refused: " + o.refused.Error()
	case o.unknown != nil:
		return "outcome unknown (resolved by client order id on the next sync): " + o.unknown.Error()
	case o.status == "":
		return "sent"
	}
	s := string(o.status)
	if o.executed.IsPositive() {
		s += fmt.Sprintf(", executed %s for %s", o.executed, o.quote)
	}
	switch o.fills {
	case 0:
	case 1:
		s += ", 1 fill"
	default:
		s += fmt.Sprintf(", %d fills", o.fills)
	}
	return s
}

// jobPort is the trading port, remembering the wallet calls a job makes
// (dust listings and conversions) for its report.
type jobPort struct {
	exchange.Trader
	token string // what dust converts into, when known, for the report
	lines []string
}

// DustCandidates lists dust, noting a failure (the dust strategy logs it
// and keeps its schedule, so the report must say it).
func (p *jobPort) DustCandidates(ctx context.Context) ([]exchange.DustCandidate, error) {
	c, err := p.Trader.DustCandidates(ctx)
	if err != nil {
		p.lines = append(p.lines, "dust candidates: "+err.Error())
		return nil, err
	}
	var none []string
	for _, d := range c {
		if d.Code != "" || d.Message != "" {
			none = append(none, d.Asset+" ("+d.Message+")")
		}
	}
	if len(none) > 0 {
		p.lines = append(p.lines, "not convertible: "+strings.Join(none, ", "))
	}
	return c, nil
}

// ConvertDust converts dust, noting the outcome.
func (p *jobPort) ConvertDust(ctx context.Context, assets []string) (exchange.DustResult, error) {
	res, err := p.Trader.ConvertDust(ctx, assets)
	if err != nil {
		p.lines = append(p.lines, fmt.Sprintf("conversion of %s failed: %v", strings.Join(assets, ", "), err))
		return res, err
	}
	if len(res.SuccessList) > 0 {
		into := fmt.Sprintf("%s %s (fee %s %s)", res.TotalConvert, p.token, res.ConvertFee, p.token)
		if p.token == "" {
			into = fmt.Sprintf("%s of the platform token (fee %s)", res.TotalConvert, res.ConvertFee)
		}
		p.lines = append(p.lines, fmt.Sprintf("converted %s into %s", strings.Join(res.SuccessList, ", "), into))
	}
	for _, f := range res.FailedList {
		p.lines = append(p.lines, fmt.Sprintf("not converted %s: %s", f.Asset, f.Message))
	}
	return res, nil
}

func (p *jobPort) print(w io.Writer) {
	for _, l := range p.lines {
		fmt.Fprintln(w, l)
	}
}
