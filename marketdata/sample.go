package marketdata

import (
	"bytes"
	"embed"
	"fmt"
	"strings"

	"github.com/spotbot/spotbot/exchange"
)

// The sample data: Binance spot hourly bars from ninjabot's test data (MIT);
// sample/NOTICE keeps their provenance.
//
//go:embed sample/BTCUSDT-1h.csv sample/ETHUSDT-1h.csv sample/NOTICE
var sampleFS embed.FS

// SampleInterval is the interval of the embedded sample data.
const SampleInterval = exchange.Interval60m

// SampleSymbols lists the symbols of the embedded sample data, sorted.
func SampleSymbols() []string { return []string{"BTCUSDT", "ETHUSDT"} }

// Sample returns the embedded hourly klines of symbol (one of
// SampleSymbols): 4,309 bars each, BTCUSDT from 2020-11-17 00:00 UTC to
// 2021-05-16 00:00, ETHUSDT one day later, with 12 hours missing in 7 gaps
// (exchange maintenance). Each call returns a fresh slice.
func Sample(symbol string) ([]exchange.Kline, error) {
	s, err := SampleSeries(symbol)
	if err != nil {
		return nil, err
	}
	return s.Klines(), nil
}

// SampleSeries returns the embedded hourly bars of symbol as a Series.
func SampleSeries(symbol string) (*Series, error) {
	b, err := sampleFS.ReadFile("sample/" + symbol + "-1h.csv")
	if err != nil {
		return nil, fmt.Errorf("marketdata: no sample data for %q (known: %s)", symbol, strings.Join(SampleSymbols(), ", "))
	}
	s, _, err := Read(bytes.NewReader(b), ReadOptions{Interval: SampleInterval, Symbol: symbol})
	if err != nil {
		return nil, fmt.Errorf("marketdata: sample %s: %w", symbol, err)
	}
	return s, nil
}

// SampleNotice returns the provenance and licence notice of the sample data.
func SampleNotice() string {
	b, _ := sampleFS.ReadFile("sample/NOTICE") // embedded above, so present
	return string(b)
}
