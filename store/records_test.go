package store

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestStrategyState(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	if _, ok, err := s.LoadState(ctx, "grid-1"); ok || err != nil {
		t.Fatalf("empty: %v %v", ok, err)
	}
	for _, v := range []string{`{"level":1}`, `{"level":2}`, `{"level":3}`} {
		if err := s.SaveState(ctx, "grid-1", []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	st, ok, err := s.State(ctx, "grid-1")
	if err != nil || !ok || string(st.Data) != `{"level":3}` || st.Version != 3 || !st.Updated.Equal(t0) {
		t.Fatalf("state = %+v %v %v", st, ok, err)
	}
	b, ok, _ := s.LoadState(ctx, "grid-1")
	if !ok || string(b) != `{"level":3}` {
		t.Fatalf("LoadState = %s", b)
	}
	if err := s.SaveState(ctx, "empty", nil); err != nil {
		t.Fatal(err)
	}
	if b, ok, _ := s.LoadState(ctx, "empty"); !ok || len(b) != 0 {
		t.Fatalf("empty state = %q %v", b, ok)
	}
}

func TestJobRuns(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	runs := []strategy.Run{
		{Instance: "dca", Schedule: "weekly", Scheduled: t0.Add(time.Hour), Start: t0.Add(time.Hour), End: t0.Add(time.Hour + time.Second),
			Orders: []string{"dca-a1", "dca-a2"}},
		{Instance: "dca", Schedule: "weekly", Scheduled: t0, Start: t0, End: t0.Add(2 * time.Second), Err: errors.New("insufficient balance")},
		{Instance: "dust", Schedule: "daily", Scheduled: t0, Start: t0, End: t0},
	}
	for _, r := range runs {
		if err := s.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RecordJobRun(ctx, JobRun{Job: "convert-dust", Scheduled: t0, Start: t0, End: t0, OK: true, Details: "3 assets"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.JobRuns(ctx, "weekly")
	if err != nil || len(got) != 2 {
		t.Fatalf("runs: %+v %v", got, err)
	}
	if r := got[0]; r.Instance != "dca" || r.OK || r.Details != "insufficient balance; no orders" || !r.Scheduled.Equal(t0) || !r.End.Equal(t0.Add(2*time.Second)) {
		t.Errorf("first run = %+v", r)
	}
	if r := got[1]; !r.OK || r.Details != "orders: dca-a1, dca-a2" || !r.Scheduled.Equal(t0.Add(time.Hour)) {
		t.Errorf("second run = %+v", r)
	}
	dust, _ := s.JobRuns(ctx, "convert-dust")
	if len(dust) != 1 || dust[0].Instance != "" || dust[0].Details != "3 assets" || !dust[0].OK {
		t.Errorf("standalone job = %+v", dust)
	}
	if _, err := s.RecordJobRun(ctx, JobRun{Job: "x", Start: t0, End: t0.Add(-time.Second)}); err == nil ||
		err.Error() != "store: job run of x ends (2024-01-02T03:04:04Z) before it starts (2024-01-02T03:04:05Z)" {
		t.Errorf("bad run: %v", err)
	}
}

func TestBacktestRuns(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	id, err := s.RecordBacktest(ctx, BacktestRun{Name: "sma 10/30", Started: t0, Config: "strategy: smacross\n",
		Params: json.RawMessage(`{"fast":10,"slow":30}`), Metrics: json.RawMessage(`{"return":"0.1234","trades":17}`), ReportDir: "reports/1"})
	if err != nil || id != 1 {
		t.Fatalf("id %d, %v", id, err)
	}
	if _, err := s.RecordBacktest(ctx, BacktestRun{Name: "defaults", Started: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordBacktest(ctx, BacktestRun{Params: json.RawMessage(`[1]`)}); err == nil ||
		err.Error() != "store: backtest params is not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage" {
		t.Errorf("bad params: %v", err)
	}
	runs, err := s.BacktestRuns(ctx)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	r := runs[0]
	if r.ID != 1 || r.Name != "sma 10/30" || !r.Started.Equal(t0) || r.Config != "strategy: smacross\n" || string(r.Params) != `{"fast":10,"slow":30}` ||
		string(r.Metrics) != `{"return":"0.1234","trades":17}` || r.ReportDir != "reports/1" {
		t.Errorf("run = %+v", r)
	}
	if string(runs[1].Params) != "{}" || string(runs[1].Metrics) != "{}" {
		t.Errorf("defaults = %s %s", runs[1].Params, runs[1].Metrics)
	}
}

func TestBalanceSnapshots(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	if _, ok, err := s.LatestBalances(ctx, "main"); ok || err != nil {
		t.Fatalf("empty: %v %v", ok, err)
	}
	s.RecordBalances(ctx, "main", t0, []exchange.Balance{{Asset: "BTC", Free: dec("1")}})
	id, err := s.RecordBalances(ctx, "main", t0.Add(time.Hour), []exchange.Balance{
		{Asset: "USDT", Free: dec("1000.50000000"), Locked: dec("20")}, {Asset: "BTC", Free: dec("0.12345678"), Locked: dec("0")}})
	if err != nil {
		t.Fatal(err)
	}
	s.RecordBalances(ctx, "sub-1", t0.Add(2*time.Hour), nil)
	snap, ok, err := s.LatestBalances(ctx, "main")
	if err != nil || !ok || snap.ID != id || !snap.Taken.Equal(t0.Add(time.Hour)) || len(snap.Balances) != 2 {
		t.Fatalf("snapshot = %+v %v %v", snap, ok, err)
	}
	if b := snap.Balances[0]; b.Asset != "BTC" || decText(b.Free) != "0.12345678" || !b.Locked.IsZero() {
		t.Errorf("BTC = %+v", b)
	}
	if b := snap.Balances[1]; b.Asset != "USDT" || decText(b.Free) != "1000.50000000" || decText(b.Locked) != "20" {
		t.Errorf("USDT = %+v", b)
	}
	// Foreign keys are on: a balance of no snapshot is refused.
	if _, err := s.w.ExecContext(ctx, `INSERT INTO balances (snapshot_id, asset, free, locked) VALUES (999, 'X', '1', '0')`); err == nil {
		t.Error("a balance without a snapshot was accepted")
	}
	if _, err := s.RecordBalances(ctx, "main", time.Time{}, nil); err == nil || err.Error() != `store: balance snapshot of "main" without a time` {
		t.Errorf("no time: %v", err)
	}
}
