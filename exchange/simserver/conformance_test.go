package simserver

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// simControl drives the simulator behind the server for the suite: the
// market and the balances are the operator's side, not the API's.
type simControl struct {
	x    *sim.Exchange
	uids [2]string
}

func (c *simControl) FeedKline(symbol string, k exchange.Kline) error {
	return c.x.FeedKline(symbol, exchange.Interval1m, k)
}
func (c *simControl) Credit(acct int, asset string, amount decimal.Decimal) error {
	return c.x.Credit(c.uids[acct], asset, amount)
}
func (c *simControl) GroupBoth() error {
	g, err := c.x.CreateSTPGroup("both")
	if err != nil {
		return err
	}
	_, err = c.x.AddSTPGroupUIDs(g.ID, c.uids[:])
	return err
}
func (c *simControl) SetTokDeduct(on bool) error {
	_, err := c.x.As(c.uids[0]).SetTokDeduct(context.Background(), on)
	return err
}
func (c *simControl) SetSymbolStatus(s string, st exchange.SymbolStatus) error {
	return c.x.SetSymbolStatus(s, st)
}

// served is a simulator behind a server on 127.0.0.1:0 with a client per
// account: the master ("main" key) and one sub-account ("other" key).
type served struct {
	x      *sim.Exchange
	s      *Server
	url    string
	master *exchange.Client
	other  *exchange.Client
	uids   [2]string
}

const otherSecret = "0123456789abcdef0123456789abcdef"

func serve(t testing.TB, so sim.Options, o Options) *served {
	t.Helper()
	if so.Symbols == nil {
		so.Symbols = exchangetest.Symbols()
	}
	if so.Start.IsZero() {
		so.Start = exchangetest.T0
	}
	x, err := sim.New(so)
	if err != nil {
		t.Fatal(err)
	}
	other := x.CreateAccount("other")
	o.Keys = append(o.Keys,
		Key{APIKey: apiKey, Secret: secret, UID: x.MasterUID(), Main: true, Permissions: AllPermissions()},
		Key{APIKey: "otherkey", Secret: otherSecret, UID: other, Permissions: AllPermissions()})
	s, err := New(x, o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	client := func(key, sec string) *exchange.Client {
		c, err := exchange.New(exchange.WithBaseURL(hs.URL), exchange.WithCredentials(exchange.NewSecret(key), exchange.NewSecret(sec)),
			exchange.WithClock(x), exchange.WithLimits(nil))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return &served{x: x, s: s, url: hs.URL, master: client(apiKey, secret), other: client("otherkey", otherSecret),
		uids: [2]string{x.MasterUID(), other}}
}

// TestConformanceOverHTTP runs the trading-port suite against the REST
// client talking to the server, exactly as it runs against the simulator.
func TestConformanceOverHTTP(t *testing.T) {
	exchangetest.Run(t, func(t *testing.T, cfg exchangetest.Config) exchangetest.Harness {
		sv := serve(t, sim.Options{Start: cfg.Start, Symbols: cfg.Symbols, MarketFill: sim.Immediate}, Options{Limits: Limits{Off: true}})
		return exchangetest.Harness{Trader: sv.master, Other: sv.other, Control: &simControl{x: sv.x, uids: sv.uids}}
	})
}
