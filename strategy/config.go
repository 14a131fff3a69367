package strategy

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/shopspring/decimal"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/internal/keys"
	"github.com/spotbot/spotbot/internal/spelling"
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
	// Exits, when set, are the position exits the runtime emulates for
	// the instance, replacing those its strategy declares (Exiter).
	Exits *Exits `koanf:"exits" json:"exits,omitempty"`
	// Protections, when set, lock the instance's symbols after losses.
	Protections *Protections `koanf:"protections" json:"protections,omitempty"`
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
	// Every problem of the exits and the protections, not the first.
	var errs []error
	if c.Exits != nil {
		if err := c.Exits.Validate(); err != nil {
			errs = append(errs, err)
		} else if c.Interval != "" {
			iv, _ := c.ParsedInterval()
			if _, err := c.Exits.Detail(iv); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if c.Protections != nil {
		if err := c.Protections.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
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
		return errors.New(paramErrors(err, dst))
	}
	if v, ok := dst.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("params.%w", err)
		}
	}
	return nil
}

// paramErrors rewrites mapstructure's errors to name each field by its
// path: an unknown key becomes "params.slowest: unknown parameter; did
// you mean slow?", a mistyped value "params.fast: is not a whole number".
// Values are never quoted: a secret pasted into the wrong parameter must
// not be printed back.
func paramErrors(err error, dst any) string {
	t := reflect.TypeOf(dst)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		de, ok := e.(*mapstructure.DecodeError)
		if !ok {
			if inner := errors.Unwrap(e); inner != nil {
				walk(inner)
				return
			}
			out = append(out, "params: "+e.Error())
			return
		}
		inner := de.Unwrap()
		switch inner.(type) {
		case interface{ Unwrap() []error }, *mapstructure.DecodeError:
			walk(inner)
			return
		}
		if unknown, ok := strings.CutPrefix(inner.Error(), "has invalid keys: "); ok {
			known := keys.Of(fieldType(t, de.Name()))
			for _, k := range strings.Split(unknown, ", ") {
				msg := "unknown parameter"
				if s, ok := spelling.Closest(k, known); ok {
					msg += "; did you mean " + s + "?"
				}
				out = append(out, "params."+joinPath(de.Name(), k)+": "+msg)
			}
			return
		}
		out = append(out, "params."+de.Name()+": "+TypeProblem(fieldType(t, de.Name())))
	}
	walk(err)
	return strings.Join(out, "; ")
}

// fieldType follows a dotted path of koanf tags from struct type t; nil
// when it leaves the structure.
func fieldType(t reflect.Type, path string) reflect.Type {
	if path == "" {
		return t
	}
	for _, name := range strings.Split(path, ".") {
		if t = keys.Field(t, name); t == nil {
			return nil
		}
	}
	return t
}

// TypeProblem says what a value that did not decode into a field of type
// t should have been ("is not a duration (such as 90s, ...)"). It never
// quotes the value, which may be a secret pasted into the wrong field.
func TypeProblem(t reflect.Type) string {
	t = keys.Deref(t)
	switch {
	case t == nil:
		return "has a value of the wrong type"
	case t == durationType:
		return errNotDuration.Error()
	case t == decimalType:
		return "is not a decimal number"
	case t == levelType:
		return errNotLevel.Error()
	case t == intervalType:
		return "is not an interval (known: 1m 5m 15m 30m 60m (or 1h) 4h 1d 1W 1M)"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "is not true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "is not a whole number"
	case reflect.Float32, reflect.Float64:
		return "is not a number"
	case reflect.String:
		return "is not text"
	case reflect.Slice:
		return "must be a list"
	case reflect.Map, reflect.Struct:
		return "must be a section of keys and values"
	}
	return "has a value of the wrong type"
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
	return mapstructure.ComposeDecodeHookFunc(decimalHook, durationHook, intervalHook, levelHook)
}

var (
	decimalType  = reflect.TypeOf(decimal.Decimal{})
	durationType = reflect.TypeOf(time.Duration(0))
	intervalType = reflect.TypeOf(exchange.Interval(""))
	levelType    = reflect.TypeOf(Level{})
)

// levelHook reads an exit level from text ("2%", "3atr", "95") or a
// number (a price).
func levelHook(from, to reflect.Type, data any) (any, error) {
	if to != levelType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		return ParseLevel(v)
	case int, int64, float64:
		return ParseLevel(fmt.Sprint(v))
	case Level:
		return v, nil
	}
	return nil, errNotLevel
}

func decimalHook(from, to reflect.Type, data any) (any, error) {
	if to != decimalType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		d, err := decimal.NewFromString(v)
		if err != nil {
			return nil, errors.New("is not a decimal number") // the value is not quoted
		}
		return d, nil
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
		d, err := ParseDuration(v)
		if err != nil {
			// The value is not quoted: a secret pasted into the wrong
			// field must not be printed back.
			return nil, errNotDuration
		}
		return d, nil
	case time.Duration:
		return v, nil
	}
	return nil, errNotDuration
}

var errNotDuration = errors.New("is not a duration (such as 90s, 15m, 1h30m or 2d)")

// ParseDuration reads a duration as time.ParseDuration does, with days
// besides: "60d", "1d12h" (a day is 24 hours).
func ParseDuration(s string) (time.Duration, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i == len(s) || s[i] != 'd' {
		return time.ParseDuration(s)
	}
	days, err := strconv.Atoi(s[:i])
	if err != nil || days > int(math.MaxInt64/int64(24*time.Hour)) {
		return 0, fmt.Errorf("duration %q: too many days", s)
	}
	d := time.Duration(days) * 24 * time.Hour
	if rest := s[i+1:]; rest != "" {
		r, err := time.ParseDuration(rest)
		if err != nil || r < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		if d > math.MaxInt64-r {
			return 0, fmt.Errorf("duration %q: too long", s)
		}
		d += r
	}
	return d, nil
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
