package config

import (
	"strings"
	"testing"
)

// sim.fee_asset and data.resample_gaps: their words (read regardless of
// case), their defaults, and bad values named by key.
func TestAccountingOptions(t *testing.T) {
	t.Parallel()
	c, err := Load([]byte(good), nil, nil, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if c.Sim.FeeAsset != FeeReceived || c.Data.ResampleGaps != GapsClose || c.Data.MergeGaps() {
		t.Errorf("defaults: fee_asset %q, resample_gaps %q", c.Sim.FeeAsset, c.Data.ResampleGaps)
	}
	c, err = Load([]byte(good+"sim: {fee_asset: QUOTE}\n"), []string{"SPOTBOT_DATA__RESAMPLE_GAPS=merge"}, nil, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if c.Sim.FeeAsset != FeeQuote || !c.Data.MergeGaps() {
		t.Errorf("set: fee_asset %q, resample_gaps %q", c.Sim.FeeAsset, c.Data.ResampleGaps)
	}
	_, err = Load([]byte(good+"sim: {fee_asset: base, token_fees: true}\n"), []string{"SPOTBOT_DATA__RESAMPLE_GAPS=fill"}, nil, testRegistry())
	want := []string{
		`data.resample_gaps: "fill" must be close or merge (from SPOTBOT_DATA__RESAMPLE_GAPS)`,
		`sim.fee_asset: "base" must be received or quote`,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("err:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	_, err = Load([]byte(good+"sim: {fee_asset: quote, token_fees: true}\n"), nil, nil, testRegistry())
	if want := "sim.fee_asset: quote cannot be combined with sim.token_fees, which pays fees in the platform token; choose one"; err == nil || err.Error() != want {
		t.Errorf("err %v, want %s", err, want)
	}
	// A mode that cannot honour them refuses them.
	_, err = Load([]byte(goodDaemon+"sim: {fee_asset: quote}\n"), nil, nil, testRegistry())
	if want := "sim.fee_asset: not used in live mode (only the simulated exchange has a fill model); remove it or change mode"; err == nil || err.Error() != want {
		t.Errorf("live: err %v, want %s", err, want)
	}
	_, err = Load([]byte("mode: sim-server\ndata: {resample_gaps: merge}\n"), nil, nil, testRegistry())
	// (The other lines are the server section this text lacks.)
	want = []string{"data.resample_gaps: not used in sim-server mode (only the strategy runtime builds higher intervals from replayed bars; the simulated server's klines close at period ends); remove it or change mode",
		"server.symbols: at least one is required (or server.exchange_info)",
		"server.accounts: at least one (the main account) is required"}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("sim-server: err\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

// The symbols section decodes each symbol's rules; bad values are named
// by their key, and modes that take the exchange's rules refuse it.
func TestSymbolsSection(t *testing.T) {
	t.Parallel()
	c, err := Load([]byte(good+`symbols:
  - {symbol: ORCL, base: ORCL, quote: USD, quantity_decimals: 0, price_decimals: 2, min_qty: 1, min_amount: 10, maker_fee: 0, taker_fee: 0.001}
  - {symbol: BTCUSDT, whole_units: true}
`), nil, nil, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s, ok := c.SymbolRules("ORCL")
	if !ok || s.Base != "ORCL" || s.Quote != "USD" || *s.QuantityDecimals != 0 || *s.PriceDecimals != 2 || s.MinQty.String() != "1" ||
		s.MinAmount.String() != "10" || s.MakerFee.String() != "0" || s.TakerFee.String() != "0.001" || s.WholeUnits {
		t.Errorf("ORCL %+v", s)
	}
	if s, ok := c.SymbolRules("BTCUSDT"); !ok || !s.WholeUnits || s.QuantityDecimals != nil || s.MinQty != nil || s.Base != "" {
		t.Errorf("BTCUSDT %+v", s)
	}
	if _, ok := c.SymbolRules("ETHUSDT"); ok {
		t.Error("ETHUSDT is not listed")
	}
	_, err = Inspect("bt.yaml", []byte(good+`symbols:
  - {symbol: ORCL, base: ORCL, quantity_decimals: 17, min_qty: 0.5, whole_units: true}
  - {symbol: ORCL, quote: USD, price_decimals: -1, min_amount: 0, taker_fee: 1, maker_fee: -0.1}
  - {base: X, quote: X, quantity_decimals: 2, whole_units: true, min_qty: 0, lot: 5}
`), nil, nil, testRegistry())
	want := []string{
		`symbols[2].lot: unknown key (bt.yaml:20)`,
		"symbols[0].quote: required with base (bt.yaml:18)",
		"symbols[0].quantity_decimals: 17 must be from 0 to 16 (bt.yaml:18)",
		"symbols[0].whole_units: whole units have 0 quantity decimals, not 17; remove one of them (bt.yaml:18)",
		"symbols[0].min_qty: 0.5 is not a whole number of units (whole_units) (bt.yaml:18)",
		`symbols[1].symbol: "ORCL" already listed by symbols[0] (bt.yaml:19)`,
		"symbols[1].base: required with quote (bt.yaml:19)",
		"symbols[1].price_decimals: -1 must be from 0 to 16 (bt.yaml:19)",
		"symbols[1].min_amount: 0 must be positive (bt.yaml:19)",
		"symbols[1].maker_fee: -0.1 must be at least 0 and below 1 (bt.yaml:19)",
		"symbols[1].taker_fee: 1 must be at least 0 and below 1 (bt.yaml:19)",
		"symbols[2].symbol: required (bt.yaml:20)",
		`symbols[2].quote: "X" is the base asset too (bt.yaml:20)`,
		"symbols[2].whole_units: whole units have 0 quantity decimals, not 2; remove one of them (bt.yaml:20)",
		"symbols[2].min_qty: 0 must be positive (bt.yaml:20)",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("err:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	_, err = Load([]byte(goodDaemon+"symbols: [{symbol: ORCL, base: ORCL, quote: USD}]\n"), nil, nil, testRegistry())
	if want := "symbols: not used in live mode (live and paper trade by the exchange's rules, the simulated server by server.symbols); remove it or change mode"; err == nil || err.Error() != want {
		t.Errorf("live: err %v, want %s", err, want)
	}
}
