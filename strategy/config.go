package strategy

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
)

// Config is one strategy instance of a configuration.
type Config struct {
	// Name is the registered strategy name, e.g. "smacross".
	Name string `koanf:"name" json:"name"`
	// ID names this instance; unique within a configuration. It prefixes
	// the instance's client order ids and keys its state.
	ID string `koanf:"id" json:"id"`
	// Symbols the instance trades.
	Symbols []string `koanf:"symbols" json:"symbols"`
	// Interval of the instance's feeds ("1h" is accepted for 60m).
	Interval string `koanf:"interval" json:"interval"`
	// Schedule is an optional cron spec for scheduled strategies.
	Schedule string `koanf:"schedule" json:"schedule,omitempty"`
	// Params are the strategy's own parameters, decoded by DecodeParams.
	Params map[string]any `koanf:"params" json:"params"`
}

// Feeds returns the instance's feeds (every symbol at the interval).
func (c Config) Feeds() ([]Feed, error) {
	iv, err := c.ParsedInterval()
	if err != nil {
		return nil, err
	}
	out := make([]Feed, 0, len(c.Symbols))
	for _, s := range c.Symbols {
		out = append(out, Feed{Symbol: s, Interval: iv})
	}
	return out, nil
}

// SymbolsOf lists the symbols the instances trade, sorted, once each.
func SymbolsOf(insts []Config) []string {
	seen := map[string]bool{}
	var out []string
	for _, in := range insts {
		for _, s := range in.Symbols {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ParsedInterval returns the wire interval of the instance.
func (c Config) ParsedInterval() (exchange.Interval, error) {
	iv, err := exchange.ParseInterval(c.Interval)
	if err != nil {
		return "", fmt.Errorf("interval: %w", err)
	}
	return iv, nil
}

// Validate checks the fields every instance needs, naming the field.
func (c Config) Validate() error {
	switch {
	case c.Name == "":
		return errors.New("name: required")
	case c.ID == "":
		return errors.New("id: required")
	case !validID(c.ID):
		return fmt.Errorf("id: %q must be 1-16 letters, digits, '-' or '_'", c.ID)
	}
	for i, s := range c.Symbols {
		if s == "" || strings.ToUpper(s) != s {
			return fmt.Errorf("symbols[%d]: %q must be a non-empty upper-case symbol", i, s)
		}
	}
	if c.Interval != "" {
		if _, err := c.ParsedInterval(); err != nil {
			return err
		}
	}
	return nil
}

// validID keeps instance ids short enough to prefix client order ids, which
// the exchange caps at 32 characters.
func validID(id string) bool {
	if len(id) == 0 || len(id) > 16 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// DecodeParams decodes raw parameters into dst, a pointer to a struct whose
// fields carry `koanf` tags and hold the defaults before the call. Unknown
// keys and mistyped values are errors naming the field path
// ("params.fast: ..."). decimal.Decimal fields accept strings and numbers,
// time.Duration fields accept "90s"-style strings, exchange.Interval fields
// accept any interval ParseInterval takes. If dst has a Validate() error
// method it is called after decoding.
func DecodeParams(raw map[string]any, dst any) error {
	var md mapstructure.Metadata
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		TagName:     "koanf",
		ErrorUnused: true,
		Metadata:    &md,
		Result:      dst,
		DecodeHook:  DecodeHook(),
	})
	if err != nil {
		return fmt.Errorf("params: %w", err)
	}
	if err := dec.Decode(raw); err != nil {
		return errors.New(paramErrors(err))
	}
	if v, ok := dst.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("params.%w", err)
		}
	}
	return nil
}

// cleanDecodeError flattens mapstructure's multi-error text into one line.
func cleanDecodeError(err error) string {
	s := strings.ReplaceAll(err.Error(), "\n", "; ")
	s = strings.TrimPrefix(s, "decoding failed due to the following error(s):; ; ")
	return s
}

var (
	invalidKeys = regexp.MustCompile(`^'([^']*)' has invalid keys: (.+)$`)
	fieldError  = regexp.MustCompile(`^'([^']+)' (.+)$`)
)

// paramErrors rewrites mapstructure's errors to name each field by its
// path: an unknown key becomes "params.slowest: unknown parameter", a
// mistyped value "params.fast: expected type 'int', ...".
func paramErrors(err error) string {
	var out []string
	for _, line := range strings.Split(cleanDecodeError(err), "; ") {
		if line == "" {
			continue
		}
		if m := invalidKeys.FindStringSubmatch(line); m != nil {
			for _, k := range strings.Split(m[2], ", ") {
				out = append(out, "params."+joinPath(m[1], k)+": unknown parameter")
			}
			continue
		}
		if m := fieldError.FindStringSubmatch(line); m != nil {
			out = append(out, "params."+m[1]+": "+m[2])
			continue
		}
		out = append(out, "params: "+line)
	}
	return strings.Join(out, "; ")
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// DecodeHook converts configuration values into decimal.Decimal (from
// strings and numbers), time.Duration (from "90s"-style strings) and
// exchange.Interval (from any interval ParseInterval takes). The config
// package decodes whole files with it.
func DecodeHook() mapstructure.DecodeHookFunc {
	return mapstructure.ComposeDecodeHookFunc(decimalHook, durationHook, intervalHook)
}

var (
	decimalType  = reflect.TypeOf(decimal.Decimal{})
	durationType = reflect.TypeOf(time.Duration(0))
	intervalType = reflect.TypeOf(exchange.Interval(""))
)

func decimalHook(from, to reflect.Type, data any) (any, error) {
	if to != decimalType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		return decimal.NewFromString(v)
	case int:
		return decimal.NewFromInt(int64(v)), nil
	case int64:
		return decimal.NewFromInt(v), nil
	case float64:
		// YAML numbers arrive as float64: go through their shortest text
		// form so 0.1 stays 0.1.
		return decimal.NewFromString(fmt.Sprint(v))
	case decimal.Decimal:
		return v, nil
	}
	return nil, fmt.Errorf("expected a decimal, got %T", data)
}

func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		return time.ParseDuration(v)
	case time.Duration:
		return v, nil
	}
	return nil, fmt.Errorf("expected a duration such as \"90s\", got %T", data)
}

func intervalHook(from, to reflect.Type, data any) (any, error) {
	if to != intervalType {
		return data, nil
	}
	s, ok := data.(string)
	if !ok {
		return nil, fmt.Errorf("expected an interval, got %T", data)
	}
	return exchange.ParseInterval(s)
}
