package strategy

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy/indicator"
)

// exitPos is the runtime's view of one instance's position in one symbol
// for its exits: from the first buy after flat until flat again.
type exitPos struct {
	bought, cost decimal.Decimal // the buys since flat: quantity and quote paid
	entry        decimal.Decimal // cost / bought
	opened       time.Time       // the first buy's fill time
	// checked is the end of the last bar checked: a bar opening before it
	// (an instance's higher bar over time already seen, or the bar the
	// entry filled after) is not checked again.
	checked time.Time
	high    decimal.Decimal // the highest price seen since entry
	// stop, target, activation and breakEven are prices (zero: none),
	// set from the entry and the ATR at each buy.
	stop, target, activation, breakEven decimal.Decimal
	trailing                            bool // the trailing stop is active
	atr                                 decimal.Decimal
	exiting                             string // client order id of the exit in flight
	// realized is the position's realised profit when it opened, so a
	// closed trade's profit is the difference.
	realized decimal.Decimal
}

// instExits is an instance's exits and per-symbol state.
type instExits struct {
	rules  Exits
	detail exchange.Interval
	pos    map[string]*exitPos
	atr    map[string]*indicator.ATR // by symbol, on the instance's own bars
}

// setupExits arms an instance's exits: the configuration's block, else
// what the strategy declares. Exits are checked on the detail feed when
// one is set, else on the instance's own feeds.
func (r *Runtime) setupExits(in *instance) error {
	var rules Exits
	switch {
	case in.cfg.Exits != nil:
		rules = *in.cfg.Exits
	default:
		if e, ok := in.s.(Exiter); ok {
			rules = e.Exits()
			if err := rules.Validate(); err != nil {
				return err
			}
		}
	}
	if !rules.Set() {
		return nil
	}
	own, _ := in.cfg.ParsedInterval()
	detail, err := rules.Detail(own)
	if err != nil {
		return err
	}
	if base := r.opts.BaseInterval; base != "" && detail.Duration() < base.Duration() {
		return fmt.Errorf("exits.timeframe_detail: %s is finer than the bars fed (%s): load %s data", detail, base, detail)
	}
	if rules.ATRPeriod == 0 {
		rules.ATRPeriod = 14
	}
	if rules.IntrabarPath == "" {
		rules.IntrabarPath = PathDirection
	}
	in.exits = &instExits{rules: rules, detail: detail, pos: map[string]*exitPos{}, atr: map[string]*indicator.ATR{}}
	for _, f := range in.feeds {
		if rules.usesATR() {
			a, _ := indicator.NewATR(rules.ATRPeriod)
			in.exits.atr[f.Symbol] = a
		}
		r.subscribeExits(Feed{Symbol: f.Symbol, Interval: detail}, in)
	}
	return nil
}

// subscribeExits makes bars of f check in's exits (f aggregated from the
// base interval when one is set).
func (r *Runtime) subscribeExits(f Feed, in *instance) {
	st := r.aggregated(f)
	st.exitSubs = append(st.exitSubs, in)
}

// exitFill follows a fill of the instance into its exit state: a buy
// opens or adds to the position (the levels are set again from the new
// entry), a sell that leaves less than a quantity step closes it.
func (in *instance) exitFill(f Fill, info *exchange.SymbolInfo) {
	x := in.exits
	if x == nil && in.protect == nil {
		return
	}
	pos := in.held(f.Symbol)
	var p *exitPos
	if x != nil {
		p = x.pos[f.Symbol]
	} else {
		p = in.protect.open[f.Symbol]
	}
	if f.Side == exchange.SideBuy {
		if p == nil {
			p = &exitPos{opened: f.Time, checked: f.Time, high: f.Price}
			if pos != nil {
				p.realized = pos.realized()
			}
			if x != nil {
				x.pos[f.Symbol] = p
			} else {
				in.protect.open[f.Symbol] = p
			}
		}
		p.bought = p.bought.Add(f.Qty)
		p.cost = p.cost.Add(f.QuoteQty)
		p.entry = p.cost.DivRound(p.bought, 16)
		if x != nil {
			if a := x.atr[f.Symbol]; a != nil && a.Ready() {
				p.atr = decimal.NewFromFloat(a.Value()).Round(info.PriceScale() + 4)
			}
			x.arm(p)
		}
		return
	}
	if p == nil || pos == nil {
		return
	}
	step := decimal.New(1, -info.QtyScale())
	if pos.qty().GreaterThanOrEqual(step) {
		return
	}
	reason := ExitSignal
	if t := in.rt.find(f.ClientOrderID); t != nil && t.order.Reason != "" {
		reason = t.order.Reason
	}
	if x != nil {
		delete(x.pos, f.Symbol)
	} else {
		delete(in.protect.open, f.Symbol)
	}
	in.closed(f.Symbol, p, pos.realized().Sub(p.realized), reason, f.Time)
}

