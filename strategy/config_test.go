package strategy

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

type testParams struct {
	Fast     int               `koanf:"fast"`
	Slow     int               `koanf:"slow"`
	Fraction decimal.Decimal   `koanf:"fraction"`
	Every    time.Duration     `koanf:"every"`
	Higher   exchange.Interval `koanf:"higher"`
	MA       string            `koanf:"ma"`
}

func (p testParams) Validate() error {
	if p.Fast >= p.Slow {
		return errors.New("fast: must be < slow")
	}
	return nil
}

func TestDecodeParams(t *testing.T) {
	t.Parallel()
	p := testParams{Fast: 10, Slow: 30, Fraction: decimal.RequireFromString("0.5"), MA: "sma"}
	err := DecodeParams(map[string]any{"fast": 5, "fraction": 0.1, "every": "90s", "higher": "1h"}, &p)
	if err != nil {
		t.Fatal(err)
	}
	if p.Fast != 5 || p.Slow != 30 || p.Fraction.String() != "0.1" || p.Every != 90*time.Second || p.Higher != exchange.Interval60m || p.MA != "sma" {
		t.Errorf("decoded %+v", p)
	}
	p2 := testParams{Slow: 30}
	if err := DecodeParams(map[string]any{"fast": 5, "fraction": "0.123456789012345678901234567890"}, &p2); err != nil {
		t.Fatal(err)
	}
	if got := p2.Fraction.String(); got != "0.12345678901234567890123456789" {
		t.Errorf("fraction = %s", got)
	}

	bad := []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"fsat": 5}, "params.fsat: unknown parameter; did you mean fast?"},
		{map[string]any{"fast": "five"}, "params.fast: is not a whole number"},
		{map[string]any{"fast": 40}, "params.fast: must be < slow"},
		{map[string]any{"fraction": "1/2"}, "params.fraction: is not a decimal number"},
		{map[string]any{"higher": "8h"}, "params.higher: is not an interval (known: 1m 5m 15m 30m 60m (or 1h) 4h 1d 1W 1M)"},
	}
	for _, b := range bad {
		p := testParams{Fast: 10, Slow: 30}
		err := DecodeParams(b.raw, &p)
		if err == nil || err.Error() != b.want {
			t.Errorf("DecodeParams(%v) = %v\nwant %s", b.raw, err, b.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	f := func(Config) (Strategy, error) { return nil, nil }
	r.Register("zeta", f)
	r.Register("alpha", f)
	if got := r.Names(); len(got) != 2 || got[0] != "alpha" || got[1] != "zeta" {
		t.Errorf("Names = %v", got)
	}
	_, err := r.New(Config{Name: "beta"})
	if err == nil || err.Error() != `unknown strategy "beta" (known: alpha, zeta)` {
		t.Errorf("New(beta) = %v", err)
	}
	if _, err := r.New(Config{Name: "alpha"}); err == nil || err.Error() != `strategy "alpha": factory returned nil` {
		t.Errorf("New(alpha) = %v", err)
	}
	for name, fn := range map[string]func(){
		"duplicate": func() { r.Register("alpha", f) },
		"nil":       func() { r.Register("nil", nil) },
		"empty":     func() { r.Register("", f) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			fn()
		}()
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Config
		want string
	}{
		{Config{Name: "x", ID: "a", Symbols: []string{"BTCUSDT"}, Interval: "1h"}, ""},
		{Config{ID: "a"}, "name: required"},
		{Config{Name: "x"}, "id: required"},
		{Config{Name: "x", ID: "a b"}, `id: "a b" must be 1-16 letters, digits, '-' or '_'`},
		{Config{Name: "x", ID: "a", Symbols: []string{"btcusdt"}}, `symbols[0]: "btcusdt" must be a non-empty upper-case symbol`},
		{Config{Name: "x", ID: "a", Interval: "2h"}, `interval: unknown interval "2h" (known: 1m 5m 15m 30m 60m (or 1h) 4h 1d 1W 1M)`},
	}
	for _, tt := range tests {
		err := tt.c.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Validate(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestPositionApply(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	var p Position
	p.Apply(Fill{Side: exchange.SideBuy, Price: d("100"), Qty: d("2"), Commission: d("0.002"), CommissionAsset: "BTC"}, "BTC", "USDT")
	p.Apply(Fill{Side: exchange.SideBuy, Price: d("130"), Qty: d("1")}, "BTC", "USDT")
	if p.Qty.String() != "2.998" || p.AvgPrice.String() != "110.0733822548365577" {
		t.Errorf("after buys: qty %s avg %s", p.Qty, p.AvgPrice)
	}
	p.Apply(Fill{Side: exchange.SideSell, Price: d("120"), Qty: d("2.998"), Commission: d("0.5"), CommissionAsset: "USDT"}, "BTC", "USDT")
	if !p.Qty.IsZero() || !p.AvgPrice.IsZero() || p.FeesQuote.String() != "0.5" || p.FeesBase.String() != "0.002" {
		t.Errorf("after sell: %+v", p)
	}
	// 2.998 × (120 − 110.0733822548365577) − 0.5
	if got := p.Realized.String(); got != "29.2600000000000000154" {
		t.Errorf("realised %s", got)
	}
}

func TestSymbolsOf(t *testing.T) {
	t.Parallel()
	got := SymbolsOf([]Config{{Symbols: []string{"ETHUSDT", "BTCUSDT"}}, {Symbols: []string{"BTCUSDT", "SOLUSDT"}}, {}})
	if fmt.Sprint(got) != "[BTCUSDT ETHUSDT SOLUSDT]" {
		t.Errorf("SymbolsOf = %v", got)
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90s", 90 * time.Second, true},
		{"60d", 60 * 24 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{"0d", 0, true},
		{"1.5h", 90 * time.Minute, true},
		{"d", 0, false},
		{"2dx", 0, false},
		{"1d-1h", 0, false},
		{"9999999999d", 0, false},
		{"", 0, false},
	} {
		got, err := ParseDuration(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
