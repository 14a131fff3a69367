package app

import (
	"context"
	"log/slog"
	"strings"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/daemon/obs"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
)

// startListener starts the observability listener of http.listen (off
// when empty) over bot. The socket is opened before it returns, so a busy
// or bad address stops `bot run` before it trades. The listener has its
// own context: it keeps answering through the bot's graceful shutdown,
// until stop is called after Run returns. The control API is served when
// environ sets obs.ControlTokenEnv.
func startListener(cfg *config.Config, bot *daemon.Bot, client *exchange.Client, st *store.Store, log *slog.Logger, environ []string) (stop func(), err error) {
	if cfg.HTTP.Listen == "" {
		return func() {}, nil
	}
	var timer obs.ServerTimer
	if client != nil {
		timer = client
	}
	opts, err := obs.ForBot(bot.Status, cfg, timer, st)
	if err != nil {
		return nil, err
	}
	if tok := lookupEnv(environ, obs.ControlTokenEnv); tok != "" {
		opts.Control, opts.ControlToken = bot.Control, tok
	}
	h, err := obs.New(opts)
	if err != nil {
		return nil, err
	}
	ln, err := obs.Listen(cfg.HTTP.Listen)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := obs.ServeListener(ctx, ln, h); err != nil {
			log.Error("observability listener failed", slog.Any("err", err))
		}
	}()
	log.Info("observability listener", slog.String("addr", ln.Addr().String()), slog.Bool("control", opts.ControlToken != ""))
	return func() {
		cancel()
		<-done
	}, nil
}

// lookupEnv is the value of name in environ, or "".
func lookupEnv(environ []string, name string) string {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}
