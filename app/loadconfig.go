package app

import (
	"fmt"
	"os"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/strategy"
)

// simServerCmd is the command that serves mode sim-server configurations.
const simServerCmd = "sim-server"

// loadConfig reads the configuration file of command cmd, lays the
// environment and the flag overrides over it and validates it against the
// strategies of reg.
func loadConfig(reg *strategy.Registry, cmd, path string, environ []string, overrides map[string]any) (*config.Config, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return loadConfigText(reg, cmd, path, text, environ, overrides)
}

// loadConfigText is loadConfig over text already read; name names it in
// errors. A mode sim-server configuration is for `sim-server` alone, and
// `sim-server` serves nothing else.
func loadConfigText(reg *strategy.Registry, cmd, name string, text []byte, environ []string, overrides map[string]any) (*config.Config, error) {
	// The mode first: the problems of a configuration for another command
	// would only distract.
	switch mode := config.ModeOf(text, environ); {
	case cmd == simServerCmd && mode != config.ModeSimServer:
		return nil, fmt.Errorf("%s: mode: %q is not sim-server; the sim-server command serves a configuration with mode: sim-server", name, mode)
	case cmd != simServerCmd && mode == config.ModeSimServer:
		return nil, fmt.Errorf("%s: mode: sim-server configurations are served by the sim-server command, not %s", name, cmd)
	}
	cfg, err := config.Load(text, environ, overrides, reg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return cfg, nil
}
