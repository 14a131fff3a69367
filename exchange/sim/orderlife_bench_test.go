package sim

import (
	"context"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// backtestSymbol is a symbol with the rules a backtest gives data without
// rules (session.DefaultRules for ETHBTC: 6 price and quantity decimals, a
// 0.0001 BTC minimum, 0.1% fees).
func backtestSymbol() exchange.SymbolInfo {
	min, fee := decimal.New(1, -4), decimal.New(1, -3)
	return exchange.SymbolInfo{Symbol: "ETHBTC", Status: exchange.SymbolOnline, BaseAsset: "ETH", QuoteAsset: "BTC",
		BaseAssetPrecision: 6, QuotePrecision: 6, QuoteAssetPrecision: 6, BaseCommissionPrecision: 8,
		QuoteCommissionPrecision: 8, IsSpotTradingAllowed: true, TradeSideType: exchange.TradeSideAll,
		OrderTypes:           []exchange.OrderType{exchange.TypeLimit, exchange.TypeMarket, exchange.TypeLimitMaker},
		QuoteAmountPrecision: min, QuoteAmountPrecisionMarket: min, BaseSizePrecision: decimal.New(1, -6),
		MaxQuoteAmount: decimal.New(1, 9), MaxQuoteAmountMarket: decimal.New(1, 9), MakerCommission: fee, TakerCommission: fee,
		Permissions: []string{"SPOT"}}
}

// walkBars returns n distinct one-minute bars of a seeded random walk
// around 0.05 (pulled back towards it) with 6 decimals, from t0.
func walkBars(n int, t0 time.Time) []exchange.FixedKline {
	r := rand.New(rand.NewPCG(16, 1))
	out := make([]exchange.FixedKline, n)
	c := int64(50_000)
	for i := range out {
		o := c
		c = max(1000, c+r.Int64N(201)-100-(c-50_000)/64) // back towards 0.05
		hi, lo := max(o, c)+r.Int64N(50), min(o, c)-r.Int64N(50)
		at := t0.Add(time.Duration(i) * time.Minute)
		out[i] = exchange.FixedKline{OpenTime: at, CloseTime: at.Add(time.Minute - time.Millisecond),
			Open: exchange.NewFixed(o, -6), High: exchange.NewFixed(hi, -6), Low: exchange.NewFixed(lo, -6),
			Close: exchange.NewFixed(c, -6), Volume: exchange.NewFixed(1000+r.Int64N(1000), -2)}
	}
	return out
}

// BenchmarkMarketOrderLife is the simulator's side of one market order in
// a backtest, as the session loop and the runtime drive it (the exchange a
// backtest builds: next-open market fills, one driver, a backtest's
// retention): a MARKET buy sized by quote amount, then a MARKET sell
// sized by quantity, each with a client order id as the runtime gives
// one; after each placement the next bar is fed (the order fills at its
// open), the events are drained and the account read (the runtime
// refreshes its balances after a fill). The bars are distinct, generated
// here. One op is the two orders; ns/order and allocs/order are per order.
// The account is read with Account (what the runtime does) or with
// AppendBalances into a reused slice (the cheaper read the runtime could
// use).
func BenchmarkMarketOrderLife(b *testing.B) {
	b.Run("account", func(b *testing.B) {
		ctx := context.Background()
		marketOrderLife(b, func(p *Port) int {
			acct, err := p.Account(ctx)
			if err != nil {
				b.Fatal(err)
			}
			return len(acct.Balances)
		})
	})
	b.Run("balances", func(b *testing.B) {
		var bal []exchange.Balance
		marketOrderLife(b, func(p *Port) int {
			var err error
			if bal, err = p.AppendBalances(bal[:0]); err != nil {
				b.Fatal(err)
			}
			return len(bal)
		})
	})
}

func marketOrderLife(b *testing.B, read func(*Port) int) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	x, err := New(Options{Start: t0, Symbols: []exchange.SymbolInfo{backtestSymbol()}, SingleDriver: true,
		KlineRetention: 1, OwnTradeRetention: 1000, TradeRetention: 1000, HistoryRetention: 31 * 24 * time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	// Each round trip loses its fees: about 0.001 BTC and 0.01 ETH. The
	// balances stay of the size a backtest's are (an amount whose
	// coefficient would pass 64 bits is computed with decimal.Decimal).
	x.Credit(x.MasterUID(), "BTC", decimal.NewFromInt(1_000))
	x.Credit(x.MasterUID(), "ETH", decimal.NewFromInt(10_000))
	p := x.Master()
	ctx := context.Background()
	bars := walkBars(1<<16, t0)
	// Client ids are made before timing, as the runtime makes its own:
	// an id is free again once its order is final.
	ids := make([]string, 256)
	for i := range ids {
		ids[i] = "bench-" + strconv.Itoa(i)
	}
	buy := exchange.NewOrder{Symbol: "ETHBTC", Side: exchange.SideBuy, Type: exchange.TypeMarket, QuoteOrderQty: decimal.RequireFromString("0.5")}
	// The sell is of the quantity the buy got (its fee comes from the
	// ETH held).
	sell := exchange.NewOrder{Symbol: "ETHBTC", Side: exchange.SideSell, Type: exchange.TypeMarket}
	if err := x.FeedBar("ETHBTC", exchange.Interval1m, &bars[0]); err != nil {
		b.Fatal(err)
	}
	var events []exchange.OrderEvent
	n, bar := 0, 1
	life := func(o exchange.NewOrder) decimal.Decimal {
		o.NewClientOrderID = ids[n%len(ids)]
		n++
		if _, err := p.PlaceOrder(ctx, o); err != nil {
			b.Fatal(err)
		}
		if bar == len(bars) { // a new day: the walk again, later
			shift := bars[len(bars)-1].OpenTime.Sub(bars[0].OpenTime) + time.Minute
			for i := range bars {
				bars[i].OpenTime, bars[i].CloseTime = bars[i].OpenTime.Add(shift), bars[i].CloseTime.Add(shift)
			}
			bar = 0
		}
		if err := x.FeedBar("ETHBTC", exchange.Interval1m, &bars[bar]); err != nil {
			b.Fatal(err)
		}
		bar++
		events = p.DrainEvents(events[:0])
		if len(events) != 2 || events[1].Order.Status != exchange.StatusFilled || len(events[1].Trades) != 1 {
			b.Fatalf("events %+v", events)
		}
		if n := read(p); n != 2 {
			b.Fatalf("%d balances, want 2", n)
		}
		return events[1].Order.ExecutedQty
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		sell.Quantity = life(buy)
		life(sell)
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/order")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/order")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/order")
}
