package simserver

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// A timestamp of math.MinInt64 made serverTime − timestamp overflow to a
// negative number, which passed "≤ recvWindow": one captured signed
// request could then be replayed forever.
func TestTimestampExtremesRefused(t *testing.T) {
	t.Parallel()
	_, hs, _ := protoServer(t, Options{Limits: Limits{Off: true}})
	for _, ts := range []string{"-9223372036854775808", "-9223372036854775807", "9223372036854775807", "-1", "0"} {
		q := "timestamp=" + ts
		st, body, _ := do(t, "GET", hs.URL+"/api/v3/account?"+q+"&signature="+sign(q), "", keyHdr)
		want := `{"code":700003,"msg":"request timestamp ` + ts + ` is outside the recvWindow (server time 1644489390087)"}`
		if st != 400 || body != want {
			t.Errorf("timestamp %s: %d %s, want 400 %s", ts, st, body, want)
		}
	}
	q := "timestamp=-9223372036854775808&recvWindow=59999"
	if st, body, _ := do(t, "GET", hs.URL+"/api/v3/account?"+q+"&signature="+sign(q), "", keyHdr); st != 400 || !strings.Contains(body, `"code":700003`) {
		t.Errorf("widest window: %d %s", st, body)
	}
}

// FuzzRecvWindow checks the window arithmetic against exact big-integer
// arithmetic for every timestamp, server time and window.
func FuzzRecvWindow(f *testing.F) {
	const minI, maxI = math.MinInt64, math.MaxInt64
	for _, c := range [][3]int64{
		{minI, 1644489390087, 5000}, {minI, 1644489390087, 59999}, {minI + 1, 0, 1}, {maxI, 1644489390087, 5000},
		{maxI, maxI, 1}, {minI, minI, 1}, {maxI, minI, 59999}, {minI, maxI, 59999}, {maxI - 999, maxI, 5000},
		{1644489385087, 1644489390087, 5000}, {1644489385086, 1644489390087, 5000}, {1644489391086, 1644489390087, 5000},
		{1644489391087, 1644489390087, 5000}, {0, 0, maxI}, {minI, 0, maxI}, {-1, maxI, maxI},
	} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, ts, server, window int64) {
		if window <= 0 {
			return // refused before the check (700005)
		}
		bt, bs, bw := big.NewInt(ts), big.NewInt(server), big.NewInt(window)
		upper := new(big.Int).Add(bs, big.NewInt(1000))
		age := new(big.Int).Sub(bs, bt)
		want := bt.Cmp(upper) < 0 && age.Cmp(bw) <= 0
		if got := inWindow(ts, server, window); got != want {
			t.Fatalf("inWindow(%d, %d, %d) = %v, want %v", ts, server, window, got, want)
		}
	})
}