// arm sets a position's levels from its entry.
func (x *instExits) arm(p *exitPos) {
	e := &x.rules
	p.stop, p.target, p.activation, p.breakEven = decimal.Zero, decimal.Zero, decimal.Zero, decimal.Zero
	if !e.StopLoss.IsZero() {
		p.stop = e.StopLoss.below(p.entry, p.atr, false)
	}
	if !e.TakeProfit.IsZero() {
		p.target = e.TakeProfit.above(p.entry, p.atr)
	}
	if !e.TrailingStop.Activation.IsZero() {
		p.activation = e.TrailingStop.Activation.above(p.entry, p.atr)
	}
	if !e.BreakEven.IsZero() {
		p.breakEven = e.BreakEven.above(p.entry, p.atr)
	}
	p.trailing = !e.TrailingStop.Distance.IsZero() && e.TrailingStop.Activation.IsZero()
	x.raise(p, p.high)
}

// raise records a new high: it may activate the trailing stop and move
// the stop to break-even.
func (x *instExits) raise(p *exitPos, price decimal.Decimal) {
	if price.GreaterThan(p.high) {
		p.high = price
	}
	if !p.activation.IsZero() && p.high.GreaterThanOrEqual(p.activation) && !x.rules.TrailingStop.Distance.IsZero() {
		p.trailing = true
	}
	if !p.breakEven.IsZero() && p.high.GreaterThanOrEqual(p.breakEven) && p.stop.LessThan(p.entry) {
		p.stop = p.entry
	}
}

// hit says which exit a price triggers, if any: the stop first, then the
// trailing stop, then the target.
func (x *instExits) hit(p *exitPos, price decimal.Decimal) string {
	if !p.stop.IsZero() && price.LessThanOrEqual(p.stop) {
		return ExitStopLoss
	}
	if p.trailing {
		trail := x.rules.TrailingStop.Distance.below(p.high, p.atr, true)
		if price.LessThanOrEqual(trail) {
			return ExitTrailingStop
		}
	}
	if !p.target.IsZero() && price.GreaterThanOrEqual(p.target) {
		return ExitTakeProfit
	}
	return ""
}

// path returns a bar's prices in the order the instance's intrabar path
// walks them.
func (x *instExits) path(k *exchange.Kline) [4]decimal.Decimal {
	lowFirst := true
	switch x.rules.IntrabarPath {
	case PathOHLC:
		lowFirst = false
	case PathDirection:
		lowFirst = !k.Close.LessThan(k.Open)
	}
	if lowFirst {
		return [4]decimal.Decimal{k.Open, k.Low, k.High, k.Close}
	}
	return [4]decimal.Decimal{k.Open, k.High, k.Low, k.Close}
}

// checkBar checks the exits of the instances that watch feed st against
// one closed bar: each price of the bar's path in turn (the open first,
// so a gap through a level triggers at once), then the holding time at
// the bar's close.
func (r *Runtime) checkBar(st *feedState, fk *exchange.FixedKline) {
	var k *exchange.Kline // built for the first position checked
	end := st.feed.Interval.Next(fk.OpenTime)
	for _, in := range st.exitSubs {
		p := in.exits.pos[st.feed.Symbol]
		if p == nil || in.warming || in.stopped != nil || !in.exitReady(st.feed.Symbol, p) {
			continue
		}
		if fk.OpenTime.Before(p.checked) {
			continue
		}
		p.checked = end
		if k == nil {
			kl := fk.Kline()
			k = &kl
		}
		reason := ""
		for _, price := range in.exits.path(k) {
			if reason = in.exits.hit(p, price); reason != "" {
				break
			}
			in.exits.raise(p, price)
		}
		if reason == "" && in.exits.rules.MaxHold > 0 && end.Sub(p.opened) >= in.exits.rules.MaxHold {
			reason = ExitMaxHold
		}
		if reason != "" {
			last, _ := r.lastPrice(st.feed.Symbol)
			in.exit(st.feed.Symbol, p, reason, last)
		}
	}
}

