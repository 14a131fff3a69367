package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestNotifySection loads the notify section and refuses its mistakes,
// all of them in one pass, each with its path.
func TestNotifySection(t *testing.T) {
	t.Parallel()
	good := `notify:
  webhook: {url: "https://hooks.example.com/spotbot", secret_env: HOOK_SECRET}
  telegram: {base_url: "http://127.0.0.1:8081", chat_ids: ["1001", "-2002", "@ops"], token_env: TG_TOKEN}
  rate_limit: 10
  dedup_window: 5m
  daily_summary: "0 8 * * *"
`
	c, err := Load([]byte(goodDaemon+good), nil, nil, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	want := Notify{
		Webhook:      NotifyWebhook{URL: "https://hooks.example.com/spotbot", SecretEnv: "HOOK_SECRET"},
		Telegram:     NotifyTelegram{BaseURL: "http://127.0.0.1:8081", ChatIDs: []string{"1001", "-2002", "@ops"}, TokenEnv: "TG_TOKEN"},
		RateLimit:    10,
		DedupWindow:  5 * time.Minute,
		DailySummary: "0 8 * * *",
	}
	if !reflect.DeepEqual(c.Notify, want) || !c.Notify.Enabled() {
		t.Fatalf("notify %+v", c.Notify)
	}
	if c, err := Load([]byte(goodDaemon), nil, nil, testRegistry()); err != nil || c.Notify.Enabled() {
		t.Fatalf("no notify section: %v %+v", err, c.Notify)
	}

	bad := `notify:
  webhook: {url: "ftp://x", secret_env: A, secret_file: /k}
  telegram: {base_url: "nope", chat_ids: ["12a"]}
  rate_limit: -1
  dedup_window: -1s
  daily_summary: "61 8 * * *"
`
	_, err = Load([]byte(goodDaemon+bad), nil, nil, testRegistry())
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{
		"notify.webhook.url: must be an http or https URL",
		"notify.webhook.secret_env: give the signing secret's variable or notify.webhook.secret_file (one of them)",
		"notify.telegram.base_url: must be an http or https URL",
		"notify.telegram.token_env: give the bot token's variable or notify.telegram.token_file (one of them)",
		"notify.telegram.chat_ids[0]: must be a chat id (an integer) or @channel name",
		"notify.rate_limit: -1 must not be negative",
		"notify.dedup_window: -1s must not be negative",
		"notify.daily_summary: invalid cron spec: end of range (61) above maximum (59): 61",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in\n%v", w, err)
		}
	}
	_, err = Load([]byte(goodDaemon+"notify: {telegram: {token_env: TG}, webhook: {secret_env: S}}\n"), nil, nil, testRegistry())
	for _, w := range []string{"notify.telegram.chat_ids: required with a telegram token, base_url or commands", "notify.webhook.url: required with a webhook secret"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in %v", w, err)
		}
	}
	// A token pasted into the file is refused as a secret-looking key.
	if _, err := Load([]byte(goodDaemon+"notify: {telegram: {key: 123:abc}}\n"), nil, nil, testRegistry()); err == nil || strings.Contains(err.Error(), "123:abc") {
		t.Fatalf("secret in file: %v", err)
	}
}

// TestNotifySecrets reads the secrets from the environment or a 0600 file
// and never quotes them.
func TestNotifySecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := filepath.Join(dir, "token")
	if err := os.WriteFile(ok, []byte("# bot token\n123456:ABC\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("123456:ABC\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := Notify{Webhook: NotifyWebhook{SecretEnv: "HOOK_SECRET"}, Telegram: NotifyTelegram{TokenFile: ok}}
	if s, err := n.WebhookSecret([]string{"PATH=/bin", "HOOK_SECRET=whsec"}); s != "whsec" || err != nil {
		t.Fatalf("webhook secret %q %v", s, err)
	}
	if _, err := n.WebhookSecret([]string{"PATH=/bin"}); err == nil || err.Error() != "notify.webhook.secret_env: the variable HOOK_SECRET is not set" {
		t.Fatalf("unset: %v", err)
	}
	if s, err := n.TelegramToken(nil); s != "123456:ABC" || err != nil {
		t.Fatalf("token %q %v", s, err)
	}
	n.Telegram.TokenFile = open
	_, err := n.TelegramToken(nil)
	if want := "notify.telegram.token_file: " + open + " is readable by group or others (mode 0644); run chmod 600 " + open; err == nil || err.Error() != want {
		t.Fatalf("open file: %v", err)
	}
}
