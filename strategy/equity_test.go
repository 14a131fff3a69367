package strategy

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// refEquity is the account's value as the runtime took it in decimal's own
// arithmetic, for comparison with equity.
func refEquity(r *Runtime) decimal.Decimal {
	eq := decimal.Zero
	for asset, b := range r.balances() {
		amt := b.Free.Add(b.Locked)
		if asset == r.opts.Valuation {
			eq = eq.Add(amt)
			continue
		}
		if p := r.last[asset+r.opts.Valuation]; p != nil {
			eq = eq.Add(amt.Mul(p.decimal()))
		}
	}
	return eq
}

// TestEquityMatchesDecimal values accounts whose sums fit an int64 and
// accounts that need decimal's big integers, with holdings priced, unpriced
// and empty, and compares coefficient and exponent with refEquity.
func TestEquityMatchesDecimal(t *testing.T) {
	t.Parallel()
	bal := func(asset, free, locked string) exchange.Balance {
		return exchange.Balance{Asset: asset, Free: d(free), Locked: d(locked)}
	}
	cases := []struct {
		name   string
		bals   []exchange.Balance
		prices map[string]string
		want   string
	}{
		{"quote and one priced", []exchange.Balance{bal("USDT", "10000", "0"), bal("BTC", "1", "0")},
			map[string]string{"BTCUSDT": "100"}, "10100"},
		{"locked, empty and unpriced", []exchange.Balance{bal("USDT", "9000.12345678", "999.87654322"), bal("BTC", "0.5", "0.25"),
			bal("ETH", "0", "0"), bal("XRP", "100", "0")}, map[string]string{"BTCUSDT": "29876.54", "ETHUSDT": "1234.5678"}, "32407.405"},
		{"no quote", []exchange.Balance{bal("BTC", "0.00000001", "0")}, map[string]string{"BTCUSDT": "0.01"}, "0.0000000001"},
		{"nothing priced", []exchange.Balance{bal("XRP", "5", "0")}, nil, "0"},
		{"beyond int64", []exchange.Balance{bal("USDT", "1", "0"), bal("BTC", "123456789012.123456789", "0")},
			map[string]string{"BTCUSDT": "98765.4321"}, "12193263112460906.3483112635269"},
		{"scaled beyond int64", []exchange.Balance{bal("USDT", "9500000000", "0"), bal("BTC", "9000000000", "0")},
			map[string]string{"BTCUSDT": "0.000000001"}, "9500000009"},
		{"beyond int64, locked", []exchange.Balance{bal("USDT", "1", "0.5"), bal("BTC", "123456789012.123456789", "0.000000001")},
			map[string]string{"BTCUSDT": "98765.4321"}, "12193263112460906.848410028959"},
		{"scaled beyond int64, locked", []exchange.Balance{bal("USDT", "9500000000", "0.25"), bal("BTC", "9000000000", "1")},
			map[string]string{"BTCUSDT": "0.000000001"}, "9500000009.250000001"},
	}
	for _, c := range cases {
		for _, compact := range []bool{false, true} {
			name := c.name
			if compact {
				name += ", compact"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				opts := Options{Valuation: "USDT"}
				if compact { // read as a backtest reads the simulator's account
					opts.Balances = compactReader(c.bals)
				}
				h := newHarness(t, opts)
				if compact != (h.rt.compact != nil) {
					t.Fatalf("compact balances %v, want %v", h.rt.compact != nil, compact)
				}
				h.ft.balances = c.bals
				for sym, p := range c.prices {
					h.rt.setLast(sym, d(p))
				}
				h.rt.stale = true
				for i := range 2 { // the second time from the holdings listed by the first
					h.rt.observeEquity()
					got, want := h.rt.equity(), refEquity(h.rt)
					if !sameDecimal(got, want) || got.String() != c.want {
						t.Errorf("pass %d: equity %se%d, want %se%d (%s)", i, got.Coefficient(), got.Exponent(), want.Coefficient(), want.Exponent(), c.want)
					}
				}
			})
		}
	}
}

// compactReader is a CompactBalanceReader of bals: each amount as a Fixed
// where both of a balance's fit, else as its decimals (Wide), as the
// simulator's port lists them.
type compactReader []exchange.Balance

func (c compactReader) AppendBalances(dst []exchange.Balance) ([]exchange.Balance, error) {
	return append(dst, c...), nil
}

func (c compactReader) AppendCompactBalances(dst []exchange.CompactBalance) ([]exchange.CompactBalance, error) {
	for _, b := range c {
		free, ok1 := exchange.FixedOf(b.Free)
		locked, ok2 := exchange.FixedOf(b.Locked)
		if ok1 && ok2 {
			dst = append(dst, exchange.CompactBalance{Asset: b.Asset, Free: free, Locked: locked})
		} else {
			dst = append(dst, exchange.CompactBalance{Asset: b.Asset, Wide: true, FreeDec: b.Free, LockedDec: b.Locked})
		}
	}
	return dst, nil
}
