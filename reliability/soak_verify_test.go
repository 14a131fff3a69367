package reliability

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	_ "github.com/spotbot/spotbot/store" // the sqlite driver, and the schema read below
)

// soakFigures is what a check counted.
type soakFigures struct {
	Intents   int            // store orders (one per intent)
	ExOrders  int            // orders on the exchange
	Trades    int            // trades on the exchange (= fills in the store)
	ByIntent  map[string]int // store orders by intent state
	NeverSent int            // store orders refused and unknown to the exchange
	// Lost is the never-sent orders whose send had an unknown outcome and
	// whose query then found no such order (-2011): a 5XX before acting.
	Lost       int
	Unresolved int // store orders still recorded, sent or unknown
	// ByInstance counts each instance's intents and FILLED orders.
	ByInstance map[string][2]int
}

// soakStoreOrder is one row of the store's orders table.
type soakStoreOrder struct {
	cid, orderID, instance, symbol, status, intent, errText string
	executed, cumQuote                                      decimal.Decimal
}

// soakStoreFill is one row of the store's fills table.
type soakStoreFill struct {
	symbol, tradeID, orderID, cid, side, commissionAsset string
	price, qty, quoteQty, commission                     decimal.Decimal
	timeMs                                               int64
}

// soakVerify compares the store at dbPath with the exchange and returns
// the problems found (none is success). Always: no client order id twice
// on the exchange; every exchange order in the store under its client id
// (so no intent has two exchange orders); every store order with an
// exchange id known to the exchange; every store fill an exchange trade of
// the same order with the same price, quantity and fee, and no fill twice.
// When exact (after a sync with nothing in flight and the exchange still):
// every exchange order's status and quantities in the store, every
// exchange trade in the store, no intent left unresolved, and the
// balances derived from the store (the starting balances plus every fill)
// equal to the exchange's, asset by asset.
func soakVerify(ctx context.Context, ex *soakExchange, dbPath string, exact bool) (soakFigures, []string) {
	var probs []string
	fail := func(format string, args ...any) {
		if len(probs) < 20 {
			probs = append(probs, fmt.Sprintf(format, args...))
		}
	}
	fig := soakFigures{ByIntent: map[string]int{}, ByInstance: map[string][2]int{}}
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return fig, []string{err.Error()}
	}
	defer db.Close()
	orders, fills, err := soakReadStore(ctx, db)
	if err != nil {
		return fig, []string{err.Error()}
	}
	fig.Intents = len(orders)
	for _, o := range orders {
		fig.ByIntent[o.intent]++
		n := fig.ByInstance[o.instance]
		n[0]++
		if o.status == string(exchange.StatusFilled) {
			n[1]++
		}
		fig.ByInstance[o.instance] = n
	}

	master := ex.x.Master()
	exOrders := map[string]exchange.Order{} // by client id
	byID := map[string]exchange.Order{}     // by exchange id
	for _, sym := range ex.syms {
		os, err := soakAllOrders(ctx, ex, sym, soakStart, ex.x.Now())
		if err != nil {
			return fig, []string{err.Error()}
		}
		for _, o := range os {
			if prev, dup := exOrders[o.ClientOrderID]; dup {
				fail("client order id %s placed twice: exchange orders %s and %s", o.ClientOrderID, prev.OrderID, o.OrderID)
			}
			exOrders[o.ClientOrderID] = o
			byID[o.OrderID] = o
		}
	}
	fig.ExOrders = len(exOrders)

	for cid, eo := range exOrders {
		so, ok := orders[cid]
		switch {
		case !ok:
			fail("exchange order %s (%s %s, %s) is not in the store", cid, eo.Symbol, eo.OrderID, eo.Status)
			continue
		case so.orderID != "" && so.orderID != eo.OrderID:
			fail("order %s: store has exchange id %s, the exchange %s", cid, so.orderID, eo.OrderID)
		case so.intent == "refused":
			fail("order %s is refused in the store but exists on the exchange (%s)", cid, eo.Status)
		}
		if exact && (so.orderID != eo.OrderID || so.status != string(eo.Status) || !so.executed.Equal(eo.ExecutedQty) ||
			!so.cumQuote.Equal(eo.CummulativeQuoteQty) || so.symbol != eo.Symbol) {
			fail("order %s: store {id %s %s executed %s quote %s intent %s}, exchange {id %s %s executed %s quote %s}", cid,
				so.orderID, so.status, so.executed, so.cumQuote, so.intent, eo.OrderID, eo.Status, eo.ExecutedQty, eo.CummulativeQuoteQty)
		}
	}
	for cid, so := range orders {
		if _, ok := exOrders[cid]; ok {
			continue
		}
		switch {
		case so.orderID != "":
			fail("store order %s has exchange id %s the exchange does not know", cid, so.orderID)
		case so.intent == "refused":
			fig.NeverSent++
			if strings.Contains(so.errText, "-2011") {
				fig.Lost++
			}
		case exact:
			fail("store order %s is %s and unknown to the exchange: never resolved", cid, so.intent)
		}
		if so.intent == "recorded" || so.intent == "sent" || so.intent == "unknown" {
			fig.Unresolved++
		}
	}

	// Fills against trades, order by order.
	stored := map[string]soakStoreFill{} // by symbol and trade id
	for _, f := range fills {
		stored[f.symbol+"/"+f.tradeID] = f
	}
	traded := map[string]bool{}
	for cid, eo := range exOrders {
		if eo.ExecutedQty.IsZero() {
			continue
		}
		trades, err := master.MyTrades(ctx, exchange.MyTradesRequest{Symbol: eo.Symbol, OrderID: eo.OrderID, Limit: 100})
		if err != nil {
			return fig, []string{err.Error()}
		}
		for _, tr := range trades {
			key := tr.Symbol + "/" + tr.ID
			traded[key] = true
			fig.Trades++
			f, ok := stored[key]
			if !ok {
				if exact {
					fail("trade %s of order %s is not in the store", key, cid)
				}
				continue
			}
			if f.orderID != tr.OrderID || f.cid != cid || !f.price.Equal(tr.Price) || !f.qty.Equal(tr.Qty) ||
				!f.quoteQty.Equal(tr.QuoteQty) || !f.commission.Equal(tr.Commission) || f.commissionAsset != tr.CommissionAsset ||
				f.timeMs != tr.Time.UnixMilli() {
				fail("fill %s: store %+v, exchange %+v", key, f, tr)
			}
		}
	}
	for key, f := range stored {
		if !traded[key] {
			fail("store fill %s (order %s) is no trade of the exchange", key, f.cid)
		}
	}
	if !exact {
		return fig, probs
	}

	// Balances: the starting ones plus every fill of the store.
	derived := map[string]decimal.Decimal{}
	for a, v := range soakBalances {
		derived[a] = dec(v)
	}
	for _, f := range fills {
		info := ex.rules[f.symbol]
		base, quote := f.qty, f.quoteQty
		if f.side == "SELL" {
			base, quote = base.Neg(), quote.Neg()
		}
		derived[info.BaseAsset] = derived[info.BaseAsset].Add(base)
		derived[info.QuoteAsset] = derived[info.QuoteAsset].Sub(quote)
		derived[f.commissionAsset] = derived[f.commissionAsset].Sub(f.commission)
	}
	acct, err := master.Account(ctx)
	if err != nil {
		return fig, append(probs, err.Error())
	}
	held := map[string]decimal.Decimal{}
	for _, b := range acct.Balances {
		held[b.Asset] = b.Free.Add(b.Locked)
	}
	var assets []string
	for a := range derived {
		assets = append(assets, a)
	}
	for a := range held {
		if _, ok := derived[a]; !ok {
			assets = append(assets, a)
		}
	}
	sort.Strings(assets)
	for _, a := range assets {
		if !derived[a].Equal(held[a]) {
			fail("balance %s: derived from the store %s, exchange %s", a, derived[a], held[a])
		}
	}
	return fig, probs
}

