package app

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategy"
)

func TestBotCommands(t *testing.T) {
	status := daemon.Status{Mode: "paper", Phase: daemon.PhaseRunning,
		Strategies: []daemon.StrategyStatus{{ID: "btc-cross", Name: "smacross"}, {ID: "eth-grid", Name: "grid", Stopped: "paused"}},
		Positions: []daemon.PositionStatus{{Instance: "btc-cross", Position: strategy.Position{Symbol: "BTCUSDT",
			Qty: decimal.RequireFromString("0.5"), AvgPrice: decimal.RequireFromString("60000"), Realized: decimal.RequireFromString("12.5")}}},
		Balances: []exchange.Balance{{Asset: "USDT", Free: decimal.RequireFromString("1000"), Locked: decimal.RequireFromString("25")}}}
	var got daemon.Action
	c := botCommands{status: func() daemon.Status { return status },
		control: func(_ context.Context, a daemon.Action) (daemon.ActionResult, error) {
			got = a
			return daemon.ActionResult{Details: "SELL MARKET 0.5 BTCUSDT: NEW", Orders: []string{"sb-1"}}, nil
		}}
	if s, want := c.StatusText(), "paper, running\nbtc-cross (smacross): running\neth-grid (grid): stopped: paused\nbtc-cross BTCUSDT: 0.5 @ 60000, realised 12.5\nopen orders: 0"; s != want {
		t.Errorf("status:\n%s\nwant:\n%s", s, want)
	}
	if s, want := c.BalanceText(), "USDT 1000 free, 25 locked"; s != want {
		t.Errorf("balance = %q, want %q", s, want)
	}
	s, err := c.Control(t.Context(), "force-exit", "btc-cross", "BTCUSDT")
	if want := "SELL MARKET 0.5 BTCUSDT: NEW (orders: sb-1)"; err != nil || s != want {
		t.Errorf("control = %q, %v; want %q", s, err, want)
	}
	if want := (daemon.Action{Name: "force-exit", Instance: "btc-cross", Symbol: "BTCUSDT", Source: "telegram"}); got != want {
		t.Errorf("action = %+v, want %+v", got, want)
	}
}
