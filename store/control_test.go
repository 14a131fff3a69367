package store

import (
	"fmt"
	"testing"
	"time"
)

func TestControlActions(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	in := []ControlAction{
		{At: t0, Action: "pause", Instance: "grid", OK: true, Details: "paused"},
		{At: t0.Add(time.Second), Action: "force-exit", Instance: "grid", Args: "BTCUSDT", Details: "risk: balance: too little"},
	}
	for i, a := range in {
		id, err := s.RecordControl(t.Context(), a)
		if err != nil || id != int64(i+1) {
			t.Fatalf("RecordControl = %d, %v", id, err)
		}
	}
	if _, err := s.RecordControl(t.Context(), ControlAction{}); err == nil || err.Error() != "store: control action without a name" {
		t.Errorf("no name: %v", err)
	}
	got, err := s.ControlActions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := "[{1 2024-01-02 03:04:05 +0000 UTC pause grid  true paused} {2 2024-01-02 03:04:06 +0000 UTC force-exit grid BTCUSDT false risk: balance: too little}]"
	if s := fmt.Sprint(got); s != want {
		t.Errorf("actions\n%s\nwant\n%s", s, want)
	}
}
