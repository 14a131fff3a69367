package reliability

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/simserver"
)

// A strategy is one worker's endpoint mix: it makes calls requests, the
// i-th with step(i).
type strategy struct {
	name  string
	calls int
	step  func(ctx context.Context, c *exchange.Client, i int) error
}

func bid(sym, qty, price string) exchange.NewOrder {
	return exchange.NewOrder{Symbol: sym, Side: exchange.SideBuy, Type: exchange.TypeLimit, Quantity: dec(qty), Price: dec(price)}
}

// burstStrategies are eight workers whose calls, taken together, ask for
// at least ten times every pool's budget at once: 3040 IP weight (300 per
// 10 s), 5000 UID weight (500 per 10 s), 120 order and cancel requests (12
// per s), 20 batches (2 per s) and 20 account reads (2 per s). Every order
// rests far from the market, so every request is answered 200.
func burstStrategies(known string) []strategy {
	place := func(sym, qty, price string) func(context.Context, *exchange.Client, int) error {
		return func(ctx context.Context, c *exchange.Client, _ int) error {
			_, err := c.Spot.NewOrder(ctx, bid(sym, qty, price))
			return err
		}
	}
	market := func(ctx context.Context, c *exchange.Client, i int) error {
		m := c.Market
		var err error
		switch i % 8 { // 80 IP weight per cycle
		case 0:
			_, err = m.Depth(ctx, "BTCUSDT", 5) // 3
		case 1:
			_, err = m.Trades(ctx, "BTCUSDT", 10) // 5
		case 2:
			_, err = m.Klines(ctx, exchange.KlinesRequest{Symbol: "BTCUSDT", Interval: exchange.Interval1m, Limit: 5}) // 1
		case 3:
			_, err = m.Ticker24h(ctx, "BTCUSDT") // 25
		case 4:
			_, err = m.ExchangeInfo(ctx, "BTCUSDT") // 25
		case 5:
			_, err = m.BookTicker(ctx, "XYZUSDT") // 10
		case 6:
			_, err = m.TickerPrice(ctx, "XYZUSDT") // 10
		case 7:
			_, err = m.AvgPrice(ctx, "BTCUSDT") // 1
		}
		return err
	}
	return []strategy{
		{"place BTCUSDT", 40, place("BTCUSDT", "0.001", "15000")},
		{"place XYZUSDT", 40, place("XYZUSDT", "20", "0.4")},
		{"place and cancel", 20, func(ctx context.Context, c *exchange.Client, i int) error {
			cid := fmt.Sprintf("pc-%d", i/2)
			if i%2 == 0 {
				o := bid("BTCUSDT", "0.001", "14000")
				o.NewClientOrderID = cid
				_, err := c.Spot.NewOrder(ctx, o)
				return err
			}
			_, err := c.Spot.CancelOrder(ctx, exchange.CancelOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: cid})
			return err
		}},
		{"batch", 20, func(ctx context.Context, c *exchange.Client, _ int) error {
			res, err := c.Spot.BatchOrders(ctx, []exchange.NewOrder{bid("BTCUSDT", "0.001", "13000"),
				bid("BTCUSDT", "0.002", "13000"), bid("BTCUSDT", "0.003", "13000")})
			for _, r := range res {
				if err == nil {
					err = r.Err()
				}
			}
			return err
		}},
		{"account", 20, func(ctx context.Context, c *exchange.Client, _ int) error {
			_, err := c.Spot.Account(ctx)
			return err
		}},
		{"queries", 520, func(ctx context.Context, c *exchange.Client, i int) error {
			s := c.Spot
			var err error
			switch i % 5 { // 45 UID weight per cycle
			case 0:
				_, err = s.AllOrders(ctx, exchange.AllOrdersRequest{Symbol: "BTCUSDT", Limit: 5}) // 10
			case 1:
				_, err = s.MyTrades(ctx, exchange.MyTradesRequest{Symbol: "BTCUSDT", Limit: 5}) // 10
			case 2:
				_, err = s.TradeFee(ctx, "BTCUSDT") // 20
			case 3:
				_, err = s.OpenOrders(ctx, "XYZUSDT") // 3
			case 4:
				_, err = s.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrderID: known}) // 2
			}
			return err
		}},
		{"market data A", 152, market},
		{"market data B", 152, market},
	}
}

