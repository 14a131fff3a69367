package simserver

import (
	"errors"

	"github.com/spotbot/spotbot/exchange/sim"
)

// New builds a server for the simulated exchange x. Its clock is x's
// unless o.Clock is set. The sim's own rate budgets (sim.Options.RateLimits)
// should be off: the server applies the spec's limits per IP and account.
//
// Tests and tools control the market through x (Credit, FeedKline,
// SetTime, Advance, SetSymbolStatus ...) and the server through AddKey,
// RemoveKey and SetFaults; AdminHandler offers the same over HTTP.
func New(x *sim.Exchange, o Options) (*Server, error) {
	if x == nil {
		return nil, errors.New("simserver: an exchange is required")
	}
	if o.Clock == nil {
		o.Clock = x
	}
	s, err := newServer(o)
	if err != nil {
		return nil, err
	}
	s.x = x
	s.routeMarket()
	s.routeSpot()
	s.routeWallet()
	s.routeSub()
	return s, nil
}

// Exchange returns the simulated exchange the server serves.
func (s *Server) Exchange() *sim.Exchange { return s.x }
