package session_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
)

// steps replays a feed to its end and writes each step as a line: its
// open and close, then each bar's symbol, warm-up flag and exact prices.
func steps(t *testing.T, f *session.Replay) string {
	t.Helper()
	var b strings.Builder
	for {
		s, err := f.Next(t.Context())
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s-%s", s.Open.Format("15:04"), s.At.Format("15:04"))
		for _, bar := range s.Bars {
			k := bar.K
			fmt.Fprintf(&b, " %s#%d warm=%t %s %s %s %s %s %s %s/%d", bar.Feed.Symbol, bar.Index, bar.Warm, k.OpenTime.Format("15:04"),
				k.CloseTime.Format("15:04:05.000"), k.Open, k.High, k.Low, k.Close, k.Volume, k.Close.Exp)
		}
		b.WriteString("\n")
	}
}

// A replay of series gives the steps a replay of the same bars as klines
// gives: the same instants, the symbols' bars together when they share
// one, the same warm-up, the same exact prices (at the series' scale).
func TestReplaySeriesAsKlines(t *testing.T) {
	btc := []exchange.Kline{bar(0, "100"), bar(1, "101.5"), bar(3, "103.25"), bar(4, "104")}
	eth := []exchange.Kline{bar(1, "10.10"), bar(2, "11"), bar(4, "12")}
	series := map[string]*marketdata.Series{}
	for sym, ks := range map[string][]exchange.Kline{"BTCUSDT": btc, "ETHUSDT": eth} {
		s, err := marketdata.FromKlines(sym, exchange.Interval60m, ks)
		if err != nil {
			t.Fatal(err)
		}
		series[sym] = s
	}
	syms := []string{"BTCUSDT", "ETHUSDT"}
	got := steps(t, &session.Replay{Interval: exchange.Interval60m, Symbols: syms, Series: series, WarmUp: 2})
	want := "00:00-01:00 BTCUSDT#0 warm=true 00:00 00:59:59.999 100 100 100 100 1/-2\n" +
		"01:00-02:00 BTCUSDT#0 warm=true 01:00 01:59:59.999 101.5 101.5 101.5 101.5 1/-2 ETHUSDT#1 warm=true 01:00 01:59:59.999 10.1 10.1 10.1 10.1 1/-2\n" +
		"02:00-03:00 ETHUSDT#1 warm=true 02:00 02:59:59.999 11 11 11 11 1/-2\n" +
		"03:00-04:00 BTCUSDT#0 warm=false 03:00 03:59:59.999 103.25 103.25 103.25 103.25 1/-2\n" +
		"04:00-05:00 BTCUSDT#0 warm=false 04:00 04:59:59.999 104 104 104 104 1/-2 ETHUSDT#1 warm=false 04:00 04:59:59.999 12 12 12 12 1/-2\n"
	if got != want {
		t.Errorf("series replay:\n%s\nwant:\n%s", got, want)
	}
	if n := (&session.Replay{Symbols: syms, Series: series}).Total(); n != 7 {
		t.Errorf("Total %d, want 7", n)
	}
}

// A replay refuses series it cannot replay, naming the symbol.
func TestReplaySeriesRefusals(t *testing.T) {
	s, err := marketdata.FromKlines("BTCUSDT", exchange.Interval60m, []exchange.Kline{bar(0, "100")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    session.Replay
		want string
	}{
		{session.Replay{Interval: exchange.Interval60m, Symbols: []string{"ETHUSDT"}, Series: map[string]*marketdata.Series{"BTCUSDT": s}},
			"session: no bars for ETHUSDT"},
		{session.Replay{Interval: exchange.Interval1m, Symbols: []string{"BTCUSDT"}, Series: map[string]*marketdata.Series{"BTCUSDT": s}},
			"session: the BTCUSDT bars are 60m, the replay's interval 1m"},
	} {
		if _, err := c.r.Next(t.Context()); err == nil || err.Error() != c.want {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}
