package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// hasExits says whether an instance has exits: its configuration's
// block, else what its strategy declares (as the runtime arms them).
func hasExits(s strategy.Config, built strategy.Strategy) bool {
	if s.Exits != nil {
		return s.Exits.Set()
	}
	e, ok := built.(strategy.Exiter)
	return ok && e.Exits().Set()
}

// PricePollShare is the share of the IP weight budget the last-price
// polling of poll.price may use at most: the rest is for the bars, the
// clock sync and everything else a bot asks of the market endpoints.
const PricePollShare = 2 // one half

// pricePollProblem checks poll.price against the IP weight budget, given
// the symbols the runtime will poll (those of instances with exits: in
// the configuration, or declared by the strategy). In the worst window
// of the pool's length a cadence p holds floor(window/p)+1 polls, each a
// ticker price request per symbol.
func (c *Config) pricePollProblem(withExits []strategy.Config) error {
	if c.Poll.Price <= 0 || !c.ReachesExchange() || len(withExits) == 0 {
		return nil
	}
	ep, _ := exchange.Lookup(exchange.EpTickerPrice)
	var limit exchange.Limit
	for _, l := range exchange.DefaultLimits() {
		if l.Pool == exchange.PoolIP {
			limit = l
		}
	}
	syms := strategy.SymbolsOf(withExits)
	per := len(syms) * ep.Weight          // one poll of every symbol
	allowed := limit.Max / PricePollShare // per window
	polls := int(limit.Window/c.Poll.Price) + 1
	if polls*per <= allowed {
		return nil
	}
	what := fmt.Sprintf("poll.price: every %s polls the last price of %d symbols with exits (%s) at weight %d each: up to %d of the IP weight budget's %d per %s, of which price polling may use %d",
		c.Poll.Price, len(syms), strings.Join(syms, ", "), ep.Weight, polls*per, limit.Max, limit.Window, allowed)
	k := allowed / per // polls a window may hold
	if k < 1 {
		return fmt.Errorf("%s even once a window; give fewer symbols exits", what)
	}
	// floor(window/p)+1 <= k holds for p above window/k.
	least := (limit.Window / time.Duration(k)).Truncate(time.Second) + time.Second
	return fmt.Errorf("%s; poll every %s or more, or give fewer symbols exits", what, least)
}
