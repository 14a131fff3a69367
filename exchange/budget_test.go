package exchange

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// admission is one admitted request: when, and what it drew.
type admission struct {
	at    time.Time
	draws []Draw
}

// checkWindows verifies that every window of every pool, anchored at each
// admission, holds at most the pool's limit.
func checkWindows(t *testing.T, adm []admission, limits []Limit) {
	t.Helper()
	for _, l := range limits {
		for i := range adm {
			sum := 0
			for j := i; j < len(adm) && adm[j].at.Sub(adm[i].at) < l.Window; j++ {
				for _, d := range adm[j].draws {
					if d.Pool == l.Pool {
						sum += d.Amount
					}
				}
			}
			if sum > l.Max {
				t.Fatalf("pool %s: %d drawn in the %s window from %s (limit %d)", l.Pool, sum, l.Window, adm[i].at.Format(time.StampMilli), l.Max)
			}
		}
	}
}

func TestBudgetHoldsInEveryWindow(t *testing.T) {
	t.Parallel()
	eps := Endpoints()
	limits := DefaultLimits()
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, seed*7919))
		clk := newFakeClock(time.Unix(1700000000, 0))
		b, err := NewBudget(clk, BudgetWait, 0, limits)
		if err != nil {
			t.Fatal(err)
		}
		var adm []admission
		for range 600 {
			e := eps[rng.IntN(len(eps))]
			// Bursts (no gap) mixed with pauses up to 2 s.
			if rng.IntN(4) == 0 {
				clk.Advance(time.Duration(rng.IntN(2000)) * time.Millisecond)
			}
			before := clk.Now()
			fits := b.Peek(e.ID) == 0
			if err := b.Acquire(context.Background(), e.ID, e.Draws); err != nil {
				t.Fatal(err)
			}
			if fits && !clk.Now().Equal(before) {
				t.Fatalf("seed %d: %s waited although it fit", seed, e.Name)
			}
			adm = append(adm, admission{at: clk.Now(), draws: e.Draws})
		}
		checkWindows(t, adm, limits)
	}
}

func TestBudgetConcurrent(t *testing.T) {
	t.Parallel()
	limits := []Limit{{PoolOrder, 5, 200 * time.Millisecond}}
	b, err := NewBudget(SystemClock{}, BudgetWait, 0, limits)
	if err != nil {
		t.Fatal(err)
	}
	ep := endpoint(EpNewOrder)
	var mu sync.Mutex
	var adm []admission
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				if err := b.Acquire(context.Background(), EpNewOrder, ep.Draws); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				adm = append(adm, admission{at: time.Now(), draws: []Draw{{PoolOrder, 1}}})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(adm) != 24 {
		t.Fatalf("%d admissions", len(adm))
	}
	// Admission times are taken after Acquire returns, so allow the
	// scheduling slack of a few milliseconds by shrinking the window.
	checkWindows(t, sortAdm(adm), []Limit{{PoolOrder, 5, 190 * time.Millisecond}})
	if b.Waited() <= 0 {
		t.Error("no waiting recorded")
	}
}

func sortAdm(a []admission) []admission {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].at.Before(a[j-1].at); j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	return a
}

func TestBudgetFailFastAndCancel(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(time.Unix(1700000000, 0))
	b, _ := NewBudget(clk, BudgetFailFast, 0, DefaultLimits())
	ep := endpoint(EpAccount)
	ctx := context.Background()
	for range 2 {
		if err := b.Acquire(ctx, EpAccount, ep.Draws); err != nil {
			t.Fatal(err)
		}
	}
	err := b.Acquire(ctx, EpAccount, ep.Draws)
	var rl *RateLimitError
	if !errors.As(err, &rl) || !rl.Local || rl.Pool != PoolAccount || rl.RetryAfter != time.Second {
		t.Fatalf("fail fast: %#v", err)
	}
	u := b.Usage()
	if len(u) != 5 || u[1].Pool != PoolUID || u[1].Used != 20 || u[4].Pool != PoolAccount || u[4].Used != 2 {
		t.Errorf("usage %+v", u)
	}
	if err := b.Acquire(ctx, EpAccount, []Draw{{PoolUID, 501}}); err == nil {
		t.Error("draw above the limit admitted")
	}
	// A waiting Acquire returns when its context ends.
	w, _ := NewBudget(SystemClock{}, BudgetWait, 0, []Limit{{PoolOrder, 1, time.Hour}})
	w.Acquire(ctx, EpNewOrder, endpoint(EpNewOrder).Draws)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := w.Acquire(cctx, EpNewOrder, endpoint(EpNewOrder).Draws); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Errorf("cancel: %v after %s", err, time.Since(start))
	}
	if _, err := NewBudget(clk, BudgetWait, 0, []Limit{{PoolIP, 0, time.Second}}); err == nil {
		t.Error("zero limit accepted")
	}
}

