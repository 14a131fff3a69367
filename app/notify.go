package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/notify"
	"github.com/spotbot/spotbot/strategy"
)

// newNotifier builds the notifier of cfg's notify section: the webhook and
// one Telegram sink per chat, their secrets from the environment or key
// files. It returns nil when no sink is configured.
func newNotifier(cfg *config.Config, environ []string, clock exchange.Clock, log *slog.Logger) (*notify.Notifier, error) {
	nc := cfg.Notify
	if !nc.Enabled() {
		return nil, nil
	}
	var sinks []notify.Sink
	if nc.Webhook.URL != "" {
		nc.Webhook.SecretFile = expandHome(nc.Webhook.SecretFile, environ)
		secret, err := nc.WebhookSecret(environ)
		if err != nil {
			return nil, err
		}
		wh, err := notify.NewWebhook(nc.Webhook.URL, secret, nil)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, wh)
	}
	if len(nc.Telegram.ChatIDs) > 0 {
		nc.Telegram.TokenFile = expandHome(nc.Telegram.TokenFile, environ)
		token, err := nc.TelegramToken(environ)
		if err != nil {
			return nil, err
		}
		for _, chat := range nc.Telegram.ChatIDs {
			tg, err := notify.NewTelegram(nc.Telegram.BaseURL, token, chat, nil)
			if err != nil {
				return nil, err
			}
			sinks = append(sinks, tg)
		}
	}
	return notify.New(notify.Options{Clock: clock, Logger: log, Queue: nc.Queue, RatePerMinute: nc.RateLimit,
		DedupWindow: nc.DedupWindow}, sinks...)
}

// closeNotifier delivers what is queued, within the shutdown's bound.
func closeNotifier(n *notify.Notifier, bound time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := n.Close(ctx); err != nil {
		log.Warn("notifications left unsent at exit", slog.Any("err", err))
	}
}

// notifyRun tells the notifier a job's result.
func (j *jobRun) notifyRun(run strategy.Run) {
	if j.notify == nil {
		return
	}
	outcome, text := "ok", "schedule "+run.Schedule+": ok"
	if run.Err != nil {
		outcome, text = "error", "schedule "+run.Schedule+": error: "+run.Err.Error()
	}
	j.notify.Notify(notify.Event{Kind: notify.KindJob, Instance: run.Instance, Text: text,
		Fields: map[string]string{"schedule": run.Schedule, "outcome": outcome}, Time: run.Start})
}