// soakGridFollowUps checks that no grid placed more than one order per
// fill: each grid's intents are at most the levels its starts laid
// (levels-1 per start) plus its filled orders. A runtime that sent an
// order again after an unknown outcome, or delivered a fill twice, breaks
// this by hundreds.
func soakGridFollowUps(fig soakFigures, starts, levels int) []string {
	var probs []string
	for _, g := range soakGrids {
		id := "grid-" + strings.ToLower(g.symbol[:2])
		n := fig.ByInstance[id]
		if n[0] == 0 || n[0] > starts*(levels-1)+n[1] {
			probs = append(probs, fmt.Sprintf("grid %s: %d intents for %d starts of %d levels and %d filled orders", id, n[0], starts, levels, n[1]))
		}
	}
	return probs
}

// soakReadStore reads every order and fill of the store.
func soakReadStore(ctx context.Context, db *sql.DB) (map[string]soakStoreOrder, []soakStoreFill, error) {
	rows, err := db.QueryContext(ctx, `SELECT client_order_id, order_id, instance, symbol, status, intent, error,
		executed_qty, cum_quote_qty FROM orders`)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the store's orders: %w", err)
	}
	orders := map[string]soakStoreOrder{}
	for rows.Next() {
		var o soakStoreOrder
		var ex, cq string
		if err := rows.Scan(&o.cid, &o.orderID, &o.instance, &o.symbol, &o.status, &o.intent, &o.errText, &ex, &cq); err != nil {
			rows.Close()
			return nil, nil, err
		}
		o.executed, o.cumQuote = dec(ex), dec(cq)
		orders[o.cid] = o
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows, err = db.QueryContext(ctx, `SELECT symbol, trade_id, order_id, client_order_id, side, commission_asset,
		price, qty, quote_qty, commission, time_ms FROM fills`)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the store's fills: %w", err)
	}
	defer rows.Close()
	var fills []soakStoreFill
	for rows.Next() {
		var f soakStoreFill
		var p, q, qq, c string
		if err := rows.Scan(&f.symbol, &f.tradeID, &f.orderID, &f.cid, &f.side, &f.commissionAsset, &p, &q, &qq, &c, &f.timeMs); err != nil {
			return nil, nil, err
		}
		f.price, f.qty, f.quoteQty, f.commission = dec(p), dec(q), dec(qq), dec(c)
		fills = append(fills, f)
	}
	return orders, fills, rows.Err()
}

