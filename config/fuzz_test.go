package config

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/spotbot/spotbot/configs"
	"github.com/spotbot/spotbot/strategies"
)

// fuzzSecret is in the environment of every fuzzed load: no error may
// repeat it, whatever the YAML says.
const fuzzSecret = "fuzz-secret-9f8e7d6c5b4a"

// FuzzLoad loads arbitrary YAML text with the built-in strategies. Load
// must never panic; it returns a configuration or an error, never both or
// neither; an error never carries the API secret from the environment; a
// configuration it returns passes Validate again (loading is the only
// check a command relies on).
func FuzzLoad(f *testing.F) {
	names, err := fs.Glob(configs.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		f.Fatalf("example configurations: %v %v", names, err)
	}
	for _, n := range names {
		b, err := configs.FS.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		good, "", "mode: live\n", "mode: [", "strategies: {a: 1}", "exchange:\n  secret: x\n", "risk: {max_drawdown: -1}",
		"data: {from: 2021-13-45}", "a: &x [*x]", "a: &a [1]\nb: &b [*a,*a,*a]\nc: [*b,*b,*b]\n", "\t- x", "? [a]\n: 1",
		"strategies:\n  - name: smacross\n    params: {fast: 1e400}\n", "account:\n  balances: {USDT: NaN}\n",
	} {
		f.Add([]byte(s))
	}
	reg := strategies.NewRegistry()
	environ := []string{"SPOTBOT_API_KEY=fuzz-key", "SPOTBOT_API_SECRET=" + fuzzSecret}
	f.Fuzz(func(t *testing.T, text []byte) {
		c, err := Load(text, environ, nil, reg)
		switch {
		case err != nil && c != nil:
			t.Fatalf("both a configuration and an error: %v", err)
		case err == nil && c == nil:
			t.Fatal("neither a configuration nor an error")
		case err != nil && strings.Contains(err.Error(), fuzzSecret):
			t.Fatalf("error carries the secret: %v", err)
		case err == nil:
			if verr := c.Validate(reg); verr != nil {
				t.Fatalf("loaded, then invalid: %v", verr)
			}
		}
	})
}
