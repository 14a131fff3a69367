package notify

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Clock is the notifier's time: exchange.Clock satisfies it, tests inject
// a fake one.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Sink delivers one event. Send returns an error wrapping ErrPermanent
// when a retry cannot help (the receiver refused the request).
type Sink interface {
	// Name identifies the sink in logs and statistics.
	Name() string
	// Send delivers ev; repeats is how many equal events the
	// deduplication held back since the last one sent.
	Send(ctx context.Context, ev Event, repeats int) error
}

// ErrPermanent marks a refusal that resending would not change.
var ErrPermanent = errors.New("permanent failure")

// Options tune a Notifier. Zero values take the defaults named.
type Options struct {
	// Clock paces rate limits, dedup windows and backoff. Required.
	Clock Clock
	// Logger receives delivery failures and drops (discarded when nil).
	Logger *slog.Logger
	// Queue bounds each sink's queue (default 100); when it is full the
	// oldest event is dropped and counted.
	Queue int
	// RatePerMinute bounds each sink's sends in any minute (default 20).
	RatePerMinute int
	// DedupWindow: an event of the same kind, instance, text and fields within
	// this window of the last one sent is held back and counted; the next
	// one sent after the window carries the count (default 1 minute;
	// negative turns deduplication off).
	DedupWindow time.Duration
	// Attempts bounds the sends of one event (default 5).
	Attempts int
	// Backoff is the wait after the first failed attempt, doubled after
	// each further one (default 1 s).
	Backoff time.Duration
}

// Stats counts what one sink did.
type Stats struct {
	Sent       int // delivered
	Failed     int // given up after the attempts, or refused for good
	Dropped    int // pushed out of a full queue
	Retries    int // attempts after a failure
	Suppressed int // held back by the deduplication (counted once for all sinks)
}

