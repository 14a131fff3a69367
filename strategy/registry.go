package strategy

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Factory builds a strategy instance from its configuration. It decodes
// cfg.Params with DecodeParams into the strategy's typed parameters.
type Factory func(cfg Config) (Strategy, error)

// Registry maps strategy names to factories, with database/sql semantics:
// registering a nil factory or a name twice panics, Names is sorted, and an
// unknown name is an error listing the known ones. There is no global
// registry: build one and register the built-ins into it.
type Registry struct {
	mu        sync.RWMutex
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds a factory under name. It panics if f is nil, name is empty
// or name is already registered: these are programming errors.
func (r *Registry) Register(name string, f Factory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f == nil {
		panic("strategy: Register factory is nil for " + name)
	}
	if name == "" {
		panic("strategy: Register with an empty name")
	}
	if _, dup := r.factories[name]; dup {
		panic("strategy: Register called twice for " + name)
	}
	r.factories[name] = f
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.factories))
	for n := range r.factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// New builds the strategy cfg.Name names.
func (r *Registry) New(cfg Config) (Strategy, error) {
	r.mu.RLock()
	f, ok := r.factories[cfg.Name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown strategy %q (known: %s)", cfg.Name, strings.Join(r.Names(), ", "))
	}
	s, err := f(cfg)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("strategy %q: factory returned nil", cfg.Name)
	}
	return s, nil
}
