package session_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
)

func TestFillFromConfig(t *testing.T) {
	fee := decimal.RequireFromString("0.0002")
	f, err := session.FillFromConfig(config.Sim{Fill: "touch", Market: "close", SlippageBps: decimal.NewFromInt(5),
		SlippageTicks: 2, TakerFee: &fee, RateLimits: true, TokenFees: true})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Touch || !f.AtSignalClose || f.SlippageBps.String() != "5" || f.SlippageTicks != 2 || f.TakerFee != &fee ||
		f.MakerFee != nil || !f.RateLimits || !f.TokenFees {
		t.Errorf("fill %+v", f)
	}
	if got, want := f.String(), "touch, market at signal close, slippage 5 bps, slippage 2 ticks, fees in the token"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	if f, err := session.FillFromConfig(config.Sim{}); err != nil || f != (session.Fill{}) {
		t.Errorf("empty words: %+v, %v; want the zero fill model", f, err)
	}
	bad := decimal.NewFromInt(1)
	_, err = session.FillFromConfig(config.Sim{Fill: "cross", Market: "immediate", SlippageBps: decimal.NewFromInt(-1),
		SlippageTicks: -1, MakerFee: &bad})
	// The problems config.Sim.Check reports, in its order: one home for
	// the sim section's rules.
	want := `sim.fill: "cross" must be trade-through or touch
sim.market: "immediate" must be next-open or close
sim.slippage_bps: must not be negative
sim.slippage_ticks: -1 must not be negative
sim.maker_fee: 1 must be at least 0 and below 1`
	if err == nil || err.Error() != want {
		t.Errorf("err:\n%v\nwant:\n%s", err, want)
	}
}

// Token fees: the main account pays fees in TOK from the start.
func TestNewSimFundsAndPaysFeesInTheToken(t *testing.T) {
	rules, err := session.DefaultRules("BTCUSDT", []exchange.Kline{bar(0, "100")})
	if err != nil {
		t.Fatal(err)
	}
	x, err := session.NewSim(t.Context(), session.Venue{Fill: session.Fill{TokenFees: true}, Start: t0,
		Rules: []exchange.SymbolInfo{rules}, Balances: map[string]decimal.Decimal{"USDT": decimal.NewFromInt(50), "TOK": decimal.NewFromInt(3)}})
	if err != nil {
		t.Fatal(err)
	}
	on, err := x.Master().TokDeduct(t.Context())
	if err != nil || !on {
		t.Errorf("token deduction %t, %v; want on", on, err)
	}
	acct, err := x.Master().Account(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, b := range acct.Balances {
		got += b.Asset + "=" + b.Free.String() + " "
	}
	if got != "TOK=3 USDT=50 " {
		t.Errorf("balances %q", got)
	}
}
