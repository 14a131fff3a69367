package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// sameDecimal says whether x and y have the same coefficient and exponent,
// not just the same value: positions must come out stored exactly as
// decimal's own arithmetic stores them.
func sameDecimal(x, y decimal.Decimal) bool {
	return x.Exponent() == y.Exponent() && x.Coefficient().Cmp(y.Coefficient()) == 0
}

// TestPositionApplyMatchesDecimal applies fills of both sides with fees in
// the base, quote and a third asset, and compares every field with the
// same method computed in decimal's own arithmetic (refApply).
func TestPositionApplyMatchesDecimal(t *testing.T) {
	t.Parallel()
	fill := func(side exchange.Side, price, qty, fee, feeAsset string) Fill {
		return Fill{Side: side, Price: decimal.RequireFromString(price), Qty: decimal.RequireFromString(qty),
			Commission: decimal.RequireFromString(fee), CommissionAsset: feeAsset}
	}
	fills := []Fill{
		fill(exchange.SideBuy, "29876.54", "0.03347", "0.00003347", "BTC"),
		fill(exchange.SideBuy, "30001.1", "0.1", "0.1", "BNB"),
		fill(exchange.SideSell, "30500", "0.05", "1.525", "USDT"),
		fill(exchange.SideBuy, "29999.99", "0.00001", "0", ""),
		fill(exchange.SideSell, "31000.01", "0.08336653", "2.58436", "USDT"),
		fill(exchange.SideSell, "31000", "0.001", "0.031", "USDT"), // short of the held quantity: negative
		fill(exchange.SideBuy, "0.00000123", "123456789012.5", "123456.7890125", "BTC"),
		fill(exchange.SideBuy, "3", "7", "0.0000001", "BTC"),
		fill(exchange.SideSell, "98765432109876.54321", "987654321098.7654321", "0", "USDT"), // beyond int64: decimal's path
	}
	var got, reused, want Position
	var m posMath
	for i, f := range fills {
		got.Apply(f, "BTC", "USDT")
		reused.apply(f, "BTC", "USDT", &m)
		refApply(&want, f, "BTC", "USDT")
		comparePositions(t, fmt.Sprintf("fill %d", i), got, want)
		comparePositions(t, fmt.Sprintf("fill %d (reused)", i), reused, want)
	}
	if got.Qty.String() == "0" || got.Realized.String() == "0" {
		t.Errorf("the fills left nothing to compare: %+v", got)
	}
}

func comparePositions(t *testing.T, label string, got, want Position) {
	t.Helper()
	for _, c := range []struct {
		name string
		g, w decimal.Decimal
	}{{"Qty", got.Qty, want.Qty}, {"AvgPrice", got.AvgPrice, want.AvgPrice}, {"Realized", got.Realized, want.Realized},
		{"FeesQuote", got.FeesQuote, want.FeesQuote}, {"FeesBase", got.FeesBase, want.FeesBase}, {"FeesOther", got.FeesOther, want.FeesOther}} {
		if !sameDecimal(c.g, c.w) {
			t.Errorf("%s: %s = %se%d, want %se%d", label, c.name, c.g.Coefficient(), c.g.Exponent(), c.w.Coefficient(), c.w.Exponent())
		}
	}
	if got.OtherAsset != want.OtherAsset {
		t.Errorf("%s: other asset %q, want %q", label, got.OtherAsset, want.OtherAsset)
	}
}

// FuzzPositionApply applies a fuzzed fill as a buy, a sell and a buy again
// (fees in the asset the fuzzer picks) and compares with refApply, with
// the runtime's reused big.Ints carried across the fills.
func FuzzPositionApply(f *testing.F) {
	f.Add(int64(2987654), int8(-2), int64(3347), int8(-5), int64(3347), int8(-8), uint8(0))
	f.Add(int64(-5), int8(3), int64(7), int8(0), int64(1), int8(-1), uint8(1))
	f.Add(int64(999999999999999999), int8(-18), int64(123456789012345678), int8(-9), int64(0), int8(0), uint8(2))
	f.Fuzz(func(t *testing.T, pc int64, pe int8, qc int64, qe int8, fc int64, fe int8, feeKind uint8) {
		asset := [...]string{"BTC", "USDT", "BNB", ""}[feeKind%4]
		price, qty, fee := decimal.New(pc, int32(pe)), decimal.New(qc, int32(qe)), decimal.New(fc, int32(fe))
		fills := []Fill{
			{Side: exchange.SideBuy, Price: price, Qty: qty, Commission: fee, CommissionAsset: asset},
			{Side: exchange.SideSell, Price: price.Add(decimal.New(1, int32(pe))), Qty: qty.Div(decimal.New(3, 0)), Commission: fee, CommissionAsset: asset},
			{Side: exchange.SideBuy, Price: price.Sub(decimal.New(7, int32(pe)-1)), Qty: qty.Mul(decimal.New(2, 0)), Commission: fee, CommissionAsset: asset},
		}
		var got, want Position
		var m posMath
		for i, f := range fills {
			got.apply(f, "BTC", "USDT", &m)
			refApply(&want, f, "BTC", "USDT")
			comparePositions(t, fmt.Sprintf("fill %d", i), got, want)
		}
	})
}

