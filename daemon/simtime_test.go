package daemon

import (
	"bytes"
	"log/slog"
	"testing"
	"time"
)

// Records go out with the simulated time, through attributes and groups.
func TestSimTimeHandler(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	at := time.Date(2021, 3, 4, 5, 0, 0, 0, time.UTC)
	log := slog.New(simTimeHandler{h: slog.NewTextHandler(&buf, nil), now: func() time.Time { return at }})
	log.With("instance", "g1").WithGroup("order").Info("placed", "side", "BUY")
	log.Debug("not enabled")
	if want := "time=2021-03-04T05:00:00.000Z level=INFO msg=placed instance=g1 order.side=BUY\n"; buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
}