// TestRetryAfterStopsEveryCaller: after a 418 with Retry-After: 1, no
// goroutine sends anything until the second has passed; after a 429 nothing
// is sent until the endpoint's pools have had a whole window (the IP
// weight's 10 s), since the server's count, not the client's, is the truth.
func TestRetryAfterStopsEveryCaller(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		pause  time.Duration
	}{{418, time.Second}, {429, 10 * time.Second}} {
		status := tt.status
		clk := newFakeClock(testNow)
		c, mux := setup(t, WithClock(clk), WithLimits(DefaultLimits()), WithBudgetMargin(0))
		var first atomic.Bool
		var mu sync.Mutex
		var times []time.Time
		var limited time.Time
		handle(t, mux, EpPing, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			times = append(times, clk.Now())
			mu.Unlock()
			if !first.Swap(true) {
				mu.Lock()
				limited = clk.Now()
				mu.Unlock()
				w.Header().Set("Retry-After", "1")
				reply(w, status, `{"code":429,"msg":"slow down"}`)
				return
			}
			reply(w, 200, `{}`)
		})
		ctx := t.Context()
		if err := c.Market.Ping(ctx); !errors.Is(err, ErrRateLimited) {
			t.Fatalf("status %d: %v", status, err)
		}
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := c.Market.Ping(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		mu.Lock()
		if len(times) != 9 {
			t.Fatalf("status %d: %d requests", status, len(times))
		}
		for _, at := range times[1:] {
			if at.Sub(limited) < tt.pause {
				t.Errorf("status %d: a request came %s after the %d, want ≥ %s", status, at.Sub(limited), status, tt.pause)
			}
		}
		mu.Unlock()
	}
}

// With WithRateLimitRetries a request the server refused with 429 is sent
// again, timestamped and signed anew, once a window of its pools has
// passed; a 418 ban is never resent.
func TestRateLimitRetries(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status, retries, want int // want: requests the server saw
		ok                    bool
	}{
		{429, 0, 1, false},
		{429, 2, 2, true},
		{418, 2, 1, false},
	} {
		clk := newFakeClock(testNow)
		c, mux := setup(t, WithClock(clk), WithLimits(DefaultLimits()), WithBudgetMargin(0), WithRateLimitRetries(tt.retries))
		var mu sync.Mutex
		var seen []string
		var at []time.Time
		handle(t, mux, EpAccount, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, r.URL.RawQuery)
			at = append(at, clk.Now())
			if len(seen) == 1 {
				w.Header().Set("Retry-After", "1")
				reply(w, tt.status, `{"code":429,"msg":"slow down"}`)
				return
			}
			reply(w, 200, `{"canTrade":true,"balances":[]}`)
		})
		_, err := c.Spot.Account(t.Context())
		if (err == nil) != tt.ok || len(seen) != tt.want {
			t.Fatalf("status %d retries %d: err %v after %d requests", tt.status, tt.retries, err, len(seen))
		}
		if len(seen) == 2 {
			if seen[0] == seen[1] {
				t.Error("the resend reused the first request's timestamp and signature")
			}
			// The account endpoint draws from the UID weight (10 s) and
			// the account pool (1 s): the resend waits the longer.
			if d := at[1].Sub(at[0]); d < 10*time.Second {
				t.Errorf("resent %s after the 429, want ≥ 10s", d)
			}
		}
	}
}
