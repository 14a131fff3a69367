package exchange

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Kline is one candle. It is identified by its open time and is closed at
// CloseTime; the wire's close time is the last millisecond of the bar.
type Kline struct {
	OpenTime    time.Time
	Open        decimal.Decimal
	High        decimal.Decimal
	Low         decimal.Decimal
	Close       decimal.Decimal
	Volume      decimal.Decimal // base asset
	CloseTime   time.Time
	QuoteVolume decimal.Decimal
}

// UnmarshalJSON decodes the wire's array form
// [openTime, open, high, low, close, volume, closeTime, quoteVolume].
// Numbers may arrive as strings or numbers; quote volume may be absent.
func (k *Kline) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("kline: %w", err)
	}
	if len(raw) < 7 {
		return fmt.Errorf("kline: %d fields, want at least 7", len(raw))
	}
	var open, closeT Millis
	if err := open.UnmarshalJSON(raw[0]); err != nil {
		return fmt.Errorf("kline open time: %w", err)
	}
	if err := closeT.UnmarshalJSON(raw[6]); err != nil {
		return fmt.Errorf("kline close time: %w", err)
	}
	if open <= 0 {
		return errors.New("kline: missing open time")
	}
	var out Kline
	out.OpenTime, out.CloseTime = open.Time(), closeT.Time()
	fields := []*decimal.Decimal{&out.Open, &out.High, &out.Low, &out.Close, &out.Volume}
	names := []string{"open", "high", "low", "close", "volume"}
	for i, f := range fields {
		if err := strictDecimal(raw[i+1], f); err != nil {
			return fmt.Errorf("kline %s: %w", names[i], err)
		}
	}
	if len(raw) > 7 {
		if err := strictDecimal(raw[7], &out.QuoteVolume); err != nil {
			return fmt.Errorf("kline quote volume: %w", err)
		}
	}
	*k = out
	return nil
}

// MarshalJSON writes the wire's array form.
func (k Kline) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{
		k.OpenTime.UnixMilli(), k.Open.String(), k.High.String(), k.Low.String(), k.Close.String(),
		k.Volume.String(), k.CloseTime.UnixMilli(), k.QuoteVolume.String(),
	})
}

// strictDecimal decodes a decimal from a JSON string or number, refusing
// null and "" (decimal.Decimal's own decoder takes null as zero).
func strictDecimal(b []byte, d *decimal.Decimal) error {
	s, _ := unquote(b)
	if len(s) == 0 || string(s) == "null" {
		return fmt.Errorf("missing decimal")
	}
	v, err := decimal.NewFromString(string(s))
	if err != nil {
		return fmt.Errorf("invalid decimal %s", b)
	}
	*d = v
	return nil
}