// refApply is Position.Apply as it was written in decimal's own arithmetic.
func refApply(p *Position, f Fill, base, quote string) {
	switch f.Side {
	case exchange.SideBuy:
		cost := p.AvgPrice.Mul(p.Qty).Add(f.Price.Mul(f.Qty))
		p.Qty = p.Qty.Add(f.Qty)
		if p.Qty.IsPositive() {
			p.AvgPrice = cost.Div(p.Qty)
		}
	case exchange.SideSell:
		p.Realized = p.Realized.Add(f.Price.Sub(p.AvgPrice).Mul(f.Qty))
		p.Qty = p.Qty.Sub(f.Qty)
		if !p.Qty.IsPositive() {
			p.AvgPrice = decimal.Zero
		}
	}
	switch f.CommissionAsset {
	case "":
	case base:
		// The fee shrinks the quantity, not the cost paid: the average
		// cost of what is left rises.
		p.FeesBase = p.FeesBase.Add(f.Commission)
		cost := p.AvgPrice.Mul(p.Qty)
		p.Qty = p.Qty.Sub(f.Commission)
		if p.Qty.IsPositive() {
			p.AvgPrice = cost.Div(p.Qty)
		}
	case quote:
		p.FeesQuote = p.FeesQuote.Add(f.Commission)
		p.Realized = p.Realized.Sub(f.Commission)
	default:
		p.FeesOther = p.FeesOther.Add(f.Commission)
		p.OtherAsset = f.CommissionAsset
	}
}

// FuzzPositionApplyNarrow applies a seeded random run of fills (sides,
// fee assets, coefficients of 1 to 19 digits, exponents from -18 to 2, so
// that some steps do not fit 64 bits and take the decimal path) and
// compares every field with refApply after each one.
func FuzzPositionApplyNarrow(f *testing.F) {
	f.Add(uint64(1), uint8(6))
	f.Add(uint64(2), uint8(18))
	f.Add(uint64(3), uint8(19))
	f.Fuzz(func(t *testing.T, seed uint64, digits uint8) {
		r := rand.New(rand.NewPCG(seed, 16))
		maxDigits := 1 + int(digits%19)
		var got, want Position
		var m posMath
		for i := range 40 {
			fl := randomFill(r, maxDigits)
			got.apply(fl, "BTC", "USDT", &m)
			refApply(&want, fl, "BTC", "USDT")
			comparePositions(t, fmt.Sprintf("fill %d %+v", i, fl), got, want)
			if t.Failed() {
				return
			}
		}
	})
}

// randomFill is a fill of either side for a BTCUSDT position: price,
// quantity and commission with coefficients of 1 to maxDigits digits and
// exponents from -18 to 2, the commission in the base, the quote, a third
// asset or none.
func randomFill(r *rand.Rand, maxDigits int) Fill {
	num := func() decimal.Decimal {
		c := r.Int64N(pow10i(r.IntN(maxDigits) + 1))
		return decimal.New(c, int32(r.IntN(21)-18))
	}
	side := exchange.SideBuy
	if r.IntN(2) == 1 {
		side = exchange.SideSell
	}
	return Fill{Side: side, Price: num(), Qty: num(), Commission: num(),
		CommissionAsset: [...]string{"BTC", "USDT", "BNB", ""}[r.IntN(4)]}
}

func pow10i(n int) int64 {
	p := int64(1)
	for range min(n, 18) {
		p *= 10
	}
	if n >= 19 {
		return math.MaxInt64
	}
	return p
}

// TestPositionApplyNarrowTaken checks that fills of a backtest's sizes
// (the benchmark's ETHBTC: quantities of 6 decimals, fees of 8) never
// leave int64 and 128-bit arithmetic, with a realised profit past 64 bits
// carried from fill to fill, and still give decimal's results.
func TestPositionApplyNarrowTaken(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	fills := []Fill{
		{Side: exchange.SideBuy, Price: d("0.051234"), Qty: d("97.518000"), Commission: d("0.09751800"), CommissionAsset: "ETH"},
		{Side: exchange.SideSell, Price: d("0.052001"), Qty: d("97.420000"), Commission: d("0.00506593"), CommissionAsset: "BTC"},
		{Side: exchange.SideBuy, Price: d("0.049999"), Qty: d("101.200000"), Commission: d("0.10120000"), CommissionAsset: "ETH"},
		{Side: exchange.SideBuy, Price: d("0.050000"), Qty: d("1.000000"), Commission: d("0.0001"), CommissionAsset: "BNB"},
		{Side: exchange.SideSell, Price: d("0.048000"), Qty: d("101.198000"), Commission: d("0"), CommissionAsset: ""},
	}
	got := narrowRounds(t, fills, "ETH", "BTC", func(round, i int, before, got Position) {
		if before.Qty.Equal(got.Qty) {
			t.Fatalf("round %d fill %d changed nothing", round, i)
		}
	})
	if got.Qty.String() != "2.703846" || got.Realized.String() != "-0.4279009611604733894" || got.AvgPrice.String() != "0.0500696433301098" {
		t.Errorf("position %s @ %s, realised %s (%de%d)", got.Qty, got.AvgPrice, got.Realized, got.Realized.Coefficient(), got.Realized.Exponent())
	}
	if _, fits := narrowOf(got.Realized); fits {
		t.Errorf("realised %s fits 18 digits: the test does not reach the 128-bit path", got.Realized)
	}
}

