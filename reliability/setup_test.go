package reliability

import (
	"net/http/httptest"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
	"github.com/spotbot/spotbot/exchange/simserver"
)

// The master account's key. The secret is the facts file's signing vector
// secret, so hand-signed requests can be checked against known signatures.
const (
	masterKey    = "mx0aBYs33eIilxBWC5"
	masterSecret = "45d0b3c26f2644f19bfb98b07741b2f5"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// rig is a simulated exchange behind the simulated server on 127.0.0.1:0.
// BTCUSDT last traded at 20000 and XYZUSDT at 0.5; the master account
// holds 1,000,000 USDT and 10 BTC.
type rig struct {
	x   *sim.Exchange
	s   *simserver.Server
	url string
}

// newRig starts a server with o (its Keys gain the master key, with every
// permission).
func newRig(t testing.TB, o simserver.Options) *rig {
	t.Helper()
	x, err := sim.New(sim.Options{Start: exchangetest.T0, Symbols: exchangetest.Symbols(), MarketFill: sim.Immediate})
	if err != nil {
		t.Fatal(err)
	}
	must(t, x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")))
	must(t, x.FeedKline("XYZUSDT", exchange.Interval1m, exchangetest.Bar(0, "0.5", "0.5", "0.5", "0.5")))
	must(t, x.Credit(x.MasterUID(), "USDT", dec("1000000")))
	must(t, x.Credit(x.MasterUID(), "BTC", dec("10")))
	o.Keys = append(o.Keys, simserver.Key{APIKey: masterKey, Secret: masterSecret, UID: x.MasterUID(), Main: true,
		Permissions: simserver.AllPermissions()})
	s, err := simserver.New(x, o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return &rig{x: x, s: s, url: hs.URL}
}

// client returns a REST client of the rig with the given key and options.
func (r *rig) client(t testing.TB, key, secret string, opts ...exchange.Option) *exchange.Client {
	t.Helper()
	all := append([]exchange.Option{exchange.WithBaseURL(r.url),
		exchange.WithCredentials(exchange.NewSecret(key), exchange.NewSecret(secret))}, opts...)
	c, err := exchange.New(all...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
