package store

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/exchange/exchangetest"
	"github.com/spotbot/spotbot/exchange/sim"
)

// simWithBars is a simulated exchange that has traded n one-hour BTCUSDT
// bars from start, with the bars at the skip indexes missing (maintenance
// gaps), and whose clock is at the close of the last bar plus extra.
func simWithBars(t *testing.T, start time.Time, n int, extra time.Duration, skip ...int) (*sim.Exchange, []exchange.Kline) {
	t.Helper()
	x, err := sim.New(sim.Options{Start: start, Symbols: exchangetest.Symbols()})
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[int]bool{}
	for _, i := range skip {
		skipped[i] = true
	}
	var fed []exchange.Kline
	for i := range n {
		if skipped[i] {
			continue
		}
		open := start.Add(time.Duration(i) * time.Hour)
		p := dec("20000").Add(dec("0.25").Mul(dec(itoa(int64(i % 40)))))
		k := exchange.Kline{OpenTime: open, Open: p, High: p.Add(dec("5.5")), Low: p.Sub(dec("4.75")), Close: p.Add(dec("1")),
			Volume: dec("3.21"), QuoteVolume: dec("64200.5"), CloseTime: open.Add(time.Hour - time.Millisecond)}
		if err := x.FeedKline("BTCUSDT", exchange.Interval60m, k); err != nil {
			t.Fatal(err)
		}
		fed = append(fed, k)
	}
	x.Advance(extra)
	return x, fed
}

// countingTrader counts klines requests and fails the one numbered failAt
// (1-based; 0 never).
type countingTrader struct {
	exchange.Trader
	mu       sync.Mutex
	calls    int
	failAt   int
	requests []exchange.KlinesRequest
}

func (c *countingTrader) Klines(ctx context.Context, r exchange.KlinesRequest) ([]exchange.Kline, error) {
	c.mu.Lock()
	c.calls++
	n := c.calls
	c.requests = append(c.requests, r)
	c.mu.Unlock()
	if n == c.failAt {
		return nil, exchange.ErrUnknownOutcome
	}
	return c.Trader.Klines(ctx, r)
}

func TestDownload(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	// 1,300 bars with a 3-hour gap; the clock is 30 minutes into the bar
	// after the last, which is not closed and is not fed.
	x, fed := simWithBars(t, start, 1300, 30*time.Minute, 700, 701, 702)
	s := memStore(t)
	tr := &countingTrader{Trader: x.Master()}
	var reports []DownloadProgress
	res, err := s.Download(t.Context(), tr, DownloadRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m, From: start},
		func(p DownloadProgress) { reports = append(reports, p) })
	if err != nil {
		t.Fatal(err)
	}
	wantEnd := start.Add(1300 * time.Hour)
	if res.Inserted != 1297 || res.Requests != 3 || !res.Start.Equal(start) || !res.End.Equal(wantEnd) || !res.Last.Equal(wantEnd.Add(-time.Hour)) {
		t.Fatalf("result = %+v", res)
	}
	for i, r := range tr.requests {
		wantStart := start.Add(time.Duration(500*i) * time.Hour)
		wantWindow := wantStart.Add(500 * time.Hour)
		if wantWindow.After(wantEnd) {
			wantWindow = wantEnd
		}
		if r.Symbol != "BTCUSDT" || r.Interval != exchange.Interval60m || r.Limit != 500 || !r.Start.Equal(wantStart) ||
			!r.End.Equal(wantWindow.Add(-time.Millisecond)) {
			t.Errorf("request %d = %+v", i, r)
		}
	}
	if len(reports) != 4 || reports[0].Done != 0 || reports[0].Total != 1300 || reports[3].Done != 1300 || reports[3].Requests != 3 ||
		reports[1].Done != 500 || !reports[3].Last.Equal(res.Last) {
		t.Errorf("progress = %+v", reports)
	}
	got, _ := s.Klines(t.Context(), "BTCUSDT", exchange.Interval60m, time.Time{}, time.Time{})
	if len(got) != len(fed) {
		t.Fatalf("stored %d bars, want %d", len(got), len(fed))
	}
	for i := range fed {
		if !got[i].OpenTime.Equal(fed[i].OpenTime) || decText(got[i].High) != decText(fed[i].High) || decText(got[i].QuoteVolume) != "64200.5" ||
			!got[i].CloseTime.Equal(fed[i].CloseTime) {
			t.Fatalf("bar %d = %+v, want %+v", i, got[i], fed[i])
		}
	}
	// Nothing new: a rerun asks for nothing.
	tr2 := &countingTrader{Trader: x.Master()}
	res, err = s.Download(t.Context(), tr2, DownloadRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m, From: start}, nil)
	if err != nil || res.Requests != 0 || res.Inserted != 0 || tr2.calls != 0 {
		t.Fatalf("rerun: %+v %v", res, err)
	}
}

// earlyClock reports a server time before the simulator's, so the last bar
// the exchange holds is still open.
type earlyClock struct {
	exchange.Trader
	now time.Time
}

func (e earlyClock) ServerTime(context.Context) (time.Time, error) { return e.now, nil }

