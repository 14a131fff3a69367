package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// IntentState is where an order stands between the decision to place it
// and the exchange's last word on it. It only moves forward:
//
//	recorded → sent → unknown → acknowledged → final
//	        ↘        ↘        ↘ refused
//
// A state may be skipped (an acknowledgement moves a recorded intent
// straight to acknowledged). refused and final are terminal, except that
// an exchange report of the order's state (RecordOrder) overrides a
// refusal, because the exchange is the authority on whether an order
// exists.
type IntentState string

// Intent states.
const (
	// IntentRecorded: written before the request is sent.
	IntentRecorded IntentState = "recorded"
	// IntentSent: the request is on its way (optional; see RecordSent).
	IntentSent IntentState = "sent"
	// IntentUnknown: the request ended in a 5XX, a timeout or a lost
	// connection; the order may or may not exist. Resolve it by querying
	// the client order id, never by sending it again.
	IntentUnknown IntentState = "unknown"
	// IntentAcknowledged: the exchange accepted the order.
	IntentAcknowledged IntentState = "acknowledged"
	// IntentRefused: the order was never placed (refused by the exchange,
	// or proven unknown to it).
	IntentRefused IntentState = "refused"
	// IntentFinal: the order reached a final status (FILLED, CANCELED,
	// PARTIALLY_CANCELED).
	IntentFinal IntentState = "final"
)

// Order is an order as the store knows it.
type Order struct {
	ClientOrderID string
	OrderID       string // empty until acknowledged
	Instance      string
	Symbol        string
	Side          exchange.Side
	Type          exchange.OrderType
	Price         decimal.Decimal
	Quantity      decimal.Decimal
	QuoteQuantity decimal.Decimal
	STPMode       exchange.STPMode
	Status        exchange.OrderStatus // empty until acknowledged
	ExecutedQty   decimal.Decimal
	CumQuoteQty   decimal.Decimal
	CancelReason  string
	Intent        IntentState
	Error         string // why it was refused or its outcome is unknown
	Created       time.Time
	Updated       time.Time
	// ExitReason is why the runtime placed the order itself (an exit:
	// stop_loss, take_profit, ...); empty for a strategy's own order.
	ExitReason string
}

