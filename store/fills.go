package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Fill is one recorded execution of an order.
type Fill struct {
	Symbol          string
	TradeID         string
	OrderID         string
	ClientOrderID   string
	Instance        string
	Side            exchange.Side
	Price           decimal.Decimal
	Qty             decimal.Decimal
	QuoteQty        decimal.Decimal
	Commission      decimal.Decimal
	CommissionAsset string
	Maker           bool
	SelfTrade       bool
	Time            time.Time
}

// RecordFill records a fill (strategy.Journal); inserted is false, and
// nothing changes, when a fill with this symbol and trade id exists.
func (s *Store) RecordFill(ctx context.Context, instance, clientOrderID string, t exchange.OwnTrade) (inserted bool, err error) {
	if t.Symbol == "" || t.ID == "" {
		return false, fmt.Errorf("store: fill of %s without a symbol or trade id", clientOrderID)
	}
	if clientOrderID == "" {
		clientOrderID = t.ClientOrderID
	}
	side := exchange.SideSell
	if t.IsBuyer {
		side = exchange.SideBuy
	}
	res, err := s.exec(ctx, `INSERT INTO fills (symbol, trade_id, order_id, client_order_id, instance, side, price,
		qty, quote_qty, commission, commission_asset, maker, self_trade, time_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (symbol, trade_id) DO NOTHING`,
		t.Symbol, t.ID, t.OrderID, clientOrderID, instance, string(side), decText(t.Price), decText(t.Qty),
		decText(t.QuoteQty), decText(t.Commission), t.CommissionAsset, t.IsMaker, t.IsSelfTrade, millis(t.Time))
	if err != nil {
		return false, fmt.Errorf("store: recording fill %s/%s: %w", t.Symbol, t.ID, classify(err))
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

const fillColumns = `symbol, trade_id, order_id, client_order_id, instance, side, price, qty, quote_qty, commission,
	commission_asset, maker, self_trade, time_ms`

func (s *Store) fills(ctx context.Context, where string, args ...any) ([]Fill, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+fillColumns+` FROM fills WHERE `+where+` ORDER BY time_ms, symbol, trade_id`, args...)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []Fill
	for rows.Next() {
		var f Fill
		var side, price, qty, quote, comm string
		var ms int64
		if err := rows.Scan(&f.Symbol, &f.TradeID, &f.OrderID, &f.ClientOrderID, &f.Instance, &side, &price, &qty, &quote,
			&comm, &f.CommissionAsset, &f.Maker, &f.SelfTrade, &ms); err != nil {
			return nil, classify(err)
		}
		f.Side, f.Time = exchange.Side(side), fromMillis(ms)
		row := f.Symbol + "/" + f.TradeID
		for _, d := range []struct {
			dst        *decimal.Decimal
			text, name string
		}{{&f.Price, price, "price"}, {&f.Qty, qty, "qty"}, {&f.QuoteQty, quote, "quote_qty"}, {&f.Commission, comm, "commission"}} {
			if *d.dst, err = parseDec(d.text, "fills", d.name, row); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	return out, classify(rows.Err())
}

// FillsSince returns the fills at or after since, oldest first.
func (s *Store) FillsSince(ctx context.Context, since time.Time) ([]Fill, error) {
	return s.fills(ctx, `time_ms >= ?`, millis(since))
}

// FillsByOrder returns the fills of an order, by client order id, oldest
// first.
func (s *Store) FillsByOrder(ctx context.Context, clientOrderID string) ([]Fill, error) {
	return s.fills(ctx, `client_order_id = ?`, clientOrderID)
}

// Position is what an instance's fills of one symbol add up to.
type Position struct {
	Instance  string
	Symbol    string
	Qty       decimal.Decimal // bought minus sold, in the base asset, before commissions
	BuyQty    decimal.Decimal
	SellQty   decimal.Decimal
	BuyQuote  decimal.Decimal // quote spent
	SellQuote decimal.Decimal // quote received
	// Commissions by asset. A commission paid in the base asset reduces
	// what is held below Qty; the store does not know which asset is the
	// base, so it reports them apart.
	Commissions map[string]decimal.Decimal
	Fills       int
}

// Positions derives positions from the fills of an instance (all instances
// when instance is empty), sorted by instance and symbol.
func (s *Store) Positions(ctx context.Context, instance string) ([]Position, error) {
	fs, err := s.fills(ctx, `?1 = '' OR instance = ?1`, instance)
	if err != nil {
		return nil, err
	}
	type key struct{ inst, sym string }
	byKey := map[key]*Position{}
	for _, f := range fs {
		k := key{f.Instance, f.Symbol}
		p := byKey[k]
		if p == nil {
			p = &Position{Instance: f.Instance, Symbol: f.Symbol, Commissions: map[string]decimal.Decimal{}}
			byKey[k] = p
		}
		p.Fills++
		if f.Side == exchange.SideBuy {
			p.BuyQty = p.BuyQty.Add(f.Qty)
			p.BuyQuote = p.BuyQuote.Add(f.QuoteQty)
		} else {
			p.SellQty = p.SellQty.Add(f.Qty)
			p.SellQuote = p.SellQuote.Add(f.QuoteQty)
		}
		if !f.Commission.IsZero() {
			p.Commissions[f.CommissionAsset] = p.Commissions[f.CommissionAsset].Add(f.Commission)
		}
	}
	out := make([]Position, 0, len(byKey))
	for _, p := range byKey {
		p.Qty = p.BuyQty.Sub(p.SellQty)
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Instance != out[j].Instance {
			return out[i].Instance < out[j].Instance
		}
		return out[i].Symbol < out[j].Symbol
	})
	return out, nil
}
