package reliability

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/simserver"
)

// poolReport sums up one pool over a server log.
type poolReport struct {
	limit    exchange.Limit
	requests int           // requests that drew from the pool
	drawn    int           // units drawn in all
	maxDraw  int           // the largest single draw
	peak     int           // the fullest window
	span     time.Duration // first to last draw
}

// draw is one logged request's draw on one pool, for one counter (an IP
// for the IP pool, an account for the others, as the server counts).
type draw struct {
	at     time.Time
	amount int
}

// checkWindows reports every window of any limit, ending at any logged
// request, that holds more than the limit. A window ending at t covers
// (t-Window, t], as the server counts. Requests the server refused with
// 429 or 418 are not counted (the server does not count them either).
func checkWindows(log []simserver.Logged, limits []exchange.Limit) (out []poolReport, excess []string) {
	for _, l := range limits {
		byWho := map[string][]draw{}
		rep := poolReport{limit: l}
		for _, r := range log {
			if r.Endpoint == 0 || r.Status == 429 || r.Status == 418 {
				continue
			}
			ep, _ := exchange.Lookup(r.Endpoint)
			for _, d := range ep.Draws {
				if d.Pool != l.Pool {
					continue
				}
				who := r.UID
				if l.Pool == exchange.PoolIP {
					who = r.IP
				}
				byWho[who] = append(byWho[who], draw{r.Time, d.Amount})
				rep.requests++
				rep.drawn += d.Amount
				rep.maxDraw = max(rep.maxDraw, d.Amount)
			}
		}
		for who, ds := range byWho {
			sort.SliceStable(ds, func(i, j int) bool { return ds[i].at.Before(ds[j].at) })
			rep.span = max(rep.span, ds[len(ds)-1].at.Sub(ds[0].at))
			// Two pointers: lo is the first draw inside the window ending
			// at the last draw of the group of equal times ending at hi.
			lo, sum := 0, 0
			for hi := 0; hi < len(ds); hi++ {
				sum += ds[hi].amount
				if hi+1 < len(ds) && ds[hi+1].at.Equal(ds[hi].at) {
					continue
				}
				for !ds[lo].at.After(ds[hi].at.Add(-l.Window)) {
					sum -= ds[lo].amount
					lo++
				}
				if sum > l.Max {
					excess = append(excess, fmt.Sprintf("pool %s (%s): %d drawn in the %s window ending %s, limit %d", l.Pool, who, sum,
						l.Window, ds[hi].at.Format(time.StampMilli), l.Max))
				}
				rep.peak = max(rep.peak, sum)
			}
		}
		out = append(out, rep)
	}
	return out, excess
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// TestCheckWindowsFindsAnExcess proves the checker catches a window that
// is over only when anchored off the aligned grid, and accepts the same
// draws spaced exactly one window apart.
func TestCheckWindowsFindsAnExcess(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1700000000000)
	limit := []exchange.Limit{{Pool: exchange.PoolOrder, Max: 2, Window: time.Second}}
	logAt := func(ms ...int) []simserver.Logged {
		var out []simserver.Logged
		for _, m := range ms {
			out = append(out, simserver.Logged{Time: t0.Add(time.Duration(m) * time.Millisecond), Endpoint: exchange.EpNewOrder,
				UID: "1000", IP: "127.0.0.1", Status: 200})
		}
		return out
	}
	// 900, 1100 and 1800 ms: aligned seconds [0,1) and [1,2) hold one and
	// two, but the window (800, 1800] holds all three.
	rep, excess := checkWindows(logAt(900, 1100, 1800), limit)
	want := "pool order (1000): 3 drawn in the 1s window ending " + t0.Add(1800*time.Millisecond).Format(time.StampMilli) + ", limit 2"
	if len(excess) != 1 || excess[0] != want || rep[0].peak != 3 {
		t.Fatalf("excess %q, peak %d; want %q", excess, rep[0].peak, want)
	}
	rep, excess = checkWindows(logAt(0, 0, 1000, 1000, 2000), limit)
	if len(excess) != 0 || rep[0].peak != 2 || rep[0].drawn != 5 || rep[0].span != 2*time.Second || rep[0].requests != 5 {
		t.Fatalf("excess %q, report %+v", excess, rep[0])
	}
	// A refused request draws nothing.
	refused := logAt(0, 0, 0)
	refused[2].Status = 429
	if rep, excess = checkWindows(refused, limit); len(excess) != 0 || rep[0].drawn != 2 {
		t.Fatalf("refused request counted: %q %+v", excess, rep[0])
	}
}
