package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// data.cache is a folder, off, or left out (the user's cache folder); a
// file is refused, and so is the key in a mode that loads no data.
func TestDataCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "bars.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	with := func(cache string) []byte {
		return []byte(strings.Replace(good, "  interval: 1h\n", "  interval: 1h\n  cache: "+cache+"\n", 1))
	}
	for _, tt := range []struct {
		cache    string
		disabled bool
	}{{"off", true}, {"OFF", true}, {dir, false}, {filepath.Join(dir, "not-yet"), false}} {
		c, err := Load(with(tt.cache), nil, nil, testRegistry())
		if err != nil {
			t.Errorf("data.cache %s: %v", tt.cache, err)
		} else if c.Data.Cache != tt.cache || c.Data.CacheDisabled() != tt.disabled {
			t.Errorf("data.cache %s: read %q, disabled %v", tt.cache, c.Data.Cache, c.Data.CacheDisabled())
		}
	}
	if c, err := Load([]byte(good), nil, nil, testRegistry()); err != nil {
		t.Errorf("default: %v", err)
	} else if c.Data.Cache != "" || c.Data.CacheDisabled() {
		t.Errorf("default: %+v", c.Data)
	}
	_, err := Load(with(file), nil, nil, testRegistry())
	if want := "data.cache: " + file + " is a file, not a folder (a folder, or off)"; err == nil || err.Error() != want {
		t.Errorf("a file: %v\nwant %s", err, want)
	}
	_, err = Load([]byte(goodDaemon), []string{"SPOTBOT_DATA__CACHE=off"}, nil, testRegistry())
	if want := "data.cache: not used in live mode (only paper-replay, backtest and the simulated server replay data); remove it or change mode (from SPOTBOT_DATA__CACHE)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("live mode: %v\nwant %s", err, want)
	}
}