func TestDownloadOnlyClosedBars(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	x, _ := simWithBars(t, start, 10, 0)
	s := memStore(t)
	// 09:59:59.999 is inside the bar opening at 09:00: it is not closed.
	tr := earlyClock{Trader: x.Master(), now: start.Add(10*time.Hour - time.Millisecond)}
	res, err := s.Download(t.Context(), tr, DownloadRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m, From: start}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted != 9 || !res.Last.Equal(start.Add(8*time.Hour)) || !res.End.Equal(start.Add(9*time.Hour)) {
		t.Fatalf("result = %+v", res)
	}
	// At 10:00 it has closed; a rerun fetches just that bar.
	tr.now = start.Add(10 * time.Hour)
	res, err = s.Download(t.Context(), tr, DownloadRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m, From: start}, nil)
	if err != nil || res.Inserted != 1 || res.Requests != 1 || !res.Last.Equal(start.Add(9*time.Hour)) {
		t.Fatalf("rerun = %+v, %v", res, err)
	}
	// A from inside a bar starts at the next bar.
	res, err = memStore(t).Download(t.Context(), tr, DownloadRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m, From: start.Add(90 * time.Minute), To: start.Add(3 * time.Hour)}, nil)
	if err != nil || !res.Start.Equal(start.Add(2*time.Hour)) || res.Inserted != 1 || !res.Last.Equal(start.Add(2*time.Hour)) {
		t.Fatalf("unaligned from = %+v, %v", res, err)
	}
}

func TestDownloadResumesWithoutDuplicates(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	x, fed := simWithBars(t, start, 1800, 0)
	s := memStore(t)
	ctx := t.Context()
	req := DownloadRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m, From: start, To: start.Add(1700 * time.Hour)}
	failing := &countingTrader{Trader: x.Master(), failAt: 3}
	res, err := s.Download(ctx, failing, req, nil)
	want := "store: download BTCUSDT 60m interrupted (stored through 2024-02-11T15:00:00Z; run it again to resume): " + exchange.ErrUnknownOutcome.Error()
	if !errors.Is(err, exchange.ErrUnknownOutcome) || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
	if res.Inserted != 1000 {
		t.Fatalf("inserted %d before the failure", res.Inserted)
	}
	// Resume: starts after the last stored bar, fetches each bar once.
	tr := &countingTrader{Trader: x.Master()}
	res, err = s.Download(ctx, tr, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted != 700 || res.Requests != 2 || !res.Start.Equal(start.Add(1000*time.Hour)) || !tr.requests[0].Start.Equal(start.Add(1000*time.Hour)) {
		t.Fatalf("resume = %+v, first request %+v", res, tr.requests[0])
	}
	got, _ := s.Klines(ctx, "BTCUSDT", exchange.Interval60m, time.Time{}, time.Time{})
	if len(got) != 1700 {
		t.Fatalf("%d bars stored, want 1700", len(got))
	}
	for i := range got {
		if !got[i].OpenTime.Equal(fed[i].OpenTime) {
			t.Fatalf("bar %d at %s, want %s", i, got[i].OpenTime, fed[i].OpenTime)
		}
	}
}

func TestDownloadCancelled(t *testing.T) {
	t.Parallel()
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	x, _ := simWithBars(t, start, 1200, 0)
	s := memStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	tr := &countingTrader{Trader: x.Master()}
	res, err := s.Download(ctx, tr, DownloadRequest{Symbol: "BTCUSDT", Interval: exchange.Interval60m, From: start}, func(p DownloadProgress) {
		if p.Requests == 1 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || tr.calls != 1 || res.Inserted != 500 {
		t.Fatalf("error = %v after %d requests, %d bars", err, tr.calls, res.Inserted)
	}
	if last, ok, _ := s.LastKline(t.Context(), "BTCUSDT", exchange.Interval60m); !ok || !last.OpenTime.Equal(start.Add(499*time.Hour)) {
		t.Fatalf("last stored = %v %v", last.OpenTime, ok)
	}
}

func TestDownloadBadRequest(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		req  DownloadRequest
		want string
	}{
		{DownloadRequest{Interval: "60m", From: start}, "store: download: no symbol"},
		{DownloadRequest{Symbol: "BTCUSDT", Interval: "1h", From: start}, `store: download: interval "1h" is not one of 1m 5m 15m 30m 60m 4h 1d 1W 1M`},
		{DownloadRequest{Symbol: "BTCUSDT", Interval: "60m"}, "store: download: no start time"},
		{DownloadRequest{Symbol: "BTCUSDT", Interval: "60m", From: start, To: start}, "store: download: the range ends (2024-01-01T00:00:00Z) before it starts (2024-01-01T00:00:00Z)"},
	}
	for _, tt := range tests {
		if _, err := s.Download(t.Context(), nil, tt.req, nil); err == nil || err.Error() != tt.want {
			t.Errorf("%+v: %v, want %q", tt.req, err, tt.want)
		}
	}
	// A symbol the exchange does not list.
	x, _ := simWithBars(t, start, 2, 0)
	_, err := s.Download(t.Context(), x.Master(), DownloadRequest{Symbol: "NOPE", Interval: "60m", From: start}, nil)
	var api *exchange.APIError
	if !errors.As(err, &api) || api.Code != exchange.CodeBadSymbol || !strings.HasPrefix(err.Error(), "store: download NOPE 60m interrupted (nothing stored yet; run it again to resume): ") {
		t.Fatalf("unknown symbol: %v", err)
	}
}

func TestCountBars(t *testing.T) {
	t.Parallel()
	jan := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		iv       exchange.Interval
		from, to time.Time
		want     int
	}{
		{exchange.Interval60m, jan, jan.Add(24 * time.Hour), 24},
		{exchange.Interval60m, jan, jan.Add(90 * time.Minute), 2},
		{exchange.Interval1M, jan, jan.AddDate(1, 0, 0), 12},
		{exchange.Interval1d, jan, jan, 0},
	}
	for _, tt := range tests {
		if got := countBars(tt.iv, tt.from, tt.to); got != tt.want {
			t.Errorf("countBars(%s, %s, %s) = %d, want %d", tt.iv, tt.from, tt.to, got, tt.want)
		}
	}
}