// runBurst starts every strategy on its own goroutine at once through one
// client and returns the errors each call returned. Each worker tells vc
// when it is done, so a virtual clock stops waiting for it. stopOnLimit
// ends each worker at its own first 429 or 418; cancelling the others
// instead would leave replies the server sent unread.
func runBurst(ctx context.Context, c *exchange.Client, vc interface{ Done() }, strategies []strategy, stopOnLimit bool) []error {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, st := range strategies {
		wg.Go(func() {
			defer vc.Done()
			for i := range st.calls {
				if ctx.Err() != nil {
					return
				}
				if err := st.step(ctx, c, i); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s call %d: %w", st.name, i, err))
					mu.Unlock()
					if stopOnLimit && errors.Is(err, exchange.ErrRateLimited) {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// burstRig is a rig whose server and client share a virtual clock for the
// burst's workers, with one resting order placed directly in the simulator
// for the queries to look up.
func burstRig(t *testing.T, workers int, opts ...exchange.Option) (*rig, *exchange.Client, *vclock, string) {
	t.Helper()
	vc := newVClock(time.UnixMilli(1700000000000), workers)
	r := newRig(t, simserver.Options{Clock: vc})
	ack, err := r.x.Master().PlaceOrder(t.Context(), bid("BTCUSDT", "0.001", "12000"))
	must(t, err)
	c := r.client(t, masterKey, masterSecret, append([]exchange.Option{exchange.WithClock(vc)}, opts...)...)
	return r, c, vc, ack.OrderID
}

// TestBurstTenTimesTheBudget pushes ten times every budget through one
// client from eight goroutines at a server enforcing the spec's limits,
// and checks from the server's request log that no request was refused and
// that no window of any pool, anchored at any request, held more than the
// pool allows.
func TestBurstTenTimesTheBudget(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	r, c, vc, known := burstRig(t, 8)
	strategies := burstStrategies(known)
	start := vc.Now()
	wall := time.Now()
	errs := runBurst(ctx, c, vc, strategies, false)
	for _, err := range errs {
		t.Error(err)
	}
	log := r.s.Requests()
	calls := 0
	for _, st := range strategies {
		calls += st.calls
	}
	if len(log) != calls {
		t.Fatalf("server logged %d requests, the workers made %d", len(log), calls)
	}
	for _, l := range log {
		if l.Status != 200 {
			t.Fatalf("%s at %s answered %d code %d", l.Endpoint, l.Time.Format(time.StampMilli), l.Status, l.Code)
		}
	}
	report, excess := checkWindows(log, exchange.DefaultLimits())
	for _, e := range excess {
		t.Error(e)
	}
	for _, p := range report {
		// Ten times the budget cannot fit in fewer than ten windows, and
		// the client should use its budget, not idle: the first window
		// is filled to within one request of the limit.
		if p.drawn < 10*p.limit.Max {
			t.Errorf("%s: only %d drawn, want ten times %d", p.limit.Pool, p.drawn, p.limit.Max)
		}
		minSpan := time.Duration(ceilDiv(p.drawn, p.limit.Max)-1) * p.limit.Window
		if p.span < minSpan {
			t.Errorf("%s: %d drawn within %s, want at least %s", p.limit.Pool, p.drawn, p.span, minSpan)
		}
		if p.peak <= p.limit.Max-p.maxDraw {
			t.Errorf("%s: peak window %d, the client left more than one request of %d unused", p.limit.Pool, p.peak, p.limit.Max)
		}
		t.Logf("%-7s drawn %4d in %4d requests over %6.1fs, peak window %3d of %3d", p.limit.Pool, p.drawn, p.requests,
			p.span.Seconds(), p.peak, p.limit.Max)
	}
	t.Logf("%d requests, %s of virtual time in %s of wall time; client waited %s on its budget",
		len(log), vc.Now().Sub(start), time.Since(wall).Round(time.Millisecond), c.Budget().Waited())
}

// TestBurstWithoutClientBudgetsDraws429 runs the same burst with the
// client's budgets off: the server must refuse it with 429, which is what
// makes the test above able to fail.
func TestBurstWithoutClientBudgetsDraws429(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	r, c, vc, known := burstRig(t, 8, exchange.WithLimits(nil))
	errs := runBurst(ctx, c, vc, burstStrategies(known), true)
	var server429, bans int
	for _, err := range errs {
		var rl *exchange.RateLimitError
		var ban *exchange.BanError
		switch {
		case errors.As(err, &rl) && !rl.Local:
			server429++
		case errors.As(err, &ban):
			bans++
		default:
			t.Errorf("not a rate limit: %v", err)
		}
	}
	var logged429, logged418 int
	for _, l := range r.s.Requests() {
		switch {
		case l.Status == 429 && l.Code == exchange.CodeTooManyRequests:
			logged429++
		case l.Status == 418:
			logged418++
		}
	}
	if server429 == 0 || logged429 != server429 || logged418 != bans {
		t.Fatalf("client saw %d server 429s and %d bans, the server logged %d and %d; errors: %v", server429, bans, logged429, logged418, errs)
	}
	t.Logf("without client budgets: %d 429s and %d 418s", server429, bans)

	// Deterministically: without budgets, the 13th order inside one second
	// is the first refused, from the order pool, with Retry-After.
	r2, c2, vc2, _ := burstRig(t, 1, exchange.WithLimits(nil))
	defer vc2.Done()
	for i := range 13 {
		_, err := c2.Spot.NewOrder(ctx, bid("BTCUSDT", "0.001", "15000"))
		var rl *exchange.RateLimitError
		switch {
		case i < 12 && err != nil:
			t.Fatalf("order %d: %v", i+1, err)
		case i == 12 && (!errors.As(err, &rl) || rl.Local || rl.RetryAfter != time.Second):
			t.Fatalf("order 13: %#v, want a server 429 with Retry-After 1s", err)
		}
	}
	log := r2.s.Requests()
	if last := log[len(log)-1]; len(log) != 13 || last.Status != 429 || last.Code != exchange.CodeTooManyRequests {
		t.Fatalf("server log: %d requests, last %+v", len(log), log[len(log)-1])
	}
}
