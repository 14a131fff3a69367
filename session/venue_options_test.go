package session

import (
	"testing"
	"time"
)

// Each retention gives the simulator the options its docs promise, and
// SingleDriver passes through.
func TestVenueRetentionOptions(t *testing.T) {
	month := 31 * 24 * time.Hour
	for _, c := range []struct {
		v                         Venue
		klines, ownTrades, trades int
		history                   time.Duration
		single                    bool
	}{
		{v: Venue{Retention: KeepAll}},
		{v: Venue{Retention: KeepRun, SingleDriver: true}, klines: 1, ownTrades: 1000, trades: 1000, history: month, single: true},
		{v: Venue{Retention: KeepMonth}, klines: 1, history: month},
	} {
		o := c.v.simOptions()
		if o.KlineRetention != c.klines || o.OwnTradeRetention != c.ownTrades || o.TradeRetention != c.trades ||
			o.HistoryRetention != c.history || o.SingleDriver != c.single {
			t.Errorf("retention %d: klines %d, own trades %d, trades %d, history %s, single driver %v", c.v.Retention,
				o.KlineRetention, o.OwnTradeRetention, o.TradeRetention, o.HistoryRetention, o.SingleDriver)
		}
	}
}
