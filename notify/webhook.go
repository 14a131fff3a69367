package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// SignatureHeader carries a webhook body's HMAC-SHA256 under the shared
// secret, as "sha256=" and the hex digest.
const SignatureHeader = "X-Spotbot-Signature"

// Payload is the JSON body of a webhook call.
type Payload struct {
	Kind     Kind              `json:"kind"`
	Instance string            `json:"instance,omitempty"`
	Text     string            `json:"text"`
	Fields   map[string]string `json:"fields,omitempty"`
	Time     string            `json:"time"`
	Repeats  int               `json:"repeats,omitempty"`
}

// Sign returns the signature header's value for body.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Webhook posts each event as JSON, signed with a shared secret.
type Webhook struct {
	url    string
	secret []byte
	client *http.Client
}

// NewWebhook posts to rawURL, signing with secret (which must not be
// empty); a nil client gets one with a 10 s timeout.
func NewWebhook(rawURL, secret string, client *http.Client) (*Webhook, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("notify: webhook url must be an http or https URL")
	}
	if secret == "" {
		return nil, errors.New("notify: webhook secret is empty")
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &Webhook{url: rawURL, secret: []byte(secret), client: client}, nil
}

// Name implements Sink.
func (*Webhook) Name() string { return "webhook" }

// Send implements Sink: a 2XX answer delivers; 4XX but 408 and 429 is
// permanent; anything else is retried.
func (w *Webhook) Send(ctx context.Context, ev Event, repeats int) error {
	body, err := json.Marshal(Payload{Kind: ev.Kind, Instance: ev.Instance, Text: ev.Text, Fields: ev.Fields,
		Time: ev.Time.UTC().Format(time.RFC3339Nano), Repeats: repeats})
	if err != nil {
		return fmt.Errorf("webhook: %w: %w", ErrPermanent, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook: %w: %w", ErrPermanent, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, Sign(w.secret, body))
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return statusErr("webhook", resp.StatusCode)
}

func statusErr(sink string, code int) error {
	switch {
	case code >= 200 && code < 300:
		return nil
	case code >= 400 && code < 500 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests:
		return fmt.Errorf("%s: HTTP %d: %w", sink, code, ErrPermanent)
	default:
		return fmt.Errorf("%s: HTTP %d", sink, code)
	}
}

// String names the sink and its URL without the secret.
func (w *Webhook) String() string { return "webhook " + w.url }

// GoString is String, for %#v.
func (w *Webhook) GoString() string { return w.String() }
