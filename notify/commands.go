package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The actions a Telegram command asks of the bot; they are the control
// API's names.
const (
	CommandPause     = "pause"
	CommandResume    = "resume"
	CommandForceExit = "force-exit"
)

// Commands is what the Telegram commands read and do; `bot run` adapts its
// daemon to it (notify does not know the daemon).
type Commands interface {
	// StatusText answers /status.
	StatusText() string
	// BalanceText answers /balance.
	BalanceText() string
	// Control applies action (CommandPause, CommandResume,
	// CommandForceExit) to instance; symbol is a force exit's, or empty.
	// It returns what was done.
	Control(ctx context.Context, action, instance, symbol string) (string, error)
}

// Usage is the answer to an unknown command.
const Usage = "commands: /status, /balance, /pause INSTANCE, /resume INSTANCE, /forceexit INSTANCE [SYMBOL]"

// CommandOptions configure a CommandReader. Zero values take the defaults
// named.
type CommandOptions struct {
	// BaseURL is the Bot API's address (TelegramBaseURL when empty).
	BaseURL string
	Token   string
	// ChatIDs are the chats whose commands are obeyed (integer ids or
	// @names); messages from any other chat are ignored, never answered.
	ChatIDs []string
	// Commands answers and applies the commands. Required.
	Commands Commands
	// Clock paces the backoff and dates messages. Required.
	Clock Clock
	// Logger receives ignored messages and failures (discarded when nil).
	Logger *slog.Logger
	// PollTimeout is getUpdates' long-poll timeout (default 25 s, at most
	// 50 s).
	PollTimeout time.Duration
	// Backoff is the wait after a failed getUpdates, doubled after each
	// further failure up to MaxBackoff (defaults 1 s and 1 min).
	Backoff, MaxBackoff time.Duration
	// MaxAge ignores messages sent longer ago than this, by their date:
	// commands queued while the bot was down are not replayed (default 2
	// minutes).
	MaxAge time.Duration
	// ControlTimeout bounds one action (default 10 s).
	ControlTimeout time.Duration
	// Client makes the requests; nil gets one whose timeout is the poll's
	// plus 10 s.
	Client *http.Client
}

// CommandStats counts what a CommandReader did.
type CommandStats struct {
	Updates  int // updates read
	Handled  int // commands from configured chats, answered
	Ignored  int // messages from chats not configured
	Stale    int // messages older than MaxAge
	Failures int // failed getUpdates or sendMessage calls
}

// A CommandReader long-polls getUpdates and answers the configured chats'
// commands in the same chat.
type CommandReader struct {
	opts    CommandOptions
	log     *slog.Logger
	allowed map[string]bool
	offset  int64

	mu    sync.Mutex
	stats CommandStats
}

// NewCommandReader checks opts.
func NewCommandReader(opts CommandOptions) (*CommandReader, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = TelegramBaseURL
	}
	if u, err := url.Parse(opts.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("notify: telegram base url must be an http or https URL")
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	switch {
	case opts.Token == "":
		return nil, errors.New("notify: telegram token is empty")
	case len(opts.ChatIDs) == 0:
		return nil, errors.New("notify: telegram commands need chat ids")
	case opts.Commands == nil:
		return nil, errors.New("notify: telegram commands need a Commands")
	case opts.Clock == nil:
		return nil, errors.New("notify: telegram commands need a clock")
	}
	if opts.PollTimeout <= 0 {
		opts.PollTimeout = 25 * time.Second
	}
	opts.PollTimeout = min(opts.PollTimeout, 50*time.Second)
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = time.Minute
	}
	if opts.MaxAge <= 0 {
		opts.MaxAge = 2 * time.Minute
	}
	if opts.ControlTimeout <= 0 {
		opts.ControlTimeout = 10 * time.Second
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: opts.PollTimeout + 10*time.Second}
	}
	r := &CommandReader{opts: opts, log: opts.Logger, allowed: map[string]bool{}}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	for _, id := range opts.ChatIDs {
		r.allowed[id] = true
	}
	return r, nil
}

// Stats returns the counts so far.
func (r *CommandReader) Stats() CommandStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

func (r *CommandReader) count(f func(*CommandStats)) {
	r.mu.Lock()
	f(&r.stats)
	r.mu.Unlock()
}

// Run reads and answers commands until ctx ends; it returns nil then.
func (r *CommandReader) Run(ctx context.Context) error {
	wait := r.opts.Backoff
	for ctx.Err() == nil {
		ups, err := r.getUpdates(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			r.count(func(s *CommandStats) { s.Failures++ })
			r.log.Warn("telegram getUpdates failed", slog.Any("err", err), slog.Duration("retry_in", wait))
			select {
			case <-ctx.Done():
			case <-r.opts.Clock.After(wait):
			}
			wait = min(2*wait, r.opts.MaxBackoff)
			continue
		}
		wait = r.opts.Backoff
		for _, u := range ups {
			r.offset = max(r.offset, u.UpdateID+1)
			r.count(func(s *CommandStats) { s.Updates++ })
			if u.Message != nil {
				r.handle(ctx, *u.Message)
			}
		}
	}
	return nil
}

