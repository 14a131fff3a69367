package store

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

func trade(id, sym string, buyer bool, qty, price, quote, comm, asset string, at time.Time) exchange.OwnTrade {
	return exchange.OwnTrade{Symbol: sym, ID: id, OrderID: "o-" + id, Price: dec(price), Qty: dec(qty), QuoteQty: dec(quote),
		Commission: dec(comm), CommissionAsset: asset, Time: at, IsBuyer: buyer, IsMaker: !buyer, IsSelfTrade: id == "3"}
}

func TestFillsAndPositions(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	fills := []struct {
		inst, cid string
		tr        exchange.OwnTrade
	}{
		{"grid-1", "c1", trade("1", "BTCUSDT", true, "0.010", "40000.00", "400.0000", "0.00001", "BTC", t0)},
		{"grid-1", "c1", trade("2", "BTCUSDT", true, "0.005", "40100.00", "200.5000", "0.000005", "BTC", t0.Add(time.Minute))},
		{"grid-1", "c2", trade("3", "BTCUSDT", false, "0.012", "41000.00", "492.0000", "0.492", "USDT", t0.Add(time.Hour))},
		{"dca", "d1", trade("1", "ETHUSDT", true, "1.5", "2000", "3000", "0", "ETH", t0.Add(2*time.Hour))},
	}
	for _, f := range fills {
		ins, err := s.RecordFill(ctx, f.inst, f.cid, f.tr)
		if err != nil || !ins {
			t.Fatalf("fill %s: %v %v", f.tr.ID, ins, err)
		}
	}
	// The same fill again changes nothing.
	dup := fills[0].tr
	dup.Qty = dec("99")
	if ins, err := s.RecordFill(ctx, "grid-1", "c1", dup); err != nil || ins {
		t.Fatalf("duplicate fill: %v %v", ins, err)
	}
	byOrder, err := s.FillsByOrder(ctx, "c1")
	if err != nil || len(byOrder) != 2 {
		t.Fatalf("fills of c1: %d, %v", len(byOrder), err)
	}
	f := byOrder[0]
	if f.TradeID != "1" || f.OrderID != "o-1" || f.Instance != "grid-1" || f.Side != exchange.SideBuy || f.Qty.String() != "0.01" ||
		f.Qty.Exponent() != -3 || f.Price.String() != "40000" || f.QuoteQty.String() != "400" || f.Commission.String() != "0.00001" ||
		f.CommissionAsset != "BTC" || f.Maker || f.SelfTrade || !f.Time.Equal(t0) {
		t.Fatalf("fill = %+v", f)
	}
	since, err := s.FillsSince(ctx, t0.Add(time.Hour))
	if err != nil || len(since) != 2 || since[0].TradeID != "3" || !since[0].SelfTrade || since[0].Side != exchange.SideSell || since[1].Symbol != "ETHUSDT" {
		t.Fatalf("fills since: %+v, %v", since, err)
	}
	pos, err := s.Positions(ctx, "")
	if err != nil || len(pos) != 2 {
		t.Fatalf("positions: %+v, %v", pos, err)
	}
	if p := pos[0]; p.Instance != "dca" || p.Symbol != "ETHUSDT" || p.Qty.String() != "1.5" || p.Fills != 1 || len(p.Commissions) != 0 {
		t.Errorf("dca position = %+v", p)
	}
	p := pos[1]
	if p.Instance != "grid-1" || p.Symbol != "BTCUSDT" || p.Qty.String() != "0.003" || p.BuyQty.String() != "0.015" ||
		p.SellQty.String() != "0.012" || p.BuyQuote.String() != "600.5" || p.SellQuote.String() != "492" || p.Fills != 3 ||
		p.Commissions["BTC"].String() != "0.000015" || p.Commissions["USDT"].String() != "0.492" || len(p.Commissions) != 2 {
		t.Errorf("grid position = %+v", p)
	}
	only, _ := s.Positions(ctx, "dca")
	if len(only) != 1 || only[0].Instance != "dca" {
		t.Errorf("positions of dca = %+v", only)
	}
	if _, err := s.RecordFill(ctx, "x", "y", exchange.OwnTrade{Symbol: "BTCUSDT"}); err == nil || err.Error() != "store: fill of y without a symbol or trade id" {
		t.Errorf("fill without id: %v", err)
	}
}

// TestDecimalRoundTrip stores decimals with 30 significant digits and with
// trailing zeros and reads them back equal, scale included.
func TestDecimalRoundTrip(t *testing.T) {
	t.Parallel()
	values := []string{
		"123456789012345.678901234567890", // 30 significant digits
		"0.000000000000123456789012345678901234567890",
		"-98765432109876543210.9876543210",
		"16713.080000",
		"1.000000000000000000000000000000",
		"100",
		"0",
		"0.00",
	}
	s := memStore(t)
	ctx := t.Context()
	for i, v := range values {
		tr := trade(string(rune('a'+i)), "BTCUSDT", true, v, v, v, v, "BTC", t0)
		if _, err := s.RecordFill(ctx, "i", "c", tr); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := s.FillsByOrder(ctx, "c")
	if err != nil || len(fs) != len(values) {
		t.Fatalf("%d fills, %v", len(fs), err)
	}
	for i, f := range fs {
		want := dec(values[i])
		for name, got := range map[string]decimal.Decimal{"price": f.Price, "qty": f.Qty, "quote": f.QuoteQty, "commission": f.Commission} {
			if !got.Equal(want) || got.Exponent() != want.Exponent() || decText(got) != values[i] {
				t.Errorf("%s %s read back as %s (exponent %d, want %d)", name, values[i], decText(got), got.Exponent(), want.Exponent())
			}
		}
	}
}
