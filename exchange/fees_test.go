package exchange

import "testing"

// MaxQuoteFee takes the higher rate and rounds up, to the quote
// commission precision or to 8 decimals when the rules give none.
func TestMaxQuoteFee(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		maker, taker, notional string
		precision              int
		want                   string
	}{
		{"0.001", "0.002", "998", 2, "2"},                     // 1.996 up to 2.00
		{"0.002", "0.001", "998", 2, "2"},                     // the maker rate when higher
		{"0.001", "0.002", "100", 8, "0.2"},                   // exact
		{"0.001", "0.001", "0.000000012345", 0, "0.00000001"}, // 1.2345e-11 up to 8 decimals
		{"0", "0", "1000", 2, "0"},
	} {
		s := SymbolInfo{MakerCommission: d(tt.maker), TakerCommission: d(tt.taker), QuoteCommissionPrecision: tt.precision}
		if got := s.MaxQuoteFee(d(tt.notional)).String(); got != tt.want {
			t.Errorf("maker %s taker %s notional %s precision %d: %s, want %s", tt.maker, tt.taker, tt.notional, tt.precision, got, tt.want)
		}
	}
	if got := CommissionScale(0); got != DefaultCommissionScale {
		t.Errorf("CommissionScale(0) = %d", got)
	}
}
