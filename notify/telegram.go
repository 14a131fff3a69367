package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// TelegramBaseURL is the Bot API's address.
const TelegramBaseURL = "https://api.telegram.org"

// Telegram sends each event as a message to one chat through the Bot
// API's sendMessage. Give each chat its own sink: each then has its own
// queue and rate limit, as Telegram limits each chat.
type Telegram struct {
	base   string
	token  string
	chat   string
	client *http.Client
}

// NewTelegram sends to chatID with the bot token; base is the API's
// address (TelegramBaseURL when empty; tests give a local fake). A nil
// client gets one with a 10 s timeout.
func NewTelegram(base, token, chatID string, client *http.Client) (*Telegram, error) {
	if base == "" {
		base = TelegramBaseURL
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("notify: telegram base url must be an http or https URL")
	}
	if token == "" {
		return nil, errors.New("notify: telegram token is empty")
	}
	if chatID == "" {
		return nil, errors.New("notify: telegram chat id is empty")
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &Telegram{base: strings.TrimRight(base, "/"), token: token, chat: chatID, client: client}, nil
}

// Name implements Sink.
func (t *Telegram) Name() string { return "telegram:" + t.chat }

type sendMessage struct {
	ChatID string `json:"chat_id"`
	Text   string `json:"text"`
}

// Send implements Sink. Errors never carry the URL: it holds the token.
func (t *Telegram) Send(ctx context.Context, ev Event, repeats int) error {
	return sendText(ctx, t.client, t.base, t.token, t.chat, message(ev, repeats))
}

// sendText posts text to chat through sendMessage. Errors never carry the
// URL: it holds the token.
func sendText(ctx context.Context, client *http.Client, base, token, chat, text string) error {
	body, err := json.Marshal(sendMessage{ChatID: chat, Text: text})
	if err != nil {
		return fmt.Errorf("telegram: %w: %w", ErrPermanent, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/bot"+token+"/sendMessage", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("telegram: %w: invalid request", ErrPermanent)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("telegram: sendMessage: %w", unwrapURL(err))
	}
	defer resp.Body.Close()
	var reply struct {
		OK          bool   `json:"ok"`
		Description string `json:"description"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&reply)
	if err := statusErr("telegram", resp.StatusCode); err != nil {
		if reply.Description != "" {
			return fmt.Errorf("%w (%s)", err, clip(reply.Description))
		}
		return err
	}
	if !reply.OK {
		return fmt.Errorf("telegram: sendMessage not ok: %w", ErrPermanent)
	}
	return nil
}

// unwrapURL drops a *url.Error's URL, which holds the token.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func clip(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}

// String names the sink without its token, so printing it is safe.
func (t *Telegram) String() string { return t.Name() }

// GoString is String, for %#v.
func (t *Telegram) GoString() string { return t.Name() }