// soakAllOrders lists every order of a symbol placed in [from, to],
// splitting a window that reaches allOrders' 1,000-order limit.
func soakAllOrders(ctx context.Context, ex *soakExchange, sym string, from, to time.Time) ([]exchange.Order, error) {
	if to.Sub(from) > 24*time.Hour {
		var out []exchange.Order
		for w := from; !w.After(to); w = w.Add(24 * time.Hour) {
			end := w.Add(24*time.Hour - time.Millisecond)
			if end.After(to) {
				end = to
			}
			os, err := soakAllOrders(ctx, ex, sym, w, end)
			if err != nil {
				return nil, err
			}
			out = append(out, os...)
		}
		return out, nil
	}
	os, err := ex.x.Master().AllOrders(ctx, exchange.AllOrdersRequest{Symbol: sym, Start: from, End: to, Limit: 1000})
	if err != nil {
		return nil, fmt.Errorf("allOrders %s %s..%s: %w", sym, from, to, err)
	}
	if len(os) < 1000 {
		return os, nil
	}
	if !to.After(from) {
		return nil, fmt.Errorf("allOrders %s: over 1,000 orders in one millisecond at %s", sym, from)
	}
	mid := from.Add(to.Sub(from) / 2).Truncate(time.Millisecond)
	a, err := soakAllOrders(ctx, ex, sym, from, mid)
	if err != nil {
		return nil, err
	}
	b, err := soakAllOrders(ctx, ex, sym, mid.Add(time.Millisecond), to)
	return append(a, b...), err
}

// soakJoin formats problems for a failure message.
func soakJoin(probs []string) string { return strings.Join(probs, "\n") }
