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
