package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/session"
)

// simServerParts are what a sim-server configuration describes beyond the
// sim section: the symbols' rules, each account's API secret and where it
// came from, and the bars to replay.
type simServerParts struct {
	rules   []exchange.SymbolInfo
	secrets []accountSecret // by account; zero for an account without a key
	bars    map[string][]exchange.Kline
	iv      exchange.Interval
}

type accountSecret struct {
	secret, from string
}

// simServerPartsOf reads what the configuration points at (a recorded
// exchange info, secrets, bars), reporting every problem at once, each
// with its field path.
func simServerPartsOf(cfg *config.Config, environ []string) (simServerParts, error) {
	var p simServerParts
	var errs []error
	rules, err := serverRules(cfg.Server)
	if err != nil {
		errs = append(errs, err)
	}
	p.rules = rules
	for i, a := range cfg.Server.Accounts {
		var s accountSecret
		if a.APIKey != "" {
			if s.secret, s.from, err = secretOf(i, a, environ); err != nil {
				errs = append(errs, err)
			}
		}
		p.secrets = append(p.secrets, s)
	}
	if p.bars, p.iv, err = replayBars(cfg.Data, rules); err != nil {
		errs = append(errs, err)
	}
	return p, errors.Join(errs...)
}

// serverRules are the symbols of server.exchange_info, then those of
// server.symbols; when the recorded reply cannot be read, the configured
// symbols still come back with the error, so their bars are checked too.
func serverRules(s config.Server) ([]exchange.SymbolInfo, error) {
	recorded, err := recordedRules(s.ExchangeInfo)
	out := recorded
	for _, sym := range s.Symbols {
		out = append(out, sym.Info())
	}
	return out, err
}

// recordedRules reads the symbols of a recorded exchangeInfo reply.
func recordedRules(path string) ([]exchange.SymbolInfo, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("server.exchange_info: %w", err)
	}
	var info exchange.ExchangeInfo
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("server.exchange_info: %s: %w", path, err)
	}
	if len(info.Symbols) == 0 {
		return nil, fmt.Errorf("server.exchange_info: %s lists no symbols", path)
	}
	return info.Symbols, nil
}

// replayBars loads the bars of every served symbol from the data section
// as every other command does (session.LoadData); source none replays
// nothing.
func replayBars(d config.Data, rules []exchange.SymbolInfo) (map[string][]exchange.Kline, exchange.Interval, error) {
	if d.Source == "none" || len(rules) == 0 {
		return nil, exchange.Interval1m, nil
	}
	iv, err := exchange.ParseInterval(d.Interval)
	if err != nil {
		return nil, "", fmt.Errorf("data.interval: %w", err)
	}
	rng, err := d.Range()
	if err != nil {
		return nil, "", err
	}
	symbols := make([]string, len(rules))
	for i, r := range rules {
		symbols[i] = r.Symbol
	}
	bars, err := session.LoadData(d, iv, symbols, rng)
	if err != nil {
		return nil, "", err
	}
	return bars, iv, nil
}

// startOf is the exchange's initial clock: server.start, else the first
// bar's open, at the latest 2024-01-01.
func startOf(s config.Server, bars map[string][]exchange.Kline) time.Time {
	if s.Start != "" {
		t, _ := config.ParseTime(s.Start) // validated by config.Load
		return t
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, ks := range bars {
		if len(ks) > 0 && ks[0].OpenTime.Before(start) {
			start = ks[0].OpenTime
		}
	}
	return start
}

// minSecretLen is the shortest API secret a sim-server account may have,
// in characters: the live service's secrets are 32 hex digits, and a short
// one can be guessed from a single signed request offline.
const minSecretLen = 32

// secretOf finds an account's API secret: the environment variable named
// by secret_env, else the first line of secret_file (mode 0600), and
// refuses one shorter than minSecretLen characters (naming where it came
// from, never the secret nor its length). It returns the secret and where
// it came from, for the start-up message.
func secretOf(i int, a config.ServerAccount, environ []string) (string, string, error) {
	sec, from, err := findSecret(i, a, environ)
	if err == nil && utf8.RuneCountInString(sec) < minSecretLen {
		return "", "", fmt.Errorf("server.accounts[%d]: the API secret from %s is shorter than %d characters; use a longer one", i, from, minSecretLen)
	}
	return sec, from, err
}

func findSecret(i int, a config.ServerAccount, environ []string) (string, string, error) {
	at := fmt.Sprintf("server.accounts[%d]", i)
	if a.SecretEnv != "" {
		for _, kv := range environ {
			if name, val, _ := strings.Cut(kv, "="); name == a.SecretEnv && val != "" {
				return val, "$" + a.SecretEnv, nil
			}
		}
	}
	if a.SecretFile == "" {
		return "", "", fmt.Errorf("%s: the API secret is missing: set %s (or secret_file)", at, a.SecretEnv)
	}
	st, err := os.Stat(a.SecretFile)
	if err != nil {
		return "", "", fmt.Errorf("%s.secret_file: %w", at, err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", "", fmt.Errorf("%s.secret_file: %s is readable by group or others (mode %04o); run chmod 600 %s", at, a.SecretFile, perm, a.SecretFile)
	}
	b, err := os.ReadFile(a.SecretFile)
	if err != nil {
		return "", "", fmt.Errorf("%s.secret_file: %w", at, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			return l, a.SecretFile, nil
		}
	}
	return "", "", fmt.Errorf("%s.secret_file: %s holds no secret", at, a.SecretFile)
}
