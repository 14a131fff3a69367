package main

import (
	"fmt"
	"os"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/strategies"
	"github.com/spotbot/spotbot/strategy"
)

// loadConfig reads the configuration file of command cmd, lays the
// environment and the flag overrides over it and validates it against the
// built-in strategies, which it returns as the registry to build them with.
func loadConfig(cmd, path string, environ []string, overrides map[string]any) (*config.Config, *strategy.Registry, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", cmd, err)
	}
	reg := strategies.NewRegistry()
	cfg, err := config.Load(text, environ, overrides, reg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, reg, nil
}
