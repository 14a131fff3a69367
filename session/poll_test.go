package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
	"github.com/spotbot/spotbot/strategy"
)

// jumpClock is a wall clock a test moves: a wait moves it at once.
type jumpClock struct{ now time.Time }

func (c *jumpClock) Now() time.Time { return c.now }

func (c *jumpClock) After(d time.Duration) <-chan time.Time {
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// hourlyBars serves closed hourly bars at 100 opening in [from, to).
type hourlyBars struct{}

func (hourlyBars) KlinesRange(_ context.Context, _ string, iv exchange.Interval, from, to time.Time) ([]exchange.Kline, error) {
	var out []exchange.Kline
	for t := from; t.Before(to); t = iv.Next(t) {
		out = append(out, exchange.Kline{OpenTime: t, CloseTime: iv.Next(t).Add(-time.Millisecond), Open: decimal.NewFromInt(100),
			High: decimal.NewFromInt(100), Low: decimal.NewFromInt(100), Close: decimal.NewFromInt(100)})
	}
	return out, nil
}

// tickerLog answers a price per request, 101, 102, ..., and logs when
// each was asked; ETHUSDT's second request fails.
type tickerLog struct {
	clock *jumpClock
	calls []string
}

func (p *tickerLog) LastPrice(_ context.Context, symbol string) (decimal.Decimal, error) {
	p.calls = append(p.calls, p.clock.now.Format("15:04:05")+" "+symbol)
	if len(p.calls) == 4 {
		return decimal.Zero, errors.New("HTTP 503")
	}
	return decimal.NewFromInt(int64(100 + len(p.calls))), nil
}

// poll.price: the last trade prices of the symbols with exits are polled
// every PriceEvery from the start of trading, on the poll's clock, in a
// wake-up step of their own or with the order sync when both fall due;
// a failed request is reported and leaves its symbol out of that step.
func TestPollPriceCadence(t *testing.T) {
	t.Parallel()
	clock := &jumpClock{now: time.Date(2024, 3, 1, 10, 0, 30, 0, time.UTC)}
	px := &tickerLog{clock: clock}
	var failed []string
	p := &session.Poll{Klines: hourlyBars{}, Clock: clock, Feeds: []strategy.Feed{{Symbol: "BTCUSDT", Interval: exchange.Interval60m}},
		WarmUp: 1, KlineDelay: 2 * time.Second, Orders: time.Minute, Prices: px, PriceEvery: 20 * time.Second,
		PriceSymbols: []string{"BTCUSDT", "ETHUSDT"},
		Failed:       func(what string, err error) { failed = append(failed, what+": "+err.Error()) }}
	var steps []string
	for range 6 {
		s, err := p.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var prices []string
		for _, q := range s.Prices {
			prices = append(prices, q.Symbol+"="+q.Price.String())
		}
		steps = append(steps, fmt.Sprintf("%s bars=%d sync=%t start=%t tick=%t prices=[%s]", s.At.Format("15:04:05"), len(s.Bars),
			s.Sync, s.Start, s.Tick, strings.Join(prices, " ")))
	}
	want := []string{
		"10:00:00 bars=1 sync=false start=false tick=false prices=[]", // warm-up: the 09:00 bar
		"10:00:30 bars=0 sync=true start=true tick=false prices=[]",   // trading starts; cadences from here
		"10:00:50 bars=0 sync=false start=false tick=true prices=[BTCUSDT=101 ETHUSDT=102]",
		"10:01:10 bars=0 sync=false start=false tick=true prices=[BTCUSDT=103]",
		"10:01:30 bars=0 sync=true start=false tick=true prices=[BTCUSDT=105 ETHUSDT=106]",
		"10:01:50 bars=0 sync=false start=false tick=true prices=[BTCUSDT=107 ETHUSDT=108]",
	}
	if got := strings.Join(steps, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if got, want := strings.Join(px.calls, ", "), "10:00:50 BTCUSDT, 10:00:50 ETHUSDT, 10:01:10 BTCUSDT, 10:01:10 ETHUSDT, "+
		"10:01:30 BTCUSDT, 10:01:30 ETHUSDT, 10:01:50 BTCUSDT, 10:01:50 ETHUSDT"; got != want {
		t.Errorf("requests %s\nwant %s", got, want)
	}
	if got, want := strings.Join(failed, "; "), "price poll: ETHUSDT: HTTP 503"; got != want {
		t.Errorf("failed %q, want %q", got, want)
	}
}
