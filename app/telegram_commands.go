package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/notify"
)

// botCommands adapts the bot to the Telegram commands: its status and its
// control path, the actions marked as coming from Telegram.
type botCommands struct {
	status  func() daemon.Status
	control func(context.Context, daemon.Action) (daemon.ActionResult, error)
}

// StatusText implements notify.Commands.
func (c botCommands) StatusText() string {
	s := c.status()
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s", s.Mode, s.Phase)
	if s.Blocked != "" {
		fmt.Fprintf(&b, ", blocked: %s", s.Blocked)
	}
	if s.KillSwitch != "" {
		fmt.Fprintf(&b, ", kill switch: %s", s.KillSwitch)
	}
	for _, st := range s.Strategies {
		state := "running"
		if st.Stopped != "" {
			state = "stopped: " + st.Stopped
		}
		fmt.Fprintf(&b, "\n%s (%s): %s", st.ID, st.Name, state)
	}
	for _, p := range s.Positions {
		fmt.Fprintf(&b, "\n%s %s: %s @ %s, realised %s", p.Instance, p.Symbol, p.Qty, p.AvgPrice, p.Realized)
	}
	fmt.Fprintf(&b, "\nopen orders: %d", len(s.OpenOrders))
	if s.LastError != "" {
		fmt.Fprintf(&b, "\nlast error: %s", s.LastError)
	}
	return b.String()
}

// BalanceText implements notify.Commands.
func (c botCommands) BalanceText() string {
	s := c.status()
	if len(s.Balances) == 0 {
		return "no balances loaded"
	}
	lines := make([]string, 0, len(s.Balances))
	for _, bal := range s.Balances {
		lines = append(lines, fmt.Sprintf("%s %s free, %s locked", bal.Asset, bal.Free, bal.Locked))
	}
	return strings.Join(lines, "\n")
}

// Control implements notify.Commands: the control API's path, with the
// source "telegram".
func (c botCommands) Control(ctx context.Context, action, instance, symbol string) (string, error) {
	res, err := c.control(ctx, daemon.Action{Name: action, Instance: instance, Symbol: symbol, Source: "telegram"})
	if err != nil {
		return "", err
	}
	if len(res.Orders) > 0 {
		return res.Details + " (orders: " + strings.Join(res.Orders, ", ") + ")", nil
	}
	return res.Details, nil
}

// startTelegramCommands reads the configured chats' commands while the bot
// runs, when notify.telegram.commands is set; stop ends the reader and
// waits for it.
func startTelegramCommands(cfg *config.Config, bot *daemon.Bot, environ []string, clock exchange.Clock, log *slog.Logger) (stop func(), err error) {
	tg := cfg.Notify.Telegram
	if !tg.Commands {
		return func() {}, nil
	}
	cfg.Notify.Telegram.TokenFile = expandHome(tg.TokenFile, environ)
	token, err := cfg.Notify.TelegramToken(environ)
	if err != nil {
		return nil, err
	}
	r, err := notify.NewCommandReader(notify.CommandOptions{BaseURL: tg.BaseURL, Token: token, ChatIDs: tg.ChatIDs,
		Commands: botCommands{status: bot.Status, control: bot.Control}, Clock: clock, Logger: log})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(ctx)
	}()
	log.Info("telegram commands", slog.Int("chats", len(tg.ChatIDs)))
	return func() {
		cancel()
		<-done
		st := r.Stats()
		log.Info("telegram commands stopped", slog.Int("handled", st.Handled), slog.Int("ignored", st.Ignored),
			slog.Int("stale", st.Stale), slog.Int("failures", st.Failures))
	}, nil
}