// A Notifier fans events out to its sinks. Notify never blocks; Close
// drains what is queued.
type Notifier struct {
	opts  Options
	log   *slog.Logger
	sinks []*worker

	mu         sync.Mutex
	closed     bool
	seen       map[string]*seen
	suppressed int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type seen struct {
	sent    time.Time
	repeats int
}

type queued struct {
	ev      Event
	repeats int
}

// worker owns one sink: its queue, rate window and counters.
type worker struct {
	sink  Sink
	n     *Notifier
	wake  chan struct{}
	queue []queued // guarded by n.mu
	stats Stats    // guarded by n.mu
	sends []time.Time
}

// New starts a notifier over sinks; each sink gets a goroutine until
// Close.
func New(opts Options, sinks ...Sink) (*Notifier, error) {
	if opts.Clock == nil {
		return nil, errors.New("notify: a clock is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Queue <= 0 {
		opts.Queue = 100
	}
	if opts.RatePerMinute <= 0 {
		opts.RatePerMinute = 20
	}
	if opts.DedupWindow == 0 {
		opts.DedupWindow = time.Minute
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 5
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	n := &Notifier{opts: opts, log: opts.Logger, seen: map[string]*seen{}}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	for _, s := range sinks {
		w := &worker{sink: s, n: n, wake: make(chan struct{}, 1)}
		n.sinks = append(n.sinks, w)
		n.wg.Add(1)
		go w.run()
	}
	return n, nil
}

// Notify queues ev for every sink, unless an equal event was sent within
// the dedup window. It never blocks: a full queue drops its oldest event.
func (n *Notifier) Notify(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = n.opts.Clock.Now()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	repeats := 0
	if n.opts.DedupWindow > 0 {
		key := dedupKey(ev)
		now := n.opts.Clock.Now()
		if s, ok := n.seen[key]; ok && now.Sub(s.sent) < n.opts.DedupWindow {
			s.repeats++
			n.suppressed++
			return
		} else if ok {
			repeats = s.repeats
		}
		n.seen[key] = &seen{sent: now}
		// Forget windows long past, so the map stays as small as the
		// variety of recent events.
		for k, s := range n.seen {
			if now.Sub(s.sent) >= n.opts.DedupWindow && s.repeats == 0 {
				delete(n.seen, k)
			}
		}
	}
	for _, w := range n.sinks {
		if len(w.queue) >= n.opts.Queue {
			w.queue = w.queue[1:]
			w.stats.Dropped++
			n.log.Warn("notification dropped: queue full", slog.String("sink", w.sink.Name()), slog.String("kind", string(ev.Kind)))
		}
		w.queue = append(w.queue, queued{ev: ev, repeats: repeats})
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// Stats returns each sink's counters by name.
func (n *Notifier) Stats() map[string]Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string]Stats, len(n.sinks))
	for _, w := range n.sinks {
		s := w.stats
		s.Suppressed = n.suppressed
		out[w.sink.Name()] = s
	}
	return out
}

// Close stops accepting events and delivers what is queued until ctx
// ends; then it abandons the rest and stops the sinks' goroutines.
func (n *Notifier) Close(ctx context.Context) error {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	for _, w := range n.sinks {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
		n.cancel()
		return nil
	case <-ctx.Done():
		n.cancel()
		<-done
		return ctx.Err()
	}
}

func (w *worker) pop() (queued, bool) {
	w.n.mu.Lock()
	defer w.n.mu.Unlock()
	if len(w.queue) == 0 {
		return queued{}, false
	}
	q := w.queue[0]
	w.queue[0] = queued{}
	w.queue = w.queue[1:]
	return q, true
}

func (w *worker) run() {
	defer w.n.wg.Done()
	ctx := w.n.ctx
	for {
		q, ok := w.pop()
		if !ok {
			w.n.mu.Lock()
			closed := w.n.closed
			w.n.mu.Unlock()
			if closed {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-w.wake:
				continue
			}
		}
		if !w.waitRate(ctx) {
			return
		}
		w.deliver(ctx, q)
	}
}

// waitRate waits until a send keeps the last minute within the limit.
func (w *worker) waitRate(ctx context.Context) bool {
	clock := w.n.opts.Clock
	for {
		now := clock.Now()
		i := 0
		for i < len(w.sends) && now.Sub(w.sends[i]) >= time.Minute {
			i++
		}
		w.sends = w.sends[i:]
		if len(w.sends) < w.n.opts.RatePerMinute {
			w.sends = append(w.sends, now)
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-clock.After(w.sends[0].Add(time.Minute).Sub(now)):
		}
	}
}

// deliver sends one event, retrying with exponential backoff.
func (w *worker) deliver(ctx context.Context, q queued) {
	wait := w.n.opts.Backoff
	var err error
	for attempt := 1; attempt <= w.n.opts.Attempts; attempt++ {
		if attempt > 1 {
			w.count(func(s *Stats) { s.Retries++ })
			select {
			case <-ctx.Done():
				w.count(func(s *Stats) { s.Failed++ })
				return
			case <-w.n.opts.Clock.After(wait):
			}
			wait *= 2
		}
		if err = w.sink.Send(ctx, q.ev, q.repeats); err == nil {
			w.count(func(s *Stats) { s.Sent++ })
			return
		}
		if errors.Is(err, ErrPermanent) {
			break
		}
	}
	w.count(func(s *Stats) { s.Failed++ })
	w.n.log.Warn("notification failed", slog.String("sink", w.sink.Name()), slog.String("kind", string(q.ev.Kind)), slog.Any("err", err))
}

func (w *worker) count(f func(*Stats)) {
	w.n.mu.Lock()
	f(&w.stats)
	w.n.mu.Unlock()
}

// dedupKey is what makes two events the same: kind, instance, text and
// fields (so two fills of equal size and price, told apart by their trade
// ids, are both sent).
func dedupKey(ev Event) string {
	var b strings.Builder
	b.WriteString(string(ev.Kind) + "\x00" + ev.Instance + "\x00" + ev.Text)
	for _, k := range slices.Sorted(maps.Keys(ev.Fields)) {
		b.WriteString("\x00" + k + "=" + ev.Fields[k])
	}
	return b.String()
}
