package backtest

import (
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Trade is a round trip of one instance in one symbol: from a flat
// position to a position and back to flat. Scaling in and out is folded
// in: entry and exit prices are volume-weighted. Two instances trading one
// symbol hold positions of their own, so their round trips are apart.
type Trade struct {
	// Instance is the strategy instance whose orders made the trade.
	Instance  string
	Symbol    string
	EntryTime time.Time
	ExitTime  time.Time
	// Qty is the base bought net of fees paid in the base asset: what
	// could be sold, so (ExitPrice − EntryPrice) × Qty − Fees = PnL.
	Qty        decimal.Decimal
	EntryPrice decimal.Decimal // average buy price
	ExitPrice  decimal.Decimal // average sell price
	Fees       decimal.Decimal // in the quote asset (base and token fees valued at the fill price)
	PnL        decimal.Decimal // proceeds − cost − fees, in the quote asset
	ReturnPct  float64         // PnL / cost × 100
	// ExitReason is why the trade closed: the reason of the sell that
	// closed it (strategy.ExitStopLoss, ...), strategy.ExitSignal for the
	// strategy's own sell.
	ExitReason string
}

// Duration is how long the trade was open.
func (t Trade) Duration() time.Duration { return t.ExitTime.Sub(t.EntryTime) }

// FillRecord is a fill as the metrics need it.
type FillRecord struct {
	// Instance is the strategy instance that placed the order.
	Instance  string
	Symbol    string
	Side      exchange.Side
	Price     decimal.Decimal
	Qty       decimal.Decimal
	QuoteQty  decimal.Decimal
	FeeQuote  decimal.Decimal // the commission valued in the quote asset
	FeeInBase decimal.Decimal // the part of the commission paid in the base asset
	Time      time.Time
	// Step is the symbol's quantity step: a holding smaller than it cannot
	// be sold, so a position that falls below it is flat (the residue a
	// fee paid in the base asset leaves behind).
	Step decimal.Decimal
	// Reason is the reason the runtime placed the order (an exit's); ""
	// for the strategy's own orders.
	Reason string
}

// RoundTrips folds fills (in time order) into round-trip trades, one
// position per instance and symbol. A position still open at the end is
// not a trade.
func RoundTrips(fills []FillRecord) []Trade {
	sells := 0 // each trade ends at a sell
	for i := range fills {
		if fills[i].Side != exchange.SideBuy {
			sells++
		}
	}
	r := newRoundTripper(sells)
	for i := range fills {
		f := &fills[i]
		tf := tripFill{instance: f.Instance, symbol: f.Symbol, buy: f.Side == exchange.SideBuy, time: f.Time,
			price: termOf(f.Price), qty: termOf(f.Qty), quoteQty: termOf(f.QuoteQty),
			feeQuote: termOf(f.FeeQuote), feeInBase: termOf(f.FeeInBase), step: termOf(f.Step), reason: f.Reason}
		r.fold(&tf)
	}
	return r.trades()
}

// tripFill is a fill as a roundTripper folds it: FillRecord with its
// amounts looked at once (term).
type tripFill struct {
	instance, symbol string
	buy              bool
	time             time.Time
	price, qty       term
	quoteQty         term
	feeQuote         term // FillRecord.FeeQuote, unless baseFee
	feeInBase        term
	// baseFee says the whole commission is feeInBase, and valued at the
	// fill's price: FeeQuote would be feeInBase × price, which the fees
	// not paid in base add and take away again, so neither is done (the
	// driver's fills, which need no FeeQuote built).
	baseFee bool
	step    term
	reason  string
}

// roundTripper folds fills, in time order, into round trips.
type roundTripper struct {
	cur map[tripKey]*openTrip
	// last is the position of the fill before, which the next one is
	// usually for: the map is looked up only when the key changes.
	lastKey tripKey
	last    *openTrip
	out     []Trade
}

type tripKey struct{ instance, symbol string }

// openTrip is an instance's position in a symbol, reused from one trade
// to the next.
type openTrip struct {
	active               bool
	t                    Trade
	baseFees             decSum // fees paid in the base asset, in base
	held, cost, proceeds decSum
	bought, sold         decSum
	net                  decSum // bought less fees paid in base
	// extFees are fees not paid in the base asset. Fees paid in base
	// shrink the quantity that can be sold, so the proceeds already
	// reflect them and they must not be subtracted again.
	extFees decSum
	// buys and sells count the trade's fills of each side; buyPrice and
	// sellPrice are the last one's price: with one fill the average
	// price is usually that price, and then that decimal is handed out
	// rather than a new one built.
	buys, sells         int
	buyPrice, sellPrice term
}

// newRoundTripper is a roundTripper for about trades round trips.
func newRoundTripper(trades int) *roundTripper {
	return &roundTripper{cur: map[tripKey]*openTrip{}, out: make([]Trade, 0, trades)}
}

// position is the position of an instance in a symbol.
func (r *roundTripper) position(instance, symbol string) *openTrip {
	if r.last != nil && r.lastKey.instance == instance && r.lastKey.symbol == symbol {
		return r.last
	}
	k := tripKey{instance, symbol}
	o := r.cur[k]
	if o == nil {
		o = new(openTrip)
		r.cur[k] = o
	}
	r.lastKey, r.last = k, o
	return o
}

// fold takes the next fill.
func (r *roundTripper) fold(f *tripFill) {
	o := r.position(f.instance, f.symbol)
	if !o.active {
		if !f.buy {
			return // selling what was held before the run: not a round trip
		}
		*o = openTrip{active: true, t: Trade{Instance: f.instance, Symbol: f.symbol, EntryTime: f.time}}
	}
	if !f.baseFee {
		o.extFees.addTerm(&f.feeQuote, false)
		o.extFees.addMul(&f.feeInBase, &f.price, true)
	}
	if f.buy {
		o.held.addTerm(&f.qty, false)
		o.held.addTerm(&f.feeInBase, true)
		o.cost.addTerm(&f.quoteQty, false)
		o.bought.addTerm(&f.qty, false)
		o.net.addTerm(&f.qty, false)
		o.net.addTerm(&f.feeInBase, true)
		o.baseFees.addTerm(&f.feeInBase, false)
		o.buys, o.buyPrice = o.buys+1, f.price
		return
	}
	o.held.addTerm(&f.qty, true)
	o.proceeds.addTerm(&f.quoteQty, false)
	o.sold.addTerm(&f.qty, false)
	o.sells, o.sellPrice = o.sells+1, f.price
	if o.held.Sign() > 0 && o.held.cmpTerm(&f.step) >= 0 {
		return
	}
	r.out = append(r.out, o.close(f))
	o.active = false
}

// close is the trade that f, a sell, closes.
func (o *openTrip) close(f *tripFill) Trade {
	t := o.t
	t.ExitTime = f.time
	t.Qty = o.net.Decimal()
	// Base fees are valued at the entry price: the cost of the quantity
	// they took, so (exit − entry) × qty − fees = PnL. The entry price
	// comes with its coefficient without trailing zeros (a price has a few
	// decimals of its 16), so that the product fits.
	entry, qc, qe, small := average(&o.cost, &o.bought, o.buys, &o.buyPrice)
	t.EntryPrice = entry
	fees := o.extFees
	switch {
	case o.baseFees.Sign() == 0:
		t.Fees = fees.Decimal()
	case small && !fees.isBig && !o.baseFees.isBig && fees.addMulSmall(o.baseFees.c, o.baseFees.exp, qc, qe, false):
		t.Fees = fees.Decimal()
	default:
		t.Fees = o.extFees.Decimal().Add(o.baseFees.Decimal().Mul(t.EntryPrice))
	}
	t.ExitPrice, _, _, _ = average(&o.proceeds, &o.sold, o.sells, &o.sellPrice)
	pnl := o.proceeds
	pnl.AddSum(o.cost, true)
	pnl.AddSum(o.extFees, true)
	t.PnL = pnl.Decimal()
	t.ExitReason = f.reason
	if t.ExitReason == "" {
		t.ExitReason = strategy.ExitSignal
	}
	t.ReturnPct = quoFloat(&pnl, &o.cost) * 100
	return t
}

// average is quo(amount, qty), an average price of n fills, the last at
// price: that decimal itself when n is 1 and it is the average, the
// common case (an amount of price × qty). When the average is
// qc×10^qe with an int64 qc that has no trailing zeros, it says so
// (compact).
func average(amount, qty *decSum, n int, price *term) (avg decimal.Decimal, qc int64, qe int32, compact bool) {
	prec := int32(decimal.DivisionPrecision)
	neg, hi, lo, ok := quoWide(amount, qty, prec)
	if !ok {
		return quo(amount, qty), 0, 0, false
	}
	if samePrice(price, n, neg, hi, lo, prec) {
		avg = price.d // the one fill's price: no decimal built
	} else {
		avg = exchange.NewDecimal128(neg, hi, lo, -prec)
	}
	// Trailing zeros off while the coefficient needs the high word,
	// then off the int64.
	qe = -prec
	for hi != 0 || lo > math.MaxInt64 {
		h := hi / 10
		l, r := bits.Div64(hi%10, lo, 10)
		if r != 0 {
			return avg, 0, 0, false
		}
		hi, lo, qe = h, l, qe+1
	}
	qc = int64(lo)
	for qc != 0 && qc%10 == 0 {
		qc, qe = qc/10, qe+1
	}
	if neg {
		qc = -qc
	}
	return avg, qc, qe, true
}

// samePrice reports whether the n fills' average, the quotient at
// exponent −prec given as a sign and two words, is the last fill's price
// (n is 1 and they are equal).
func samePrice(price *term, n int, neg bool, hi, lo uint64, prec int32) bool {
	if n != 1 || price.big || price.e < -prec || price.e+prec > exchange.MaxPow10 {
		return false
	}
	ph, pl := bits.Mul64(exchange.Abs64(price.c), exchange.Pow10(int(price.e+prec)))
	return ph == hi && pl == lo && (price.c < 0) == neg
}

// trades are the round trips folded, by exit time.
func (r *roundTripper) trades() []Trade {
	// Fills come in time order, so the trades usually already are.
	byExit := func(a, b Trade) int { return a.ExitTime.Compare(b.ExitTime) }
	if !slices.IsSortedFunc(r.out, byExit) {
		slices.SortStableFunc(r.out, byExit)
	}
	return r.out
}