// narrowRounds applies fills three times over to a position through
// applyNarrow, failing when one takes the decimal path, compares the
// position with refApply's after each, calls check with it and the one
// before, and returns it.
func narrowRounds(t *testing.T, fills []Fill, base, quote string, check func(round, i int, before, got Position)) Position {
	t.Helper()
	var got, want Position
	var m posMath
	for round := range 3 {
		for i, f := range fills {
			before := got
			if !got.applyNarrow(f, base, quote, &m) {
				t.Fatalf("round %d fill %d took the decimal path", round, i)
			}
			refApply(&want, f, base, quote)
			comparePositions(t, fmt.Sprintf("round %d fill %d", round, i), got, want)
			check(round, i, before, got)
		}
	}
	return got
}

// TestPositionApplyNarrowBTCUSDT: at BTCUSDT's prices an average of 16
// decimals has 21 digits, past an int64; it is carried in 128 bits, so
// fills of BTCUSDT's sizes (prices of 2 decimals, quantities of 5, fees in
// BTC of 8 and in USDT of 8) never take the decimal path, and still give
// decimal's results.
func TestPositionApplyNarrowBTCUSDT(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	fills := []Fill{
		{Side: exchange.SideBuy, Price: d("50012.37"), Qty: d("0.20000"), Commission: d("0.00020000"), CommissionAsset: "BTC"},
		{Side: exchange.SideBuy, Price: d("49871.05"), Qty: d("0.10000"), Commission: d("0.00010000"), CommissionAsset: "BTC"},
		{Side: exchange.SideSell, Price: d("51230.99"), Qty: d("0.15000"), Commission: d("7.68464850"), CommissionAsset: "USDT"},
		{Side: exchange.SideBuy, Price: d("50500.00"), Qty: d("0.02000"), Commission: d("0.00002000"), CommissionAsset: "BTC"},
		{Side: exchange.SideSell, Price: d("49999.99"), Qty: d("0.10000"), Commission: d("4.99999900"), CommissionAsset: "USDT"},
	}
	got := narrowRounds(t, fills, "BTC", "USDT", func(round, i int, _, got Position) {
		if _, fits := narrowOf(got.AvgPrice); i == 3 && fits {
			t.Fatalf("round %d: average %s fits 18 digits: the test does not reach the 128-bit average", round, got.AvgPrice)
		}
	})
	// As Python's decimal works them out at 100 digits, the averages
	// rounded half up to 16 decimals.
	if got.Qty.String() != "0.20904" || got.AvgPrice.String() != "50066.3851242619613613" || got.Realized.String() != "483.028703875720402985" {
		t.Errorf("position %s @ %s, realised %s", got.Qty, got.AvgPrice, got.Realized)
	}
}

// TestPositionApplyRealizedCache: one posMath serves several positions,
// and a realised profit set from outside is read again, not taken from
// the cache of the last one built.
func TestPositionApplyRealizedCache(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	buy := Fill{Side: exchange.SideBuy, Price: d("0.051234"), Qty: d("97.518000"), Commission: d("0.00500000"), CommissionAsset: "BTC"}
	sell := Fill{Side: exchange.SideSell, Price: d("0.052001"), Qty: d("50.000000"), Commission: d("0.00260005"), CommissionAsset: "BTC"}
	var a, b, wa, wb Position
	var m posMath
	for i, step := range []func(){
		func() { a.apply(buy, "ETH", "BTC", &m); refApply(&wa, buy, "ETH", "BTC") },
		func() { b.apply(buy, "ETH", "BTC", &m); refApply(&wb, buy, "ETH", "BTC") },
		func() { a.apply(sell, "ETH", "BTC", &m); refApply(&wa, sell, "ETH", "BTC") },
		func() { b.apply(sell, "ETH", "BTC", &m); refApply(&wb, sell, "ETH", "BTC") },
		func() { a.apply(sell, "ETH", "BTC", &m); refApply(&wa, sell, "ETH", "BTC") },
		func() { a.Realized, wa.Realized = d("7.5"), d("7.5") },
		func() { a.apply(sell, "ETH", "BTC", &m); refApply(&wa, sell, "ETH", "BTC") },
	} {
		step()
		comparePositions(t, fmt.Sprintf("step %d, a", i), a, wa)
		comparePositions(t, fmt.Sprintf("step %d, b", i), b, wb)
	}
	if a.Realized.String() != "10.09744995" {
		t.Errorf("realised %s", a.Realized)
	}
}