// RecordIntent records an order before it is sent (strategy.Journal).
// created is false, and nothing changes, when an intent with this client
// order id already exists.
func (s *Store) RecordIntent(ctx context.Context, in strategy.Intent) (created bool, err error) {
	o := in.Order
	switch {
	case in.ClientOrderID == "":
		return false, errors.New("store: intent without a client order id")
	case o.NewClientOrderID != "" && o.NewClientOrderID != in.ClientOrderID:
		return false, fmt.Errorf("store: intent %s carries an order with client id %s", in.ClientOrderID, o.NewClientOrderID)
	case in.Instance == "":
		return false, fmt.Errorf("store: intent %s without an instance", in.ClientOrderID)
	case o.Symbol == "":
		return false, fmt.Errorf("store: intent %s without a symbol", in.ClientOrderID)
	case !o.Side.Valid():
		return false, fmt.Errorf("store: intent %s: side %q is not BUY or SELL", in.ClientOrderID, o.Side)
	case !o.Type.Valid():
		return false, fmt.Errorf("store: intent %s: unknown order type %q", in.ClientOrderID, o.Type)
	}
	at := millis(in.At)
	res, err := s.exec(ctx, `INSERT INTO orders (client_order_id, instance, symbol, side, type, price, quantity,
		quote_quantity, stp_mode, intent, created_ms, updated_ms, exit_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'recorded', ?, ?, ?)
		ON CONFLICT (client_order_id) DO NOTHING`,
		in.ClientOrderID, in.Instance, o.Symbol, string(o.Side), string(o.Type), decText(o.Price), decText(o.Quantity),
		decText(o.QuoteOrderQty), string(o.STPMode), at, at, in.Reason)
	if err != nil {
		return false, fmt.Errorf("store: recording intent %s: %w", in.ClientOrderID, classify(err))
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// RecordSent marks a recorded intent as sent. It is optional: a runtime
// that skips it goes from recorded to acknowledged or unknown directly.
func (s *Store) RecordSent(ctx context.Context, clientOrderID string) error {
	return s.moveIntent(ctx, clientOrderID, "sent", `intent = 'sent'`, []IntentState{IntentRecorded}, nil)
}

// RecordAck records the exchange's acceptance of an order
// (strategy.Journal): its order id, status NEW if it had none, and intent
// acknowledged unless the order is already further along.
func (s *Store) RecordAck(ctx context.Context, clientOrderID, orderID string, at time.Time) error {
	if orderID == "" {
		return fmt.Errorf("store: acknowledgement of %s without an order id", clientOrderID)
	}
	res, err := s.exec(ctx, `UPDATE orders SET
		order_id = CASE WHEN order_id = '' THEN ?1 ELSE order_id END,
		status = CASE WHEN status = '' THEN 'NEW' ELSE status END,
		intent = CASE WHEN intent IN ('recorded', 'sent', 'unknown', 'refused') THEN 'acknowledged' ELSE intent END,
		error = CASE WHEN intent IN ('unknown', 'refused') THEN '' ELSE error END,
		updated_ms = MAX(updated_ms, ?2)
		WHERE client_order_id = ?3`, orderID, millis(at), clientOrderID)
	if err != nil {
		return fmt.Errorf("store: recording acknowledgement of %s: %w", clientOrderID, classify(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: acknowledgement of %s: no intent recorded with this client order id", clientOrderID)
	}
	return nil
}

// RecordUnknown records that the outcome of sending an order is unknown
// (strategy.Journal). An intent already acknowledged, refused or final is
// left as it is.
func (s *Store) RecordUnknown(ctx context.Context, clientOrderID string, cause error) error {
	return s.moveIntent(ctx, clientOrderID, "unknown outcome", `intent = 'unknown', error = ?`,
		[]IntentState{IntentRecorded, IntentSent}, []any{errText(cause)})
}

// RecordRefused records that an order was never placed
// (strategy.Journal). Refusing an order the exchange acknowledged is an
// error; refusing it twice changes nothing.
func (s *Store) RecordRefused(ctx context.Context, clientOrderID string, cause error) error {
	return s.moveIntent(ctx, clientOrderID, "refusal", `intent = 'refused', error = ?`,
		[]IntentState{IntentRecorded, IntentSent, IntentUnknown}, []any{errText(cause)})
}

// moveIntent applies set to an order whose intent is one of from. An order
// in another state is left alone; that is an error only when the order is
// missing, or when a refusal meets an acknowledged or final order.
func (s *Store) moveIntent(ctx context.Context, cid, what, set string, from []IntentState, args []any) error {
	q := `UPDATE orders SET ` + set + `, updated_ms = MAX(updated_ms, ?) WHERE client_order_id = ? AND intent IN (`
	args = append(args, s.clock.Now().UnixMilli(), cid)
	for i, st := range from {
		if i > 0 {
			q += ", "
		}
		q += "?"
		args = append(args, string(st))
	}
	res, err := s.exec(ctx, q+")", args...)
	if err != nil {
		return fmt.Errorf("store: recording %s of %s: %w", what, cid, classify(err))
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var cur IntentState
	err = s.w.QueryRowContext(ctx, `SELECT intent FROM orders WHERE client_order_id = ?`, cid).Scan(&cur)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("store: %s of %s: no intent recorded with this client order id", what, cid)
	case err != nil:
		return fmt.Errorf("store: recording %s of %s: %w", what, cid, classify(err))
	case what == "refusal" && (cur == IntentAcknowledged || cur == IntentFinal):
		return fmt.Errorf("store: refusal of %s: the exchange acknowledged this order (intent %s)", cid, cur)
	}
	return nil
}

// RecordOrder records an order's state as the exchange reports it
// (strategy.Journal). Status only moves forward (a late NEW never
// overwrites PARTIALLY_FILLED, nothing overwrites a final status), and
// executed and cumulative quote quantities never decrease. An order the
// store has no intent for (placed by another tool) is added.
func (s *Store) RecordOrder(ctx context.Context, instance string, o exchange.Order) error {
	if o.Status.Rank() == 0 {
		return fmt.Errorf("store: order %s/%s: unknown status %q", o.Symbol, o.ClientOrderID, o.Status)
	}
	if o.Symbol == "" {
		return fmt.Errorf("store: order %s without a symbol", o.ClientOrderID)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		cur, found, err := findOrder(ctx, tx, o)
		if err != nil {
			return err
		}
		if !found {
			return insertReported(ctx, tx, instance, o)
		}
		next := cur
		if o.Status.Rank() > cur.Status.Rank() {
			next.Status = o.Status
		}
		if cur.OrderID == "" {
			next.OrderID = o.OrderID
		}
		next.ExecutedQty = decimal.Max(cur.ExecutedQty, o.ExecutedQty)
		next.CumQuoteQty = decimal.Max(cur.CumQuoteQty, o.CummulativeQuoteQty)
		if o.CancelReason != "" && cur.CancelReason == "" {
			next.CancelReason = o.CancelReason
		}
		switch {
		case next.Status.Final():
			next.Intent = IntentFinal
		case next.Intent != IntentFinal:
			next.Intent = IntentAcknowledged
		}
		upd := max(millis(o.UpdateTime), millis(cur.Updated))
		_, err = tx.ExecContext(ctx, `UPDATE orders SET order_id = ?, status = ?, executed_qty = ?, cum_quote_qty = ?,
			cancel_reason = ?, intent = ?, updated_ms = ? WHERE client_order_id = ?`,
			next.OrderID, string(next.Status), decText(next.ExecutedQty), decText(next.CumQuoteQty), next.CancelReason,
			string(next.Intent), upd, cur.ClientOrderID)
		return err
	})
}

// findOrder finds the stored order a report is about: by client order id,
// by original client order id (cancel replies), then by exchange order id.
func findOrder(ctx context.Context, tx *sql.Tx, o exchange.Order) (Order, bool, error) {
	type lookup struct {
		where string
		args  []any
	}
	var tries []lookup
	if o.ClientOrderID != "" {
		tries = append(tries, lookup{`client_order_id = ?`, []any{o.ClientOrderID}})
	}
	if o.OrigClientOrderID != "" {
		tries = append(tries, lookup{`client_order_id = ?`, []any{o.OrigClientOrderID}})
	}
	if o.OrderID != "" {
		tries = append(tries, lookup{`symbol = ? AND order_id = ?`, []any{o.Symbol, o.OrderID}})
	}
	for _, l := range tries {
		rows, err := tx.QueryContext(ctx, `SELECT `+orderColumns+` FROM orders WHERE `+l.where, l.args...)
		if err != nil {
			return Order{}, false, err
		}
		got, err := scanOrders(rows)
		if err != nil {
			return Order{}, false, err
		}
		if len(got) > 0 {
			return got[0], true, nil
		}
	}
	return Order{}, false, nil
}

func insertReported(ctx context.Context, tx *sql.Tx, instance string, o exchange.Order) error {
	cid := o.ClientOrderID
	if cid == "" {
		cid = o.OrigClientOrderID
	}
	if cid == "" {
		return fmt.Errorf("order %s/%s has no client order id", o.Symbol, o.OrderID)
	}
	intent := IntentAcknowledged
	if o.Status.Final() {
		intent = IntentFinal
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO orders (client_order_id, order_id, instance, symbol, side, type, price,
		quantity, quote_quantity, stp_mode, status, executed_qty, cum_quote_qty, cancel_reason, intent, created_ms, updated_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		cid, o.OrderID, instance, o.Symbol, string(o.Side), string(o.Type), decText(o.Price), decText(o.OrigQty),
		decText(o.OrigQuoteOrderQty), string(o.STPMode), string(o.Status), decText(o.ExecutedQty),
		decText(o.CummulativeQuoteQty), o.CancelReason, string(intent), millis(o.Time), max(millis(o.UpdateTime), millis(o.Time)))
	return err
}

const orderColumns = `client_order_id, order_id, instance, symbol, side, type, price, quantity, quote_quantity, stp_mode,
	status, executed_qty, cum_quote_qty, cancel_reason, intent, error, created_ms, updated_ms, exit_reason`

func scanOrders(rows *sql.Rows) ([]Order, error) {
	defer rows.Close()
	var out []Order
	for rows.Next() {
		var o Order
		var side, typ, stp, status, intent string
		var price, qty, quote, exec, cum string
		var created, updated int64
		if err := rows.Scan(&o.ClientOrderID, &o.OrderID, &o.Instance, &o.Symbol, &side, &typ, &price, &qty, &quote, &stp,
			&status, &exec, &cum, &o.CancelReason, &intent, &o.Error, &created, &updated, &o.ExitReason); err != nil {
			return nil, err
		}
		o.Side, o.Type, o.STPMode, o.Status, o.Intent = exchange.Side(side), exchange.OrderType(typ), exchange.STPMode(stp), exchange.OrderStatus(status), IntentState(intent)
		o.Created, o.Updated = fromMillis(created), fromMillis(updated)
		var err error
		for _, f := range []struct {
			dst  *decimal.Decimal
			text string
			name string
		}{{&o.Price, price, "price"}, {&o.Quantity, qty, "quantity"}, {&o.QuoteQuantity, quote, "quote_quantity"},
			{&o.ExecutedQty, exec, "executed_qty"}, {&o.CumQuoteQty, cum, "cum_quote_qty"}} {
			if *f.dst, err = parseDec(f.text, "orders", f.name, o.ClientOrderID); err != nil {
				return nil, err
			}
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// Order returns the order with a client order id.
func (s *Store) Order(ctx context.Context, clientOrderID string) (Order, bool, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+orderColumns+` FROM orders WHERE client_order_id = ?`, clientOrderID)
	if err != nil {
		return Order{}, false, classify(err)
	}
	got, err := scanOrders(rows)
	if err != nil || len(got) == 0 {
		return Order{}, false, classify(err)
	}
	return got[0], true, nil
}

// OpenOrders returns the orders not yet final or refused (those the
// reconciler must look at), oldest first. An empty instance means all.
func (s *Store) OpenOrders(ctx context.Context, instance string) ([]Order, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+orderColumns+` FROM orders
		WHERE intent NOT IN ('refused', 'final') AND (?1 = '' OR instance = ?1)
		ORDER BY created_ms, client_order_id`, instance)
	if err != nil {
		return nil, classify(err)
	}
	out, err := scanOrders(rows)
	return out, classify(err)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
