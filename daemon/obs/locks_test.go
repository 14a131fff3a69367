package obs

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/spotbot/spotbot/strategy"
)

// lockedStatus replays the sample data with smacross, a 2% stop-loss and
// a cooldown, and returns the locks /status serves after the run and
// those the store recorded.
func lockedStatus(t *testing.T, cooldown string) ([]servedLock, []strategy.Lock) {
	t.Helper()
	text := `
mode: paper-replay
data: {source: sample, interval: 1h}
account: {balances: {USDT: 10000}}
strategies:
  - name: smacross
    id: btc-cross
    symbols: [BTCUSDT]
    interval: 1h
    params: {fast: 10, slow: 30, fraction: 0.5}
    exits: {stop_loss: 2%}
    protections: {cooldown: ` + cooldown + `}
`
	bot, cfg, st := newBot(t, []byte(text), nil)
	if err := bot.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	opts, err := ForBot(bot.Status, cfg, nil, st)
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, opts)
	var got struct {
		Locks []servedLock `json:"locks"`
	}
	_, _, body := get(t, srv.URL+"/status")
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	recorded, err := st.Locks(t.Context(), time.Time{}, true)
	if err != nil {
		t.Fatal(err)
	}
	return got.Locks, recorded
}

type servedLock struct {
	Instance, Symbol, Reason string
	From, Until              time.Time
}

// /status lists the protections' locks in force: with a cooldown longer
// than the data, BTCUSDT is locked at its first stop-out (no buy follows,
// so no other lock), and the lock /status serves is the one the store
// recorded. With a cooldown of an hour the run records locks, all over
// by its end (one per stop-out, 48): /status lists none.
func TestStatusListsActiveLocks(t *testing.T) {
	t.Parallel()
	served, recorded := lockedStatus(t, "10000h")
	if len(recorded) != 1 || len(served) != 1 {
		t.Fatalf("locks served %+v, recorded %+v; want one each", served, recorded)
	}
	l, r := served[0], recorded[0]
	line := fmt.Sprintf("%s %s %s %s→%s", l.Instance, l.Symbol, l.Reason, l.From.Format(time.RFC3339), l.Until.Format(time.RFC3339))
	if want := fmt.Sprintf("%s %s %s %s→%s", r.Instance, r.Symbol, r.Reason, r.From.Format(time.RFC3339), r.Until.Format(time.RFC3339)); line != want {
		t.Errorf("served %s, recorded %s", line, want)
	}
	if want := "btc-cross BTCUSDT cooldown 2020-11-23T02:00:00Z→2022-01-13T18:00:00Z"; line != want {
		t.Errorf("lock %s, want %s", line, want)
	}
	if d := l.Until.Sub(l.From); d != 10000*time.Hour {
		t.Errorf("lock lasts %s, want the cooldown", d)
	}
	served, recorded = lockedStatus(t, "1h")
	if len(served) != 0 || len(recorded) != 48 {
		t.Errorf("1h cooldown: served %+v; recorded %d locks", served, len(recorded))
	}
}
