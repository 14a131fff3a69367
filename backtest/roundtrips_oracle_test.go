package backtest

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// naiveRoundTrips is RoundTrips written the plain way, every amount a
// decimal.Decimal and every operation the decimal package's: the oracle
// TestRoundTripsOracle holds RoundTrips and the driver's folding to.
func naiveRoundTrips(fills []FillRecord) []Trade {
	type open struct {
		t                                                          Trade
		held, cost, proceeds, bought, sold, net, baseFees, extFees decimal.Decimal
	}
	cur := map[[2]string]*open{}
	var out []Trade
	for _, f := range fills {
		k := [2]string{f.Instance, f.Symbol}
		o := cur[k]
		if o == nil {
			if f.Side != exchange.SideBuy {
				continue
			}
			o = &open{t: Trade{Instance: f.Instance, Symbol: f.Symbol, EntryTime: f.Time}}
			cur[k] = o
		}
		o.extFees = o.extFees.Add(f.FeeQuote).Sub(f.FeeInBase.Mul(f.Price))
		if f.Side == exchange.SideBuy {
			o.held = o.held.Add(f.Qty).Sub(f.FeeInBase)
			o.cost = o.cost.Add(f.QuoteQty)
			o.bought = o.bought.Add(f.Qty)
			o.net = o.net.Add(f.Qty).Sub(f.FeeInBase)
			o.baseFees = o.baseFees.Add(f.FeeInBase)
			continue
		}
		o.held = o.held.Sub(f.Qty)
		o.proceeds = o.proceeds.Add(f.QuoteQty)
		o.sold = o.sold.Add(f.Qty)
		if o.held.IsPositive() && o.held.Cmp(f.Step) >= 0 {
			continue
		}
		t := o.t
		t.ExitTime = f.Time
		t.Qty = o.net
		t.EntryPrice = o.cost.Div(o.bought)
		t.Fees = o.extFees.Add(o.baseFees.Mul(t.EntryPrice))
		t.ExitPrice = o.proceeds.Div(o.sold)
		pnl := o.proceeds.Sub(o.cost).Sub(o.extFees)
		t.PnL = pnl
		t.ExitReason = f.Reason
		if t.ExitReason == "" {
			t.ExitReason = strategy.ExitSignal
		}
		t.ReturnPct = pnl.Div(o.cost).InexactFloat64() * 100
		out = append(out, t)
		delete(cur, k)
	}
	return out
}

// tripFills are n random fills of two instances in BTCUSDT and ETHUSDT
// (and a third asset's BNBUSDT) in time order: buys and sells of one to
// four fills a trade, sells of what was held before, prices and amounts
// of the sizes fills have and now and then of 19 to 24 digits (beyond
// the int64 arithmetic), quote amounts of exactly price × quantity or
// rounded, commissions in the base asset, the quote asset, a third asset
// or none, residues below the step, exit reasons. The journal holds them
// with their intents.
func tripFills(r *rand.Rand, n int) ([]Fill, *strategy.MemoryJournal) {
	j := strategy.NewMemoryJournal()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	amount := func(digits int, exp int32) decimal.Decimal {
		if r.Intn(25) == 0 {
			digits, exp = 19+r.Intn(6), exp-int32(r.Intn(8))
		}
		v := new(big.Int).Rand(r, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil))
		return decimal.NewFromBigInt(v.Add(v, big.NewInt(1)), exp)
	}
	insts, syms := []string{"a", "b"}, []string{"BTCUSDT", "ETHUSDT"}
	fills := make([]Fill, 0, n)
	type f0key struct {
		inst int
		sym  string
	}
	held := map[f0key]decimal.Decimal{}
	for i := range n {
		sym := syms[r.Intn(2)]
		base := sym[:3]
		buy := r.Intn(5) < 3
		price := amount(1+r.Intn(9), -int32(r.Intn(9)))
		qty := amount(1+r.Intn(8), -int32(r.Intn(7)))
		k := f0key{i % 2, sym}
		if !buy && held[k].IsPositive() && r.Intn(2) == 0 {
			qty = held[k] // all that is held, or all but a residue below the step
			if r.Intn(3) == 0 {
				qty = qty.Sub(decimal.New(1, -9))
			}
		}
		quote := price.Mul(qty)
		if q := quote.Round(int32(r.Intn(9))); r.Intn(4) == 0 && q.IsPositive() {
			quote = q // a quote amount rounded to its precision
		}
		f := Fill{Instance: insts[i%2], ClientOrderID: fmt.Sprintf("o%d", i), OwnTrade: exchange.OwnTrade{
			Symbol: sym, ID: fmt.Sprint(i), Price: price, Qty: qty, QuoteQty: quote, IsBuyer: buy,
			Time: t0.Add(time.Duration(i) * time.Minute)}}
		switch r.Intn(5) {
		case 0, 1:
			f.CommissionAsset, f.Commission = base, qty.Mul(amount(1+r.Intn(3), -4)).Truncate(8)
		case 2:
			f.CommissionAsset, f.Commission = "USDT", quote.Mul(amount(1, -3)).Round(8)
		case 3:
			f.CommissionAsset, f.Commission = "BNB", amount(1+r.Intn(6), -8)
		}
		if buy {
			held[k] = held[k].Add(qty)
			if f.CommissionAsset == base {
				held[k] = held[k].Sub(f.Commission)
			}
		} else {
			held[k] = held[k].Sub(qty)
		}
		reason := ""
		if !buy && r.Intn(3) == 0 {
			reason = []string{strategy.ExitStopLoss, strategy.ExitTakeProfit}[r.Intn(2)]
		}
		if _, err := j.RecordIntent(context.Background(), strategy.Intent{Instance: f.Instance, ClientOrderID: f.ClientOrderID, Reason: reason}); err != nil {
			panic(err)
		}
		if _, err := j.RecordFill(context.Background(), f.Instance, f.ClientOrderID, f.OwnTrade); err != nil {
			panic(err)
		}
		fills = append(fills, f)
	}
	return fills, j
}

