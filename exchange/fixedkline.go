package exchange

import (
	"time"
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
