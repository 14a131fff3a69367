package app

import (
	"fmt"
	"os"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/strategy"
)

// loadConfig reads the configuration file of command cmd, lays the
// environment and the flag overrides over it and validates it against the
// strategies of reg.
func loadConfig(reg *strategy.Registry, cmd, path string, environ []string, overrides map[string]any) (*config.Config, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	cfg, err := config.Load(text, environ, overrides, reg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}
