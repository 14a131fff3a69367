package sim

import (
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

var (
	one      = decimal.NewFromInt(1)
	bpsScale = decimal.NewFromInt(10000)
)

// defaultCommissionScale is used when a symbol gives no commission precision.
const defaultCommissionScale = exchange.DefaultCommissionScale

// crossesLast reports whether a priced order would take from the bar-driven
// market at the last price (a market order always does: the last price is
// not read, so a replay's close stays compact).
func crossesLast(o *order, m *market) bool {
	if o.typ == typeMarket {
		return true
	}
	last := m.price()
	if !last.IsPositive() {
		return false
	}
	if o.buy() {
		return exchange.CmpDecimal(o.price, last) >= 0
	}
	return exchange.CmpDecimal(o.price, last) <= 0
}

// slipped worsens p by the slippage for a buy or a sell: SlippageBps basis points
// (rounded to the price precision), then SlippageTicks ticks of the
// symbol's price precision.
func (x *Exchange) slipped(p decimal.Decimal, buy bool, info *exchange.SymbolInfo) decimal.Decimal {
	if x.opts.SlippageBps.IsZero() && x.opts.SlippageTicks == 0 {
		return p
	}
	if !x.opts.SlippageBps.IsZero() {
		f := x.opts.SlippageBps.Div(bpsScale)
		if buy {
			p = info.RoundPrice(p.Mul(one.Add(f)))
		} else {
			p = info.RoundPrice(p.Mul(one.Sub(f)))
		}
	}
	if n := x.opts.SlippageTicks; n > 0 {
		ticks := decimal.New(int64(n), -info.PriceScale())
		if buy {
			p = p.Add(ticks)
		} else if q := p.Sub(ticks); q.IsPositive() {
			p = q
		}
	}
	return p
}

// place validates and books a new order, matching what it can. With test
// set it only validates. The request-shape rules come first, so a
// malformed order is refused as the client and the server refuse it, even
// for an unknown symbol.
func (x *Exchange) place(a *account, no exchange.NewOrder, test bool) (*order, error) {
	if err := no.Validate(); err != nil {
		return nil, err
	}
	m, err := x.market(no.Symbol)
	if err != nil {
		return nil, err
	}
	if err := m.checkRules(no); err != nil {
		return nil, err
	}
	if no.NewClientOrderID != "" {
		if _, dup := a.open[no.NewClientOrderID]; dup || a.openAuto(no.NewClientOrderID) != nil {
			return nil, apiErr(exchange.CodeParameterError, "duplicate clientOrderId %s among open orders", no.NewClientOrderID)
		}
	}
	typ, side, stp, _, err := kinds(no.Type, no.Side, no.STPMode, exchange.StatusNew)
	if err != nil { // NewOrder.Validate knows the same values
		return nil, apiErr(exchange.CodeParameterError, "%s", err)
	}
	o := x.nextOrder() // zeroed: the fields are set one by one (see viewAt)
	o.acct, o.m, o.cid = a, m, no.NewClientOrderID
	o.price, o.qty, o.quoteQty, o.left = no.Price, no.Quantity, no.QuoteOrderQty, no.Quantity
	o.at, o.upd = x.now, x.now
	o.typ, o.side, o.stp = typ, side, stp
	if typ == typeMarket && no.QuoteOrderQty.IsPositive() {
		o.byQuote, o.left = true, no.QuoteOrderQty
	}
	if typ == typeLimitMaker && x.wouldTake(m, o) {
		*o = order{} // not booked: the record serves the next order
		return nil, apiErr(exchange.CodeOrderTypeNotAllowed, "LIMIT_MAKER order would immediately match and take")
	}
	asset, lock := x.lockFor(m, o)
	o.lockBal, o.lock = a.balOf(m, asset), lock
	if b := o.lockBal; b.free.cmp(o.lock) < 0 {
		*o = order{}
		return nil, apiErr(exchange.CodeInsufficientPosition, "insufficient %s: %s free, %s needed", asset, b.free, lock)
	}
	if typ == typeFOK && !x.canFillAll(m, o) {
		if test {
			*o = order{}
			return nil, nil
		}
		x.book(a, o) // recorded, then killed: the live service reports it CANCELED
		x.finish(m, o, statusCanceled, false)
		x.flush(o)
		return o, nil
	}
	if test {
		*o = order{}
		return nil, nil
	}
	x.book(a, o)
	x.execute(m, o)
	x.flush(o)
	return o, nil
}

// historyTrimMin is the shortest history worth trimming.
const historyTrimMin = 1024

// trimHistory forgets a's final orders last updated before the retention
// window and its trades older than it. It runs when the history has
// doubled since the last trim, so the cost is constant per order.
func (x *Exchange) trimHistory(a *account) {
	cut := x.now.Add(-x.opts.HistoryRetention)
	kept := a.history[:0]
	for _, o := range a.history {
		if o.final() && o.upd.Before(cut) {
			// Nothing else holds a final order but an event of it not
			// yet drained (the book, the open map and the trades of the
			// call in progress hold open or current ones): with none
			// queued, its record serves a new order (nextOrder).
			if len(a.events) == 0 {
				*o = order{}
				x.forgot = append(x.forgot, o)
			}
			continue
		}
		kept = append(kept, o)
	}
	clear(a.history[len(kept):])
	a.history = kept
	a.trimAt = 2 * len(kept)
	n := 0
	for n < len(a.trades) && a.trades[n].Time.Before(cut) { // oldest first
		n++
	}
	x.dropTrades(a, n)
	clear(a.trades[len(a.trades):cap(a.trades)][:n])
}

// dropTrades forgets a's n oldest trades. A trade among them not yet
// reported (a taker's earlier trades while it meets more makers) moves to
// x.dropped until its event takes it; the others waiting are found at
// their new place.
func (x *Exchange) dropTrades(a *account, n int) {
	for k := range x.unreported {
		u := &x.unreported[k]
		switch {
		case u.o.acct != a || u.i < 0:
		case u.i < n:
			x.dropped = append(x.dropped, a.trades[u.i])
			u.i = -len(x.dropped)
		default:
			u.i -= n
		}
	}
	a.trades = a.trades[:copy(a.trades, a.trades[n:])]
}

// orderSlab is how many order records one allocation holds at most; the
// first holds 8 and each next twice as many, so an exchange that sees few
// orders (a short backtest of a sweep) does not pay for a large block. 63
// records of 256 bytes and the allocator's 8-byte header fill a 16 KiB
// size class; 64 would take the next class, 18 KiB (TestOrderSlabFits).
const orderSlab = 63

// nextOrder returns the next zeroed order record: the last one forgot
// holds, else the next of the current block. It stays the next until
// taken (takeOrder, when the order is booked): a refused order or a test
// order zeroes it again and leaves it to the next order.
func (x *Exchange) nextOrder() *order {
	if n := len(x.forgot); n > 0 {
		return x.forgot[n-1]
	}
	if len(x.slab) == 0 {
		x.slabSize = min(orderSlab, max(8, 2*x.slabSize))
		x.slab = make([]order, x.slabSize)
	}
	return &x.slab[0]
}

// takeOrder takes the record nextOrder returned; nothing asks for a
// record in between.
func (x *Exchange) takeOrder() {
	if n := len(x.forgot); n > 0 {
		x.forgot[n-1] = nil
		x.forgot = x.forgot[:n-1]
		return
	}
	x.slab = x.slab[1:]
}

// book assigns ids, locks funds and records the order.
func (x *Exchange) book(a *account, o *order) {
	x.takeOrder()
	x.orderSeq++
	o.seq = x.orderSeq
	if o.cid != "" {
		o.oid = x.orderIDs.of(x.orderSeq)
	} else {
		// One string serves both ids when the client gave none: "sim-42"
		// and its tail "42".
		var buf [24]byte
		id := strconv.AppendInt(append(buf[:0], "sim-"...), x.orderSeq, 10)
		if _, taken := a.open[string(id)]; !taken {
			o.cid = string(id)
			o.oid = o.cid[len("sim-"):]
			o.autoID = true
		} else {
			// A user's open order already holds sim-<n> as its own client
			// id: two open orders must never share one, so this order
			// takes the first free sim-<n>-<k> and is kept in the open map
			// like a user's id.
			o.oid = string(id[len("sim-"):])
			for k := 1; ; k++ {
				cand := string(id) + "-" + strconv.Itoa(k)
				if _, t := a.open[cand]; !t {
					o.cid = cand
					break
				}
			}
		}
	}
	b := o.lockBal
	b.free = b.free.sub(o.lock)
	b.locked = b.locked.add(o.lock)
	if !o.autoID {
		a.open[o.cid] = o
	}
	a.history = append(a.history, o)
	if x.opts.HistoryRetention > 0 && len(a.history) >= max(historyTrimMin, a.trimAt) {
		x.trimHistory(a)
	}
	o.dirty()
}

// dirty marks that the order's state must be reported.
func (o *order) dirty() { o.eventDue = true }

// lockFor is what an order locks: the base quantity for a sell; price ×
// quantity for a priced buy; the quote amount for a quote-sized market buy;
// quantity × last price (slipped) for a quantity-sized market buy.
func (x *Exchange) lockFor(m *market, o *order) (string, amount) {
	if !o.buy() {
		return m.info.BaseAsset, amountOf(o.qty)
	}
	switch {
	case o.byQuote:
		return m.info.QuoteAsset, amountOf(o.quoteQty)
	case o.typ == typeMarket:
		return m.info.QuoteAsset, x.withBuyFee(m, amountOf(o.qty.Mul(x.slipped(m.price(), true, &m.info))))
	}
	return m.info.QuoteAsset, x.withBuyFee(m, amountOf(o.price).mul(amountOf(o.qty)))
}

// withBuyFee adds to a buy's lock the most its fee can be when fees are
// charged in the quote asset (Options.QuoteFees): the notional at the
// higher of the symbol's rates, rounded up to the quote commission
// precision (exchange.SymbolInfo.MaxQuoteFee, the formula the risk gate
// checks with risk.WithQuoteFees). Without quote fees the buyer pays in the base asset it
// receives, and the lock is the notional alone.
func (x *Exchange) withBuyFee(m *market, notional amount) amount {
	if !x.opts.QuoteFees {
		return notional
	}
	return notional.add(amountOf(m.info.MaxQuoteFee(notional.dec())))
}

// wouldTake reports whether a priced order matches a resting order or the
// last price at once.
func (x *Exchange) wouldTake(m *market, o *order) bool {
	if crossesLast(o, m) {
		return true
	}
	opp := m.opposite(o.side)
	return len(opp) > 0 && priceOK(o, opp[0].price)
}

// priceOK reports whether o accepts a fill at p.
func priceOK(o *order, p decimal.Decimal) bool {
	switch {
	case o.typ == typeMarket:
		return true
	case o.buy():
		return exchange.CmpDecimal(p, o.price) <= 0
	}
	return exchange.CmpDecimal(p, o.price) >= 0
}

// canFillAll reports whether a FILL_OR_KILL order can fill completely now:
// from the book at acceptable prices, plus the bar-driven market when it
// crosses the last price (which then takes any quantity).
func (x *Exchange) canFillAll(m *market, o *order) bool {
	if crossesLast(o, m) {
		return true
	}
	avail := decimal.Zero
	for _, r := range m.opposite(o.side) {
		if !priceOK(o, r.price) {
			break
		}
		avail = avail.Add(r.left)
		if avail.GreaterThanOrEqual(o.left) {
			return true
		}
	}
	return false
}

// execute matches a new order: first against the book by price-time
// priority, then against the bar-driven market (now, or at the next open),
// then rests, waits or is cancelled as its type says.
func (x *Exchange) execute(m *market, o *order) {
	x.matchBook(m, o)
	if o.final() || !o.left.IsPositive() {
		return
	}
	if crossesLast(o, m) {
		if x.opts.MarketFill == NextOpen {
			o.pending = true
			m.pending = append(m.pending, o)
			return
		}
		x.takeMarket(m, o, numOf(m.price()))
		return
	}
	switch o.typ {
	case typeIOC, typeFOK, typeMarket:
		x.finish(m, o, statusCanceled, false)
	default:
		m.insert(o)
	}
}

// matchBook fills o against resting orders of the book.
func (x *Exchange) matchBook(m *market, taker *order) {
	for taker.left.IsPositive() && !taker.final() {
		opp := m.opposite(taker.side)
		if len(opp) == 0 || !priceOK(taker, opp[0].price) {
			return
		}
		maker := opp[0]
		if x.related(taker.acct.uid, maker.acct.uid) && taker.stp != stpNone && x.groupOf(taker.acct.uid) != nil {
			switch taker.stp {
			case stpCancelMaker:
				x.finish(m, maker, statusCanceled, true)
				x.flush(maker)
				continue
			case stpCancelTaker:
				x.finish(m, taker, statusCanceled, true)
				return
			case stpCancelBoth:
				x.finish(m, maker, statusCanceled, true)
				x.flush(maker)
				x.finish(m, taker, statusCanceled, true)
				return
			}
		}
		price := maker.price
		qty := maker.left
		if taker.byQuote {
			qty = floorQuotient(taker.left, price, m.info.QtyScale())
			if exchange.CmpDecimal(maker.left, qty) < 0 {
				qty = maker.left
			}
			if !qty.IsPositive() {
				x.finish(m, taker, statusFilled, false)
				return
			}
		} else if exchange.CmpDecimal(taker.left, qty) < 0 {
			qty = taker.left
		}
		self := x.related(taker.acct.uid, maker.acct.uid)
		q, p := numOf(qty), numOf(price)
		x.fill(m, maker, q, p, true, self)
		x.fill(m, taker, q, p, false, self)
		x.tapeTrade(m, taker.oid, price, qty, maker.buy())
		x.flush(maker)
	}
}

// takeMarket fills what is left of o against the bar-driven market at
// price p (slipped), as a taker.
func (x *Exchange) takeMarket(m *market, o *order, p num) {
	if !p.d.IsPositive() {
		x.finish(m, o, statusCanceled, false)
		return
	}
	price := p
	if !x.opts.SlippageBps.IsZero() || x.opts.SlippageTicks != 0 {
		price = numOf(x.slipped(p.d, o.buy(), &m.info))
	}
	if o.typ != typeMarket && !priceOK(o, price.d) {
		price = numOf(o.price) // slippage never crosses the limit
	}
	var qty num
	per := price                     // what a unit costs a buyer
	if x.opts.QuoteFees && o.buy() { // the funds pay the taker fee too
		per = numOf(price.d.Mul(one.Add(m.info.TakerCommission)))
	}
	if o.byQuote {
		qty = floorQuotientNum(numOf(o.left), per, m.info.QtyScale())
	} else {
		qty = numOf(o.left)
		if o.buy() && o.typ == typeMarket {
			// A quantity-sized market buy locked at the last price; pay a
			// higher fill from free funds, or fill what the funds allow.
			b := o.acct.balOf(m, m.info.QuoteAsset)
			if afford := floorQuotientOf(b.free.add(o.lock), per.d, m.info.QtyScale()); afford.LessThan(qty.d) {
				qty = numOf(afford)
			}
		}
	}
	if qty.d.IsPositive() {
		x.fill(m, o, qty, price, false, false)
		x.tapeTrade(m, o.oid, price.d, qty.d, !o.buy())
	}
	if !o.final() {
		// A quantity-sized order the funds could not cover in full ends
		// PARTIALLY_CANCELED (CANCELED when nothing filled); a quote-sized
		// one is done once its amount is spent to the last whole step.
		st := statusFilled
		if !o.byQuote && o.left.IsPositive() {
			st = statusCanceled
		}
		x.finish(m, o, st, false)
	}
}

// fill executes qty of o at price and settles balances and fees.
func (x *Exchange) fill(m *market, o *order, qty, price num, maker, self bool) {
	a := o.acct
	quote := mulNum(price, qty)
	info := &m.info
	rate := info.TakerCommission
	if maker {
		rate = info.MakerCommission
	}
	base, quoteAsset := a.pair(m)
	var fee num
	var feeAsset string
	if o.buy() {
		paid := quote.amount()
		release := paid
		switch {
		case o.typ != typeMarket:
			release = amountOf(o.price).mul(qty.amount()) // locked at the limit price
		case release.cmp(o.lock) > 0:
			release = o.lock
		}
		fee, feeAsset = x.fee(a, m, true, qty, quote, rate)
		if feeAsset == info.QuoteAsset { // quote fees: the lock held the fee too
			release = release.add(fee.amount())
		}
		if release.cmp(o.lock) > 0 {
			release = o.lock
		}
		quoteAsset.locked = quoteAsset.locked.sub(release)
		o.lock = o.lock.sub(release)
		quoteAsset.free = quoteAsset.free.add(release).sub(paid)
		base.free = base.free.add(qty.amount())
	} else {
		sold := qty.amount()
		base.locked = base.locked.sub(sold)
		o.lock = o.lock.sub(sold)
		fee, feeAsset = x.fee(a, m, false, qty, quote, rate)
		quoteAsset.free = quoteAsset.free.add(quote.amount())
	}
	fb := a.balOf(m, feeAsset)
	fb.free = fb.free.sub(fee.amount())

	if o.executed.IsZero() { // the first fill: no sum to build
		o.executed, o.cumQuote = qty.d, quote.d
	} else {
		o.executed = addDec(o.executed, qty.d)
		o.cumQuote = addDec(o.cumQuote, quote.d)
	}
	spent := false // a quote-sized buy whose amount left buys no whole step
	if o.byQuote {
		o.left, spent = x.quoteLeft(m, o.left, quote, price)
	} else {
		if exchange.CmpDecimal(o.left, qty.d) == 0 {
			o.left = decimal.Decimal{} // filled: nothing reads what is left of a final order
		} else {
			o.left = subDec(o.left, qty.d)
		}
	}
	o.upd = x.now
	o.status = statusPartiallyFilled
	x.tradeSeq++
	if keep := x.opts.OwnTradeRetention; keep > 0 && len(a.trades) >= 2*keep {
		// Trim in bulk so recording stays amortised O(1).
		x.dropTrades(a, len(a.trades)-keep+1)
	}
	// The trade is written in place, field by field: a trade built aside
	// and copied in costs a bulk write barrier while the collector runs
	// (see viewAt), and the event copies it from here (takeTrades).
	a.trades = append(a.trades, exchange.OwnTrade{})
	t := &a.trades[len(a.trades)-1]
	t.Symbol, t.ID, t.OrderID, t.OrderListID = m.info.Symbol, x.tradeIDs.of(x.tradeSeq), o.oid, -1
	t.Price, t.Qty, t.QuoteQty, t.Commission, t.CommissionAsset = price.d, qty.d, quote.d, fee.d, feeAsset
	t.Time, t.IsBuyer, t.IsMaker, t.IsBestMatch, t.IsSelfTrade, t.ClientOrderID = x.now, o.buy(), maker, true, self, o.cid
	x.unreported = append(x.unreported, ownTrade{o: o, i: len(a.trades) - 1})
	o.dirty()
	m.setLast(price.d)
	if spent || !o.left.IsPositive() {
		x.finish(m, o, statusFilled, false)
	}
}

// quoteLeft is what a quote-sized buy has left to spend after a fill of
// quote at price (left − quote), and whether that buys no whole
// quantity step at the price (the order is then filled). A spent order's
// left is not built (nothing reads what is left of a final order): on
// narrow values the test is made on the coefficients.
func (x *Exchange) quoteLeft(m *market, left decimal.Decimal, quote, price num) (decimal.Decimal, bool) {
	lc, le, ok1 := narrowOf(left)
	qc, qe, ok2 := quote.c, quote.e, quote.ok
	pc, pe, ok3 := price.c, price.e, price.ok
	if ok1 && ok2 && ok3 {
		if c, e, ok := sumNarrow(lc, le, qc, qe, true); ok {
			if c <= 0 {
				return decimal.Decimal{}, true
			}
			if f, _, ok := divFloor(c, e, pc, pe, int32(decimal.DivisionPrecision), m.info.QtyScale()); ok {
				if f <= 0 {
					return decimal.Decimal{}, true
				}
				return exchange.NewDecimal(c, e), false
			}
		}
	}
	left = subDec(left, quote.d)
	return left, !left.IsPositive() || !floorQuotientPositive(left, price.d, m.info.QtyScale())
}

// scale is the decimals a commission of that precision is rounded to.
func scale(p int) int32 { return exchange.CommissionScale(p) }

// fee returns the commission of a trade of qty worth quote at the
// commission rate, and its asset: in the token at a discount when the
// account pays fees in it, a token price is known and the token balance
// covers it; otherwise rate × what the account received (qty for the buyer,
// quote for the seller) in that asset, or rate × the quote amount in the
// quote asset with Options.QuoteFees, rounded to its commission precision.
func (x *Exchange) fee(a *account, m *market, buyer bool, qty, quote num, rate decimal.Decimal) (num, string) {
	r := amountOf(rate)
	quoteValue := quote.amount().mul(r)
	if a.tokDeduct && quoteValue.isPositive() {
		if tm, ok := x.markets[x.opts.Token+m.info.QuoteAsset]; ok && tm.price().IsPositive() {
			tok := quoteValue.dec().Mul(one.Sub(x.opts.TokenDiscount)).Div(tm.price()).Round(defaultCommissionScale)
			if a.bal(x.opts.Token).free.cmp(amountOf(tok)) >= 0 && tok.IsPositive() {
				return numOf(tok), x.opts.Token
			}
		}
	}
	if buyer && !x.opts.QuoteFees {
		return numOfAmount(qty.amount().mul(r).round(scale(m.info.BaseCommissionPrecision))), m.info.BaseAsset
	}
	return numOfAmount(quoteValue.round(scale(m.info.QuoteCommissionPrecision))), m.info.QuoteAsset
}

// finish ends an order: it leaves the book, its remaining lock returns to
// free, and its status becomes final (PARTIALLY_CANCELED for a cancelled
// order with fills); stp says self-trade prevention cancelled it.
func (x *Exchange) finish(m *market, o *order, st orderStatus, stp bool) {
	if o.final() {
		return
	}
	if st == statusCanceled && o.executed.IsPositive() {
		st = statusPartiallyCanceled
	}
	m.remove(o)
	o.pending = false
	b := o.lockBal
	b.locked = b.locked.sub(o.lock)
	b.free = b.free.add(o.lock)
	o.lock = amount{}
	o.status = st
	o.stpCancel = stp
	o.upd = x.now
	if !o.autoID {
		delete(o.acct.open, o.cid)
	}
	o.dirty()
}

// flush reports an order's change to its account's event queue.
func (x *Exchange) flush(o *order) {
	if !o.eventDue {
		return
	}
	o.eventDue = false
	ev := event{o: o, state: o.state()}
	if len(x.unreported) > 0 {
		ev.trades = x.takeTrades(o)
	}
	o.acct.events = append(o.acct.events, ev)
	x.queued.Add(1)
}

// ownTrade is a trade of order o not yet reported in an event: the i-th
// of its account's trades, or when i < 0 the (-1-i)-th of
// Exchange.dropped (dropTrades).
type ownTrade struct {
	o *order
	i int
}

// trade is the trade u stands for.
func (x *Exchange) trade(u ownTrade) *exchange.OwnTrade {
	if u.i < 0 {
		return &x.dropped[-1-u.i]
	}
	return &u.o.acct.trades[u.i]
}

// takeTrades removes o's unreported trades and returns them, in their
// order, from its account's storage of events' trades (account.evTrades).
// There are only the trades of the call in progress: every order that
// fills is flushed before the exchange's lock is released.
func (x *Exchange) takeTrades(o *order) []exchange.OwnTrade {
	a := o.acct
	k := len(a.evTrades)
	kept := x.unreported[:0]
	for _, u := range x.unreported {
		if u.o == o {
			a.evTrades = append(a.evTrades, *x.trade(u))
		} else {
			kept = append(kept, u)
		}
	}
	clear(x.unreported[len(kept):])
	x.unreported = kept
	if len(kept) == 0 && len(x.dropped) > 0 {
		clear(x.dropped)
		x.dropped = x.dropped[:0]
	}
	if len(a.evTrades) == k {
		return nil
	}
	// Capped, so that no append reaches the next event's. Growing the
	// storage leaves earlier events' trades where they are.
	return a.evTrades[k:len(a.evTrades):len(a.evTrades)]
}
