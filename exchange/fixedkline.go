package exchange

import (
	"fmt"
	"math/big"
	"time"

	"github.com/shopspring/decimal"
)

// FixedKline is a kline with Fixed numbers: a bar a replay hands on without
// building a decimal; Kline materialises it.
type FixedKline struct {
	OpenTime  time.Time
	CloseTime time.Time
	Open      Fixed
	High      Fixed
	Low       Fixed
	Close     Fixed
	Volume    Fixed
	// QuoteVolume is zero when the data has none, as in a Kline.
	QuoteVolume Fixed
}

// Kline is the bar with its numbers as decimals (a zero quote volume stays
// the zero decimal, as a kline read without one has).
func (k *FixedKline) Kline() Kline {
	out := Kline{OpenTime: k.OpenTime, CloseTime: k.CloseTime, Open: k.Open.Decimal(), High: k.High.Decimal(),
		Low: k.Low.Decimal(), Close: k.Close.Decimal(), Volume: k.Volume.Decimal()}
	if k.QuoteVolume != (Fixed{}) {
		out.QuoteVolume = k.QuoteVolume.Decimal()
	}
	return out
}

// FixedKlineOf is k with Fixed numbers, the same coefficients and
// exponents, for a kline that came as decimals (a live venue's, a test's).
// A price whose coefficient has more than 18 digits is first written
// without its trailing zeros (the same value); if it still does not fit,
// the kline is refused with an error naming the field. A volume that does
// not fit is rounded to 18 significant digits (a daily quote volume of
// tens of billions with eight decimals has 19 or 20): volumes are shown
// and summed, never priced.
func FixedKlineOf(k *Kline) (FixedKline, error) {
	out := FixedKline{OpenTime: k.OpenTime, CloseTime: k.CloseTime}
	prices := [4]struct {
		name string
		d    decimal.Decimal
		f    *Fixed
	}{{"open", k.Open, &out.Open}, {"high", k.High, &out.High}, {"low", k.Low, &out.Low}, {"close", k.Close, &out.Close}}
	for _, p := range prices {
		f, ok := FixedOf(p.d)
		if !ok {
			f, ok = FixedOf(trimZeros(p.d))
		}
		if !ok {
			return FixedKline{}, fmt.Errorf("exchange: the kline at %s has %s %s, more than 18 significant digits",
				k.OpenTime.UTC().Format(time.RFC3339), p.name, p.d)
		}
		*p.f = f
	}
	out.Volume = RoundFixed(k.Volume)
	out.QuoteVolume = RoundFixed(k.QuoteVolume)
	return out, nil
}

// trimZeros is d without the trailing zeros of its coefficient: the same
// value at a larger exponent.
func trimZeros(d decimal.Decimal) decimal.Decimal {
	c, e := d.Coefficient(), d.Exponent()
	ten, r := big.NewInt(10), new(big.Int)
	for c.Sign() != 0 {
		q, m := new(big.Int).QuoRem(c, ten, r)
		if m.Sign() != 0 {
			break
		}
		c, e = q, e+1
	}
	return decimal.NewFromBigInt(c, e)
}

// RoundFixed is d as a Fixed, its trailing zeros dropped or, when it
// still has more than 18 digits, rounded half away from zero to 18
// significant digits.
func RoundFixed(d decimal.Decimal) Fixed {
	for range 3 {
		if f, ok := FixedOf(d); ok {
			return f
		}
		d = trimZeros(d)
		if f, ok := FixedOf(d); ok {
			return f
		}
		d = d.Round(-d.Exponent() - int32(d.NumDigits()-18))
	}
	f, _ := FixedOf(d)
	return f
}