// CheckPrice checks every instance's exits in symbol against a price
// traded at time at (a live or paper session's polled last trade price),
// and the holding time at that time.
func (r *Runtime) CheckPrice(symbol string, price decimal.Decimal, at time.Time) {
	for _, in := range r.insts {
		if in.exits == nil {
			continue
		}
		p := in.exits.pos[symbol]
		if p == nil || in.warming || in.stopped != nil || at.Before(p.opened) || !in.exitReady(symbol, p) {
			continue
		}
		reason := in.exits.hit(p, price)
		if reason == "" {
			in.exits.raise(p, price)
			if m := in.exits.rules.MaxHold; m > 0 && at.Sub(p.opened) >= m {
				reason = ExitMaxHold
			}
		}
		if reason != "" {
			in.exit(symbol, p, reason, price)
		}
	}
}

// exitReady says whether no exit of the position is in flight: an exit
// order that ended without closing the position (refused, cancelled)
// lets the next check try again.
func (in *instance) exitReady(symbol string, p *exitPos) bool {
	if p.exiting == "" {
		return true
	}
	if t := in.rt.find(p.exiting); t != nil && !t.final {
		return false
	}
	p.exiting = ""
	return true
}

// exit sells the instance's position in symbol, through the risk gate
// like any order, with the reason recorded: at market, or with order:
// limit as an IMMEDIATE_OR_CANCEL limit priced the offset below last (the
// price the exit was decided at), rounded up to the price precision so it
// stays marketable. A pause does not stop it: a pause stops new risk, not
// its protection.
func (in *instance) exit(symbol string, p *exitPos, reason string, last decimal.Decimal) {
	r := in.rt
	info, ok := r.rule(symbol)
	if !ok {
		return
	}
	qty := in.PositionQty(symbol)
	if free := r.balance(info.BaseAsset).Free; free.LessThan(qty) {
		qty = free
	}
	qty = info.FloorQty(qty)
	if !qty.IsPositive() {
		return
	}
	o := exchange.NewOrder{Symbol: symbol, Side: exchange.SideSell, Type: exchange.TypeMarket, Quantity: qty}
	if in.exits.rules.Order == ExitOrderLimit {
		price := last
		if off := in.exits.rules.LimitOffset; !off.IsZero() {
			price = off.below(last, decimal.Zero, true)
		}
		price = price.RoundUp(info.PriceScale())
		if !price.IsPositive() {
			in.log.Warn("exit not placed: no positive limit price", slog.String("symbol", symbol), slog.String("last", last.String()))
			return
		}
		o.Type, o.Price = exchange.TypeImmediateOrCancel, price
	}
	ord, err := in.placeFor(o, true, reason)
	if err != nil {
		in.log.Warn("exit refused", slog.String("symbol", symbol), slog.String("reason", reason), slog.Any("err", err))
		return
	}
	p.exiting = ord.ClientOrderID
	in.log.Info("exit", slog.String("symbol", symbol), slog.String("reason", reason), slog.String("client_order_id", ord.ClientOrderID))
}

// updateATR feeds an instance's own bar to its exits' ATR.
func (in *instance) updateATR(bar *Bar) {
	if in.exits == nil {
		return
	}
	if a := in.exits.atr[bar.Symbol]; a != nil {
		a.Update(bar.High.Float64(), bar.Low.Float64(), bar.Close.Float64())
	}
}

// ExitSymbols lists the symbols some instance has exits in, sorted, once
// each: those a polled session polls the last price of.
func (r *Runtime) ExitSymbols() []string {
	var cfgs []Config
	for _, in := range r.insts {
		if in.exits != nil {
			cfgs = append(cfgs, in.cfg)
		}
	}
	return SymbolsOf(cfgs)
}
