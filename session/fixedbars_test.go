package session_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// Klines that come as decimals (a job's history, a paper-replay's bars, a
// poll's) become compact bars with their exact coefficients; a price
// past 18 significant digits is refused, naming the feed, bar and field.
func TestKlinesBecomeCompactBars(t *testing.T) {
	f := strategy.Feed{Symbol: "BTCUSDT", Interval: exchange.Interval60m}
	good := bar(0, "101.50")
	o := &session.Once{Feeds: []strategy.Feed{f}, History: map[strategy.Feed][]exchange.Kline{f: {good}}, At: t0.Add(2 * time.Hour)}
	s, err := o.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if k := s.Bars[0].K; k.Close != exchange.NewFixed(10150, -2) || k.QuoteVolume != exchange.NewFixed(10150, -2) || !s.Bars[0].Warm {
		t.Errorf("bar %+v", s.Bars[0])
	}
	long := bar(1, "101.5")
	long.High = decimal.RequireFromString("101.50000000000000001")
	o = &session.Once{Feeds: []strategy.Feed{f}, History: map[strategy.Feed][]exchange.Kline{f: {good, long}}, At: t0}
	const want = "session: BTCUSDT 60m: exchange: the kline at 2024-03-01T01:00:00Z has high 101.50000000000000001, more than 18 significant digits"
	if _, err := o.Next(t.Context()); err == nil || err.Error() != want {
		t.Errorf("err %v\nwant %s", err, want)
	}
	// A replay's bars are series, which refuse such a price when built.
	const wantReplay = "marketdata: bar 0 (2024-03-01T01:00:00Z): high: 101.50000000000000001 has more than 18 significant digits"
	if _, err := marketdata.FromKlines("BTCUSDT", exchange.Interval60m, []exchange.Kline{long}); err == nil || err.Error() != wantReplay {
		t.Errorf("series err %v\nwant %s", err, wantReplay)
	}
}
