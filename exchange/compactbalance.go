package exchange

import "github.com/shopspring/decimal"

// CompactBalance is an account's balance of one asset with its amounts as
// Fixed while their coefficients fit an int64 (Wide false); a wide one
// carries them as FreeDec and LockedDec. The simulator lists balances so
// (sim.Port.AppendCompactBalances) for a reader that builds the decimals
// of the few balances it reads: a backtest's runtime reloads the balances
// after every fill and reads one or two.
type CompactBalance struct {
	Asset              string
	Free, Locked       Fixed
	Wide               bool
	FreeDec, LockedDec decimal.Decimal
}

// Balance is b as an account read lists it: Free and Locked as decimals
// with the same coefficients and exponents, Available equal to Free.
func (b CompactBalance) Balance() Balance {
	if b.Wide {
		return Balance{Asset: b.Asset, Free: b.FreeDec, Locked: b.LockedDec, Available: b.FreeDec}
	}
	free := b.Free.Decimal()
	return Balance{Asset: b.Asset, Free: free, Locked: b.Locked.Decimal(), Available: free}
}
