package obs

import (
	"context"
	"fmt"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
)

// StateSaver is the part of the store the store check uses: *store.Store
// has it. Check says whether the file opened is still the one at the
// store's path and writable (a deleted file still takes writes).
type StateSaver interface {
	SaveState(ctx context.Context, instance string, state []byte) error
	Check(ctx context.Context) error
}

// probeKey is the strategy-state key the store probe writes; instance ids
// cannot contain '#', so it never meets a strategy's state.
const probeKey = "#readyz"

// ForBot returns the options of a bot's listener: its status, and the
// readiness checks its mode calls for. Live and paper modes check that
// the exchange answers (client, the REST client) and that the clock
// offset is within exchange.max_clock_offset; every mode checks that the
// store takes a write (one small row, rewritten by each probe). client
// may be nil in paper-replay mode, which has no exchange and no clock to
// compare.
func ForBot(status func() daemon.Status, cfg *config.Config, client ServerTimer, st StateSaver) (Options, error) {
	o := Options{Status: status, Runtime: true}
	if cfg.ReachesExchange() {
		if client == nil {
			return Options{}, fmt.Errorf("obs: %s mode needs the exchange client for its readiness check", cfg.Mode)
		}
		o.Checks = append(o.Checks, NotBanned(func() time.Time { return status().BannedUntil }, ExchangeReachable(client)), ClockWithin(cfg.Exchange.MaxClockOffset, func() (time.Duration, time.Time) {
			s := status()
			return s.ClockOffset, s.ClockSynced
		}))
	}
	o.Checks = append(o.Checks, StoreWritable(func(ctx context.Context) error {
		if err := st.Check(ctx); err != nil {
			return err
		}
		// The bot's own clock stamps the row: no time.Now here.
		if err := st.SaveState(ctx, probeKey, []byte(status().Updated.UTC().Format(time.RFC3339Nano))); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return nil
	}))
	return o, nil
}
