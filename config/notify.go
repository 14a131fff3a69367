package config

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Notify configures `bot run`'s notifications (package notify): a signed
// webhook and Telegram chats. Secrets never come from the file: the
// webhook's secret and the bot token are read from the environment
// variable named, or from a key file of mode 0600.
type Notify struct {
	Webhook  NotifyWebhook  `koanf:"webhook"`
	Telegram NotifyTelegram `koanf:"telegram"`
	// RateLimit bounds each sink's messages per minute (0: 20).
	RateLimit int `koanf:"rate_limit"`
	// DedupWindow holds back an event equal to one sent within it (0: one
	// minute).
	DedupWindow time.Duration `koanf:"dedup_window"`
	// DailySummary is the cron spec of the summary (empty: none).
	DailySummary string `koanf:"daily_summary"`
	// Queue bounds each sink's queue (0: 100); a full queue drops its
	// oldest message.
	Queue int `koanf:"queue"`
}

// NotifyWebhook is a JSON POST signed with HMAC-SHA256.
type NotifyWebhook struct {
	URL        string `koanf:"url"`
	SecretEnv  string `koanf:"secret_env"`
	SecretFile string `koanf:"secret_file"`
}

// NotifyTelegram is the Bot API's sendMessage to each chat.
type NotifyTelegram struct {
	BaseURL   string   `koanf:"base_url"`
	ChatIDs   []string `koanf:"chat_ids"`
	TokenEnv  string   `koanf:"token_env"`
	TokenFile string   `koanf:"token_file"`
	// Commands reads the chats' commands (/status, /balance, /pause,
	// /resume, /forceexit) by long-polling getUpdates.
	Commands bool `koanf:"commands"`
}

// Enabled reports whether any sink is configured.
func (n Notify) Enabled() bool { return n.Webhook.URL != "" || len(n.Telegram.ChatIDs) > 0 }

func (n Notify) validate() []error {
	var errs []error
	add := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("notify.%s: %s", path, fmt.Sprintf(format, args...)))
	}
	w := n.Webhook
	if w.URL != "" {
		if !httpURL(w.URL) {
			add("webhook.url", "must be an http or https URL")
		}
		if (w.SecretEnv == "") == (w.SecretFile == "") {
			add("webhook.secret_env", "give the signing secret's variable or notify.webhook.secret_file (one of them)")
		}
	} else if w.SecretEnv != "" || w.SecretFile != "" {
		add("webhook.url", "required with a webhook secret")
	}
	tg := n.Telegram
	if len(tg.ChatIDs) > 0 {
		if tg.BaseURL != "" && !httpURL(tg.BaseURL) {
			add("telegram.base_url", "must be an http or https URL")
		}
		if (tg.TokenEnv == "") == (tg.TokenFile == "") {
			add("telegram.token_env", "give the bot token's variable or notify.telegram.token_file (one of them)")
		}
		for i, id := range tg.ChatIDs {
			if !chatID(id) {
				add(fmt.Sprintf("telegram.chat_ids[%d]", i), "must be a chat id (an integer) or @channel name")
			}
		}
	} else if tg.TokenEnv != "" || tg.TokenFile != "" || tg.BaseURL != "" || tg.Commands {
		add("telegram.chat_ids", "required with a telegram token, base_url or commands")
	}
	if n.RateLimit < 0 {
		add("rate_limit", "%d must not be negative", n.RateLimit)
	}
	if n.Queue < 0 {
		add("queue", "%d must not be negative", n.Queue)
	}
	if n.DedupWindow < 0 {
		add("dedup_window", "%s must not be negative", n.DedupWindow)
	}
	if n.DailySummary != "" {
		if _, err := cron.ParseStandard(n.DailySummary); err != nil {
			add("daily_summary", "invalid cron spec: %v", err)
		}
	}
	return errs
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func chatID(s string) bool {
	if len(s) > 1 && s[0] == '@' {
		return true
	}
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// WebhookSecret returns the webhook's signing secret from the variable
// notify.webhook.secret_env names in environ, or from
// notify.webhook.secret_file.
func (n Notify) WebhookSecret(environ []string) (string, error) {
	return notifySecret("notify.webhook", n.Webhook.SecretEnv, "secret_env", n.Webhook.SecretFile, "secret_file", environ)
}

// TelegramToken returns the bot token from the variable
// notify.telegram.token_env names in environ, or from
// notify.telegram.token_file.
func (n Notify) TelegramToken(environ []string) (string, error) {
	return notifySecret("notify.telegram", n.Telegram.TokenEnv, "token_env", n.Telegram.TokenFile, "token_file", environ)
}

// notifySecret never quotes the value it reads.
func notifySecret(at, env, envKey, file, fileKey string, environ []string) (string, error) {
	if env != "" {
		for _, kv := range environ {
			if name, val, _ := strings.Cut(kv, "="); name == env && val != "" {
				return val, nil
			}
		}
		return "", fmt.Errorf("%s.%s: the variable %s is not set", at, envKey, env)
	}
	if file == "" {
		return "", fmt.Errorf("%s.%s: none given", at, envKey)
	}
	st, err := os.Stat(file)
	if err != nil {
		return "", fmt.Errorf("%s.%s: %w", at, fileKey, err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("%s.%s: %s is readable by group or others (mode %04o); run chmod 600 %s", at, fileKey, file, perm, file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s.%s: %w", at, fileKey, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			return l, nil
		}
	}
	return "", fmt.Errorf("%s.%s: %s holds no secret", at, fileKey, file)
}
