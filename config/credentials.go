package config

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spotbot/spotbot/exchange"
)

// Credentials returns the API key and secret for live trading: from the
// environment (SPOTBOT_API_KEY and SPOTBOT_API_SECRET, both or neither), or
// from exchange.key_file, whose first line is the key and second the
// secret. A key file readable by group or others is refused. The values are
// wrapped so they never print.
func (c *Config) Credentials(environ []string) (key, secret exchange.Secret, err error) {
	var k, s string
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		switch name {
		case EnvPrefix + "API_KEY":
			k = val
		case EnvPrefix + "API_SECRET":
			s = val
		}
	}
	switch {
	case k != "" && s != "":
		return exchange.NewSecret(k), exchange.NewSecret(s), nil
	case k != "" || s != "":
		return key, secret, fmt.Errorf("credentials: set both %sAPI_KEY and %sAPI_SECRET, or neither", EnvPrefix, EnvPrefix)
	case c.Exchange.KeyFile == "":
		return key, secret, fmt.Errorf("credentials: none found; set %sAPI_KEY and %sAPI_SECRET or exchange.key_file", EnvPrefix, EnvPrefix)
	}
	return readKeyFile(c.Exchange.KeyFile)
}

func readKeyFile(path string) (key, secret exchange.Secret, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return key, secret, fmt.Errorf("exchange.key_file: %w", err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return key, secret, fmt.Errorf("exchange.key_file: %s is readable by group or others (mode %04o); run chmod 600 %s", path, perm, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return key, secret, fmt.Errorf("exchange.key_file: %w", err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		return key, secret, fmt.Errorf("exchange.key_file: %s must hold two lines (key, then secret), found %d", path, len(lines))
	}
	return exchange.NewSecret(lines[0]), exchange.NewSecret(lines[1]), nil
}
