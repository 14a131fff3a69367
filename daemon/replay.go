package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/session"
)

// replayData is what a paper-replay session replays.
type replayData struct {
	iv      exchange.Interval
	symbols []string // sorted
	data    map[string]*marketdata.Series
	rules   []exchange.SymbolInfo // by symbol, sorted
	start   time.Time
}

// loadReplay loads the bars of a paper-replay session: given ones, or those
// of data.source (the embedded sample, a CSV, the store), cut to
// data.from/data.to, with the same default symbol rules as a backtest.
func loadReplay(c *config.Config, given map[string][]exchange.Kline, symbols []string) (*replayData, error) {
	iv, err := exchange.ParseInterval(c.Data.Interval)
	if err != nil {
		return nil, fmt.Errorf("daemon: data.interval: %w", err)
	}
	r := &replayData{iv: iv, data: map[string]*marketdata.Series{}}
	if given != nil {
		for sym, ks := range given {
			if r.data[sym], err = marketdata.FromKlines(sym, iv, ks); err != nil {
				return nil, fmt.Errorf("daemon: %w", err)
			}
		}
	} else {
		rng, err := c.Data.Range()
		if err != nil {
			return nil, fmt.Errorf("daemon: %w", err)
		}
		if r.data, err = session.LoadSeries(c.Data, iv, symbols, rng); err != nil {
			return nil, fmt.Errorf("daemon: %w", err)
		}
	}
	for sym, s := range r.data {
		if s.Len() == 0 {
			return nil, fmt.Errorf("daemon: no %s bars of %s to replay", iv, sym)
		}
		r.symbols = append(r.symbols, sym)
		if t := s.Kline(0).OpenTime; r.start.IsZero() || t.Before(r.start) {
			r.start = t
		}
	}
	sort.Strings(r.symbols)
	for _, sym := range r.symbols {
		// A series' prices share one exponent: its first bar has the
		// decimals the default rules read.
		info, err := session.SymbolRules(c.Symbols, sym, []exchange.Kline{r.data[sym].Kline(0)})
		if err != nil {
			return nil, fmt.Errorf("daemon: %w", err)
		}
		r.rules = append(r.rules, info)
	}
	return r, nil
}

// reserveSequence gives a simulated session its range of client-id
// sequence numbers and the tag of its trade ids (session.ReserveSequence).
func (b *Bot) reserveSequence(ctx context.Context) error {
	seq, err := session.ReserveSequence(ctx, b.opts.Store)
	if err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	b.rt.SetSequence(seq.Start)
	b.seqStart = seq.Start
	b.jr.session = seq.Tag
	return nil
}

// runReplay replays the bars the way a backtest does (exchange first, then
// order updates, bars and schedules at each instant), so it makes the same
// trades, paced at data.speed simulated seconds per real second once
// warm-up is over (0: as fast as possible). It returns when the data is
// exhausted or ctx ends.
func (b *Bot) runReplay(ctx context.Context) error {
	r := b.replay
	if err := b.closeLeftovers(ctx); err != nil {
		return err
	}
	if err := b.reserveSequence(ctx); err != nil {
		return err
	}
	if err := b.rt.Start(ctx); err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	b.rtStarted = true
	feed := &session.Replay{Interval: r.iv, Symbols: r.symbols, Series: r.data, WarmUp: b.rt.WarmUpBars()}
	var pace time.Duration
	if b.cfg.Data.Speed > 0 {
		pace = time.Duration(float64(r.iv.Duration()) / b.cfg.Data.Speed)
	}
	b.log.Info("replaying", slog.Int("bars", feed.Total()), slog.String("interval", string(r.iv)),
		slog.Time("from", r.start), slog.Float64("speed", b.cfg.Data.Speed))
	// The session loop over a replay, as a backtest runs, so a
	// paper-replay session makes the same trades as a backtest of the same
	// configuration; only the pacing and the status differ.
	l := session.Loop{Runtime: b.rt, Sim: b.x, SetClock: b.rclock.Set, Begin: b.begin,
		After: func(ctx context.Context, s *session.Step, trading bool) error {
			b.stat.Counters.Polls++
			b.applyControl(ctx)
			if !trading {
				return nil
			}
			b.refresh()
			if pace <= 0 {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-b.clock.After(pace):
				return nil
			}
		},
	}
	if err := l.Run(ctx, feed); err != nil {
		return fmt.Errorf("daemon: %w", err)
	}
	b.log.Info("replay data exhausted", slog.Time("last_bar_close", b.rclock.Now()))
	if used := b.rt.Sequence(); used < b.seqStart+session.SequenceReserve {
		if err := session.SaveSequence(ctx, b.opts.Store, used+1); err != nil {
			return fmt.Errorf("daemon: %w", err)
		}
	}
	return nil
}

// begin starts the strategies after warm-up.
func (b *Bot) begin(ctx context.Context) {
	b.rt.Begin(ctx)
	b.stat.Phase = PhaseRunning
	if b.stat.FirstPoll.IsZero() {
		b.stat.FirstPoll = b.clock.Now()
	}
	b.refresh()
	b.log.Info("trading", slog.Int("strategies", len(b.cfg.Strategies)),
		slog.Duration("since_start", b.stat.FirstPoll.Sub(b.stat.Started)))
}