// oracleDriver is a driver with the rules, prices and journal that its
// round trips read.
func oracleDriver(j *strategy.MemoryJournal) *driver {
	rule := func(sym, base string, scale int) exchange.SymbolInfo {
		return exchange.SymbolInfo{Symbol: sym, BaseAsset: base, QuoteAsset: "USDT", BaseAssetPrecision: scale}
	}
	return &driver{symbols: []string{"BNBUSDT", "BTCUSDT", "ETHUSDT"},
		rules:   []exchange.SymbolInfo{rule("BNBUSDT", "BNB", 3), rule("BTCUSDT", "BTC", 5), rule("ETHUSDT", "ETH", 4)},
		last:    []exchange.Fixed{exchange.NewFixed(61234, -2), exchange.NewFixed(6500012, -2), exchange.NewFixed(312345, -2)},
		journal: j}
}

// oracleRecords are the fills as FillRecords, with the fees valued in
// the quote asset by the decimals' own multiplication, and the fees and
// volume summed.
func oracleRecords(d *driver, fills []Fill) (recs []FillRecord, fees, volume decimal.Decimal) {
	for _, f := range fills {
		r := &d.rules[d.rule(f.Symbol)]
		rec := FillRecord{Instance: f.Instance, Symbol: f.Symbol, Side: exchange.SideSell, Price: f.Price, Qty: f.Qty,
			QuoteQty: f.QuoteQty, Time: f.Time, Step: decimal.New(1, -r.QtyScale())}
		if f.IsBuyer {
			rec.Side = exchange.SideBuy
		} else {
			rec.Reason = d.journal.Reason(f.ClientOrderID)
		}
		switch f.CommissionAsset {
		case r.QuoteAsset:
			rec.FeeQuote = f.Commission
		case r.BaseAsset:
			rec.FeeInBase, rec.FeeQuote = f.Commission, f.Commission.Mul(f.Price)
		case "":
		default:
			rec.FeeQuote = f.Commission.Mul(d.price(f.CommissionAsset + r.QuoteAsset))
		}
		fees, volume = fees.Add(rec.FeeQuote), volume.Add(f.QuoteQty)
		recs = append(recs, rec)
	}
	return recs, fees, volume
}

// sameTrades names the first difference between two trade lists: a
// decimal's value (its text) or a float's bits.
func sameTrades(got, want []Trade) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d trades, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := &got[i], &want[i]
		gs := fmt.Sprintf("%s %s %v %v %s %s %s %s %s %s %x", g.Instance, g.Symbol, g.EntryTime, g.ExitTime, g.Qty, g.EntryPrice,
			g.ExitPrice, g.Fees, g.PnL, g.ExitReason, math.Float64bits(g.ReturnPct))
		ws := fmt.Sprintf("%s %s %v %v %s %s %s %s %s %s %x", w.Instance, w.Symbol, w.EntryTime, w.ExitTime, w.Qty, w.EntryPrice,
			w.ExitPrice, w.Fees, w.PnL, w.ExitReason, math.Float64bits(w.ReturnPct))
		if gs != ws {
			return fmt.Errorf("trade %d:\n got %s\nwant %s", i, gs, ws)
		}
	}
	return nil
}

// TestRoundTripsOracle holds RoundTrips (over FillRecords) and the
// driver's folding straight from the fills (fees paid in base not valued
// into a decimal, prices handed out shared) to naiveRoundTrips over
// random fills, and the driver's fee and volume totals to the decimals'
// sums: every value the same, every float the same bits.
func TestRoundTripsOracle(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(5))
	trades := 0
	for k := range 300 {
		fills, j := tripFills(r, 1+r.Intn(60))
		d := oracleDriver(j)
		recs, fees, volume := oracleRecords(d, fills)
		want := naiveRoundTrips(recs)
		trades += len(want)
		if err := sameTrades(RoundTrips(recs), want); err != nil {
			t.Fatalf("set %d, RoundTrips: %v", k, err)
		}
		got, gotFees, gotVolume := d.roundTrips(fillsOf(randomBlocks(r, fills)))
		if err := sameTrades(got, want); err != nil {
			t.Fatalf("set %d, the driver's: %v", k, err)
		}
		if gotFees.String() != fees.String() || gotVolume.String() != volume.String() {
			t.Fatalf("set %d: fees %s volume %s, want %s and %s", k, gotFees, gotVolume, fees, volume)
		}
	}
	if trades < 1000 {
		t.Fatalf("only %d trades: the fills should close more", trades)
	}
}
