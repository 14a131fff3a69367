package session

import (
	"context"
	"io"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

// Once is the Feed of a job run (bot jobs run): each feed's history as
// warm-up, in time order, then one step at At that runs Job. The venue is
// already at the end of the history (a simulator fed it, or the exchange
// itself), so the bars only reach the strategies.
type Once struct {
	// Feeds lists the runtime's feeds in order; History holds each one's
	// closed bars.
	Feeds   []strategy.Feed
	History map[strategy.Feed][]exchange.Kline
	At      time.Time
	Job     *Job

	steps []Step
	done  bool
}

// Next implements Feed.
func (o *Once) Next(context.Context) (*Step, error) {
	if !o.done && o.steps == nil {
		var bars []Bar
		for _, f := range o.Feeds {
			ks, err := fixedBars(f, o.History[f])
			if err != nil {
				return nil, err
			}
			for i := range ks {
				bars = append(bars, Bar{Feed: f, K: &ks[i], Warm: true})
			}
		}
		o.steps = append(appendInstants(nil, bars, false), Step{At: o.At, Job: o.Job})
		o.done = true
	}
	if len(o.steps) == 0 {
		return nil, io.EOF
	}
	s := &o.steps[0]
	o.steps = o.steps[1:]
	return s, nil
}