type update struct {
	UpdateID int64      `json:"update_id"`
	Message  *tgMessage `json:"message"`
}

type tgMessage struct {
	Date int64 `json:"date"`
	Chat struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	} `json:"chat"`
	Text string `json:"text"`
}

type getUpdatesReq struct {
	Offset         int64    `json:"offset,omitempty"`
	Timeout        int      `json:"timeout"`
	AllowedUpdates []string `json:"allowed_updates"`
}

// getUpdates asks for the updates after r.offset, waiting up to the poll
// timeout for one. Errors never carry the URL: it holds the token.
func (r *CommandReader) getUpdates(ctx context.Context) ([]update, error) {
	body, _ := json.Marshal(getUpdatesReq{Offset: r.offset, Timeout: int(r.opts.PollTimeout / time.Second),
		AllowedUpdates: []string{"message"}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.opts.BaseURL+"/bot"+r.opts.Token+"/getUpdates", bytes.NewReader(body))
	if err != nil {
		return nil, errors.New("telegram: getUpdates: invalid request")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.opts.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("telegram: getUpdates: %w", unwrapURL(err))
	}
	defer resp.Body.Close()
	var reply struct {
		OK          bool     `json:"ok"`
		Description string   `json:"description"`
		Result      []update `json:"result"`
	}
	derr := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&reply)
	if err := statusErr("telegram", resp.StatusCode); err != nil {
		if reply.Description != "" {
			return nil, fmt.Errorf("%w (%s)", err, clip(reply.Description))
		}
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("telegram: getUpdates: %w", derr)
	}
	if !reply.OK {
		return nil, errors.New("telegram: getUpdates not ok")
	}
	return reply.Result, nil
}

// handle answers one message, if its chat is configured and it is recent.
func (r *CommandReader) handle(ctx context.Context, m tgMessage) {
	chat := strconv.FormatInt(m.Chat.ID, 10)
	if !r.allowed[chat] && (m.Chat.Username == "" || !r.allowed["@"+m.Chat.Username]) {
		r.count(func(s *CommandStats) { s.Ignored++ })
		r.log.Warn("telegram command from a chat not configured, ignored", slog.String("chat", chat))
		return
	}
	if sent := time.Unix(m.Date, 0); sent.Before(r.opts.Clock.Now().Add(-r.opts.MaxAge)) {
		r.count(func(s *CommandStats) { s.Stale++ })
		r.log.Warn("telegram command too old, ignored", slog.String("chat", chat), slog.Time("sent", sent))
		return
	}
	reply := r.answer(ctx, m.Text)
	r.count(func(s *CommandStats) { s.Handled++ })
	sctx, cancel := context.WithTimeout(ctx, r.opts.ControlTimeout)
	defer cancel()
	if err := sendText(sctx, r.opts.Client, r.opts.BaseURL, r.opts.Token, chat, reply); err != nil {
		r.count(func(s *CommandStats) { s.Failures++ })
		r.log.Warn("telegram reply failed", slog.String("chat", chat), slog.Any("err", err))
	}
}

// answer runs the command text and returns the reply.
func (r *CommandReader) answer(ctx context.Context, text string) string {
	f := strings.Fields(text)
	if len(f) == 0 {
		return Usage
	}
	cmd, _, _ := strings.Cut(f[0], "@") // /pause@SomeBot in groups
	args := f[1:]
	var action, use string
	switch cmd {
	case "/status":
		return r.opts.Commands.StatusText()
	case "/balance":
		return r.opts.Commands.BalanceText()
	case "/pause":
		action, use = CommandPause, "usage: /pause INSTANCE"
	case "/resume":
		action, use = CommandResume, "usage: /resume INSTANCE"
	case "/forceexit":
		action, use = CommandForceExit, "usage: /forceexit INSTANCE [SYMBOL]"
	default:
		return Usage
	}
	if len(args) < 1 || len(args) > 2 || (len(args) == 2 && action != CommandForceExit) {
		return use
	}
	symbol := ""
	if len(args) == 2 {
		symbol = args[1]
	}
	cctx, cancel := context.WithTimeout(ctx, r.opts.ControlTimeout)
	defer cancel()
	label := action + " " + strings.Join(args, " ")
	details, err := r.opts.Commands.Control(cctx, action, args[0], symbol)
	if err != nil {
		return label + " failed: " + err.Error()
	}
	return label + ": " + details
}
