package simserver

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// faultScene is a served exchange with BTCUSDT at 20000 and a master
// account holding 10000 USDT.
func faultScene(t *testing.T) *served {
	t.Helper()
	sv := serve(t, sim.Options{MarketFill: sim.Immediate}, Options{Limits: Limits{Off: true}})
	if err := sv.x.FeedKline("BTCUSDT", exchange.Interval1m, exchangetest.Bar(0, "20000", "20000", "20000", "20000")); err != nil {
		t.Fatal(err)
	}
	if err := sv.x.Credit(sv.uids[0], "USDT", dec("10000")); err != nil {
		t.Fatal(err)
	}
	return sv
}

func TestFaultsThroughTheClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fault      Fault
		wantStatus int  // the *UnknownOutcomeError's HTTP status; 0 for a dropped connection
		exists     bool // the order was placed despite the error
	}{
		{"5XX before acting", Fault{Before5XX: 1}, 503, false},
		{"5XX after acting", Fault{After5XX: 1}, 503, true},
		{"dropped connection after acting", Fault{DropAfter: 1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sv := faultScene(t)
			ctx := t.Context()
			sv.s.SetFaults(Faults{Seed: 7, ByEndpoint: map[exchange.EndpointID]Fault{exchange.EpNewOrder: tt.fault}})
			o := lim(exchange.SideBuy, "0.1", "19000")
			o.NewClientOrderID = "f-1"
			_, err := sv.master.Spot.NewOrder(ctx, o)
			var uo *exchange.UnknownOutcomeError
			if !errors.As(err, &uo) || uo.Status != tt.wantStatus || !errors.Is(err, exchange.ErrUnknownOutcome) {
				t.Fatalf("error %v, want an unknown outcome with HTTP status %d", err, tt.wantStatus)
			}
			// The runtime resolves the outcome by the client order id.
			got, err := sv.master.Spot.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: "f-1"})
			acct, aerr := sv.master.Spot.Account(ctx)
			if aerr != nil {
				t.Fatal(aerr)
			}
			usdt := acct.Balance("USDT")
			if tt.exists {
				if err != nil || got.Status != exchange.StatusNew || got.OrigQty.String() != "0.1" {
					t.Errorf("order after the fault: %+v %v", got, err)
				}
				if usdt.Free.String() != "8100" || usdt.Locked.String() != "1900" {
					t.Errorf("balance %s/%s, want 8100/1900", usdt.Free, usdt.Locked)
				}
			} else {
				if !exchange.HasCode(err, exchange.CodeUnknownOrder) {
					t.Errorf("order after a 5XX before acting: %+v %v", got, err)
				}
				if usdt.Free.String() != "10000" || !usdt.Locked.IsZero() {
					t.Errorf("balance %s/%s, want 10000/0", usdt.Free, usdt.Locked)
				}
			}
		})
	}
}

func TestLatencyFault(t *testing.T) {
	t.Parallel()
	sv := faultScene(t)
	ctx := t.Context()
	sv.s.SetFaults(Faults{ByEndpoint: map[exchange.EndpointID]Fault{exchange.EpNewOrder: {Latency: 40 * time.Millisecond}}})
	start := time.Now()
	if _, err := sv.master.Spot.NewOrder(ctx, lim(exchange.SideBuy, "0.1", "19000")); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 40*time.Millisecond {
		t.Errorf("reply after %s, want at least the 40ms latency", took)
	}
	// A client that gives up during the latency leaves nothing behind: the
	// server acts only after the delay, and not at all once the request is
	// gone.
	impatient, err := exchange.New(exchange.WithBaseURL(sv.url), exchange.WithCredentials(exchange.NewSecret(apiKey), exchange.NewSecret(secret)),
		exchange.WithClock(sv.x), exchange.WithLimits(nil), exchange.WithTimeout(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	sv.s.SetFaults(Faults{ByEndpoint: map[exchange.EndpointID]Fault{exchange.EpNewOrder: {Latency: 300 * time.Millisecond}}})
	o := lim(exchange.SideBuy, "0.1", "19000")
	o.NewClientOrderID = "slow"
	if _, err := impatient.Spot.NewOrder(ctx, o); !errors.Is(err, exchange.ErrUnknownOutcome) {
		t.Errorf("timed-out order: %v, want an unknown outcome", err)
	}
	sv.s.SetFaults(Faults{})
	if _, err := sv.master.Spot.QueryOrder(ctx, exchange.QueryOrderRequest{Symbol: "BTCUSDT", OrigClientOrderID: "slow"}); !exchange.HasCode(err, exchange.CodeUnknownOrder) {
		t.Errorf("the abandoned order exists: %v", err)
	}
}

func TestStorm429AndClockOffset(t *testing.T) {
	t.Parallel()
	sv := faultScene(t)
	ctx := t.Context()
	sv.s.SetFaults(Faults{Storm429Until: exchangetest.T0.Add(5 * time.Minute)})
	for i := range 3 {
		_, err := sv.master.Spot.Account(ctx)
		var rl *exchange.RateLimitError
		if !errors.As(err, &rl) || rl.RetryAfter != time.Second || !errors.Is(err, exchange.ErrRateLimited) {
			t.Fatalf("request %d in the storm: %v", i, err)
		}
	}
	sv.x.SetTime(exchangetest.T0.Add(5 * time.Minute))
	if _, err := sv.master.Spot.Account(ctx); err != nil {
		t.Errorf("after the storm: %v", err)
	}
	// A server clock 10 s behind the client's refuses its timestamps
	// (700003, HTTP 400); the client syncs to it and sends once more.
	sv.s.SetFaults(Faults{ClockOffset: -10 * time.Second})
	before := len(sv.s.Requests())
	if _, err := sv.master.Spot.Account(ctx); err != nil {
		t.Fatalf("skewed server: %v", err)
	}
	var seen []string
	for _, r := range sv.s.Requests()[before:] {
		seen = append(seen, fmt.Sprintf("%s %d %d", r.Endpoint, r.Status, r.Code))
	}
	if got := strings.Join(seen, "; "); got != "account 400 700003; time 200 0; account 200 0" {
		t.Errorf("requests %s", got)
	}
	if off := sv.master.ClockOffset(); off != -10*time.Second {
		t.Errorf("client offset %s, want -10s", off)
	}
	if st, err := sv.master.Market.ServerTime(ctx); err != nil || !st.Equal(sv.x.Now().Add(-10*time.Second)) {
		t.Errorf("server time %s %v", st, err)
	}
}
