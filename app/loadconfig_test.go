package app

import (
	"io"
	"testing"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/strategies"
)

// A sim-server configuration is served by sim-server alone, and
// sim-server serves nothing else.
func TestLoadConfigModeSimServer(t *testing.T) {
	t.Parallel()
	reg := strategies.NewRegistry()
	for _, tt := range []struct{ cmd, path, want string }{
		{"run", "../configs/sim.yaml", "../configs/sim.yaml: mode: sim-server configurations are served by the sim-server command, not run"},
		{"jobs run", "../configs/sim.yaml", "../configs/sim.yaml: mode: sim-server configurations are served by the sim-server command, not jobs run"},
		{simServerCmd, "../configs/paper.yaml", `../configs/paper.yaml: mode: "paper-replay" is not sim-server; the sim-server command serves a configuration with mode: sim-server`},
	} {
		if _, err := loadConfig(reg, tt.cmd, tt.path, simEnv, nil); err == nil || err.Error() != tt.want {
			t.Errorf("%s %s: %v\nwant %s", tt.cmd, tt.path, err, tt.want)
		}
	}
	if cfg, err := loadConfig(reg, simServerCmd, "../configs/sim.yaml", simEnv, map[string]any{"data.speed": 0}); err != nil ||
		cfg.Server.Accounts[0].APIKey != "mx0vglSimMain0001" || cfg.Data.Speed != 0 || !cfg.Server.Limits {
		t.Errorf("sim-server: %+v %v", cfg, err)
	}
	// bot run stops there, before it opens a store.
	err := runBotArgs(t.Context(), []string{"--config", "../configs/sim.yaml"}, io.Discard, simEnv, exchange.SystemClock{}, func(int) {})
	if want := "../configs/sim.yaml: mode: sim-server configurations are served by the sim-server command, not run"; err == nil || err.Error() != want {
		t.Errorf("bot run: %v", err)
	}
}
