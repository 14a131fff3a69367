package exchange

import (
	"math"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestFixedAdd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		f, g Fixed
		want string
		exp  int32
		ok   bool
	}{
		{NewFixed(125, -2), NewFixed(5, -1), "1.75", -2, true},
		{NewFixed(5, -1), NewFixed(125, -2), "1.75", -2, true},
		{NewFixed(3, 2), NewFixed(-1, -3), "299.999", -3, true},
		{NewFixed(0, 0), NewFixed(120, -8), "0.0000012", -8, true},
		{NewFixed(math.MaxInt64, 0), NewFixed(1, 0), "", 0, false},
		{NewFixed(math.MinInt64, 0), NewFixed(-1, 0), "", 0, false},
		{NewFixed(1, 19), NewFixed(1, 0), "", 0, false},
	} {
		got, ok := c.f.Add(c.g)
		if ok != c.ok {
			t.Errorf("%v + %v: ok %v, want %v", c.f, c.g, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		d := c.f.Decimal().Add(c.g.Decimal())
		if got.String() != c.want || got.Exp != c.exp || got.Exp != d.Exponent() || got.Coef != d.CoefficientInt64() {
			t.Errorf("%v + %v = %v (exp %d), want %s exp %d as decimal's %s", c.f, c.g, got, got.Exp, c.want, c.exp, d)
		}
	}
}

func TestFixedKlineOf(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	k := Kline{OpenTime: at, CloseTime: at.Add(time.Hour - time.Millisecond),
		Open: decimal.RequireFromString("43250.12000000"), High: decimal.RequireFromString("43300.00000000"),
		Low: decimal.RequireFromString("43100.5"), Close: decimal.RequireFromString("4325.1200000000000000000"),
		Volume: decimal.RequireFromString("12.5"), QuoteVolume: decimal.RequireFromString("20000000000.123456789")}
	f, err := FixedKlineOf(&k)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    Fixed
		want Fixed
	}{
		{"open", f.Open, NewFixed(4325012000000, -8)}, // exact as given
		{"high", f.High, NewFixed(4330000000000, -8)},
		{"low", f.Low, NewFixed(431005, -1)},
		{"close", f.Close, NewFixed(432512, -2)}, // 23 digits: trailing zeros dropped
		{"volume", f.Volume, NewFixed(125, -1)},
		{"quote volume", f.QuoteVolume, NewFixed(200000000001234568, -7)}, // 20 digits: rounded to 18
	} {
		if c.f != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, c.f, c.want)
		}
	}
	back := f.Kline()
	if !back.Open.Equal(k.Open) || back.Open.String() != "43250.12" || back.Open.Exponent() != -8 || !back.Close.Equal(k.Close) {
		t.Errorf("back: open %s (exp %d), close %s", back.Open, back.Open.Exponent(), back.Close)
	}
	k.Low = decimal.RequireFromString("0.1234567890123456789")
	if _, err := FixedKlineOf(&k); err == nil || err.Error() != "exchange: the kline at 2025-03-01T00:00:00Z has low 0.1234567890123456789, more than 18 significant digits" {
		t.Errorf("err %v", err)
	}
	z := Kline{Open: decimal.RequireFromString("1"), High: decimal.RequireFromString("1"), Low: decimal.RequireFromString("1"),
		Close: decimal.RequireFromString("1"), Volume: decimal.RequireFromString("0")}
	if f, err := FixedKlineOf(&z); err != nil || f.QuoteVolume != (Fixed{}) || !f.Kline().QuoteVolume.Equal(decimal.Zero) {
		t.Errorf("no quote volume: %+v %v", f, err)
	}
}
