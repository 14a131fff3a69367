package smacross

import (
	"log/slog"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// countingCtx answers Rules, Position and Balance for an account that can
// no longer trade and counts the calls; the rest of strategy.Context is
// not called by Skip.
type countingCtx struct {
	strategy.Context
	info              *exchange.SymbolInfo
	log               *slog.Logger
	rules, pos, bal   int
	held, free, quote decimal.Decimal
}

func (c *countingCtx) Rules(string) (*exchange.SymbolInfo, error) { c.rules++; return c.info, nil }
func (c *countingCtx) Position(s string) strategy.Position {
	c.pos++
	return strategy.Position{Symbol: s, Qty: c.held}
}
func (c *countingCtx) Balance(a string) exchange.Balance {
	c.bal++
	if a == c.info.QuoteAsset {
		return exchange.Balance{Asset: a, Free: c.quote, Available: c.quote}
	}
	return exchange.Balance{Asset: a, Free: c.free, Available: c.free}
}
func (c *countingCtx) Log() *slog.Logger { return c.log }

// TestSkipReadsTheAccountOncePerCall runs Skip over 20,000 generated bars
// for an account whose position (0.001 BTC, about 20 USDT) and quote
// balance (50 USDT, 47.5 of it to spend) are below the 100 USDT minimum:
// every cross is a quiet signal, so one call takes every bar, and it reads
// the rules, the position and each balance once, not at every cross.
func TestSkipReadsTheAccountOncePerCall(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	s := walk(t, 20_000, 3)
	st, err := New(strategy.Config{Symbols: []string{"BTCUSDT"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &countingCtx{
		info: &exchange.SymbolInfo{Symbol: "BTCUSDT", BaseAsset: "BTC", QuoteAsset: "USDT", BaseAssetPrecision: 6,
			QuoteAssetPrecision: 8, QuoteAmountPrecision: d("100")},
		held: d("0.001"), free: d("0.001"), quote: d("50"), log: slog.New(slog.DiscardHandler),
	}
	f := strategy.Feed{Symbol: "BTCUSDT", Interval: exchange.Interval1m}
	if n := st.(strategy.Skipper).Skip(ctx, f, strategy.NewBars(s, 0, s.Len())); n != s.Len() {
		t.Fatalf("Skip took %d of %d bars", n, s.Len())
	}
	if ctx.rules != 1 || ctx.pos != 1 || ctx.bal != 2 {
		t.Fatalf("%d Rules, %d Position, %d Balance calls; want 1, 1, 2", ctx.rules, ctx.pos, ctx.bal)
	}
	if st.(*Strategy).frozen.Context != nil {
		t.Fatal("the Context is kept past the call")
	}
}

// BenchmarkSkipQuiet is Skip over a million generated bars for an account
// that can no longer trade (TestSkipReadsTheAccountOncePerCall's): every
// cross is a signal Skip asks act about (dry) and takes, so one call
// takes every bar. The strategy's own cost of an exhausted account's
// backtest.
func BenchmarkSkipQuiet(b *testing.B) {
	d := decimal.RequireFromString
	s := walk(b, 1_000_000, 7)
	f := strategy.Feed{Symbol: "BTCUSDT", Interval: exchange.Interval1m}
	info := &exchange.SymbolInfo{Symbol: "BTCUSDT", BaseAsset: "BTC", QuoteAsset: "USDT", BaseAssetPrecision: 6,
		QuoteAssetPrecision: 8, QuoteAmountPrecision: d("100")}
	b.ReportAllocs()
	for b.Loop() {
		st, err := New(strategy.Config{Symbols: []string{"BTCUSDT"}})
		if err != nil {
			b.Fatal(err)
		}
		ctx := &countingCtx{info: info, held: d("0.001"), free: d("0.001"), quote: d("50"), log: slog.New(slog.DiscardHandler)}
		if n := st.(strategy.Skipper).Skip(ctx, f, strategy.NewBars(s, 0, s.Len())); n != s.Len() {
			b.Fatalf("Skip took %d of %d bars", n, s.Len())
		}
	}
	b.ReportMetric(float64(s.Len())*float64(b.N)/b.Elapsed().Seconds(), "bars/s")
}
