// Package notify tells an operator what a running bot does: start and
// stop, fills, exits, refusals, the kill switch, protections, bans,
// reconciliation, job results and a daily summary, sent to a signed
// webhook and to Telegram chats. Sending never blocks trading: each sink
// has a bounded queue drained by its own goroutine, rate-limited, with
// retries and backoff; repeated events are deduplicated.
package notify

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind says what an event reports.
type Kind string

// The kinds of events.
const (
	KindStart      Kind = "start"
	KindStop       Kind = "stop"
	KindFill       Kind = "fill"
	KindExit       Kind = "exit"
	KindRefusals   Kind = "refusals"
	KindKillSwitch Kind = "kill_switch"
	KindProtection Kind = "protection"
	KindBan        Kind = "ban"
	KindReconcile  Kind = "reconciliation"
	KindJob        Kind = "job"
	KindSummary    Kind = "daily_summary"
)

// Event is one thing worth telling the operator. Text is the line a human
// reads; Fields carry the details (for an exit, its reason under
// "reason"). Time is when it happened, on the bot's clock.
type Event struct {
	Kind     Kind
	Instance string
	Text     string
	Fields   map[string]string
	Time     time.Time
}

// message is the text of an event for a chat: the kind and instance, the
// text, the fields one per line in key order, and how many equal events
// the deduplication held back before it.
func message(ev Event, repeats int) string {
	var b strings.Builder
	b.WriteString(string(ev.Kind))
	if ev.Instance != "" {
		b.WriteString(" [" + ev.Instance + "]")
	}
	b.WriteString(": " + ev.Text)
	for _, k := range slices.Sorted(maps.Keys(ev.Fields)) {
		b.WriteString("\n" + k + ": " + ev.Fields[k])
	}
	if repeats > 0 {
		b.WriteString("\n(" + strconv.Itoa(repeats) + " more like this suppressed)")
	}
	return b.String()
}
