package app

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/notify"
)

// TestRunNotifiesTelegram runs configs/paper.yaml with a notify section
// against a local fake of the Bot API: the token comes from the
// environment, and the chat gets the start, one message per fill and the
// stop, in order, exactly.
func TestRunNotifiesTelegram(t *testing.T) {
	t.Parallel()
	const token = "424242:fake-token"
	var mu sync.Mutex
	var texts []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /bot"+token+"/sendMessage", func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ChatID string `json:"chat_id"`
			Text   string `json:"text"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.ChatID != "1001" {
			t.Errorf("message %+v: %v", m, err)
		}
		mu.Lock()
		texts = append(texts, m.Text)
		mu.Unlock()
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	paper, err := os.ReadFile(filepath.Join("..", "configs", "paper.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "bot.yaml")
	section := fmt.Sprintf("notify:\n  telegram: {base_url: %q, chat_ids: [\"1001\"], token_env: TG_TOKEN}\n  rate_limit: 100000\n  queue: 100000\n", srv.URL)
	if err := os.WriteFile(cfg, append(paper, section...), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "paper.db")
	err = runBotArgs(t.Context(), []string{"--config", cfg, "--speed", "0"}, io.Discard,
		[]string{"SPOTBOT_STORE__PATH=" + db, "TG_TOKEN=" + token}, exchange.SystemClock{}, func(int) { t.Error("forced exit") })
	if err != nil {
		t.Fatal(err)
	}
	st := readStore(t, db)
	fills, err := st.FillsSince(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(texts) != len(fills)+2 {
		t.Fatalf("%d messages for %d fills", len(texts), len(fills))
	}
	const start = "start: trading started (paper-replay)\nmode: paper-replay\nstrategies: 2\nsymbols: BTCUSDT,ETHUSDT"
	if texts[0] != start {
		t.Fatalf("first message %q", texts[0])
	}
	for _, m := range texts[1 : len(texts)-1] {
		if !strings.HasPrefix(m, "fill [") {
			t.Fatalf("message %q", m)
		}
	}
	stopPrefix := fmt.Sprintf("stop: bot stopped\nfills: %d\nopen_orders: ", len(fills))
	if last := texts[len(texts)-1]; !strings.HasPrefix(last, stopPrefix) {
		t.Fatalf("last message %q", last)
	}
}

// TestJobsRunNotifiesItsResult: `bot jobs run` with a webhook configured
// from the environment posts the run's result, signed.
func TestJobsRunNotifiesItsResult(t *testing.T) {
	t.Parallel()
	const secret = "whsec-jobs"
	bodies := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get(notify.SignatureHeader) != notify.Sign([]byte(secret), b) {
			t.Errorf("bad signature on %s", b)
		}
		bodies <- string(b)
	}))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "jobs.db")
	env := []string{"SPOTBOT_STORE__PATH=" + db, "SPOTBOT_NOTIFY__WEBHOOK__URL=" + srv.URL,
		"SPOTBOT_NOTIFY__WEBHOOK__SECRET_ENV=HOOK_SECRET", "HOOK_SECRET=" + secret}
	if _, _, err := runJobs(t, env, "run", "--config", jobsConfig, "btc-dca"); err != nil {
		t.Fatal(err)
	}
	close(bodies)
	var got []string
	for b := range bodies {
		got = append(got, b)
	}
	want := `{"kind":"job","instance":"btc-dca","text":"schedule buy: ok","fields":{"outcome":"ok","schedule":"buy"},"time":"2021-05-17T01:00:00Z"}`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("posted %q\nwant %q", got, want)
	}
}
