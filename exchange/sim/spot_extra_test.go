package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
)

func TestAccountExtras(t *testing.T) {
	t.Parallel()
	x, err := New(Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: Immediate})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := x.Master()
	if k, err := p.KYCStatus(ctx); err != nil || k != "1" {
		t.Errorf("default KYC %q %v", k, err)
	}
	if err := x.SetKYC(x.MasterUID(), "4"); err != nil {
		t.Fatal(err)
	}
	if k, _ := p.KYCStatus(ctx); k != "4" {
		t.Errorf("KYC %q, want 4", k)
	}
	if err := x.SetKYC(x.MasterUID(), "5"); !exchange.HasCode(err, exchange.CodeParameterError) {
		t.Errorf("KYC 5: %v", err)
	}
	if err := x.SetKYC("42", "2"); !exchange.HasCode(err, exchange.CodeUserNotExist) {
		t.Errorf("KYC of no one: %v", err)
	}
	if on, _ := p.TokDeduct(ctx); on {
		t.Error("token deduction on by default")
	}
	p.SetTokDeduct(ctx, true)
	if on, _ := p.TokDeduct(ctx); !on {
		t.Error("token deduction not switched on")
	}
	x.SetSymbolStatus("XYZUSDT", exchange.SymbolPaused)
	if ss, _ := p.SelfSymbols(ctx); strings.Join(ss, ",") != "BTCUSDT,TOKUSDT" {
		t.Errorf("self symbols %v", ss)
	}
	if !x.HasSymbol("XYZUSDT") || x.HasSymbol("NOPE") || !x.HasAccount(x.MasterUID()) || x.HasAccount("42") {
		t.Error("HasSymbol or HasAccount wrong")
	}
	x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000"))
	x.Credit(x.MasterUID(), "USDT", dec("1000"))
	if _, err := p.PlaceOrder(ctx, exchange.NewOrder{Symbol: "BTCUSDT", Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec("0.01"), Price: dec("19000")}); err != nil {
		t.Fatal(err)
	}
	p.DiscardEvents()
	if ev := p.DrainEvents(nil); len(ev) != 0 {
		t.Errorf("%d events after DiscardEvents", len(ev))
	}
}
