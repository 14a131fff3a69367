package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/spotbot/spotbot/internal/keys"
	"github.com/spotbot/spotbot/internal/spelling"
	"github.com/spotbot/spotbot/strategy"
)

// origin says where each configuration key came from, so a problem can
// name its source: the file and line, the environment variable, or a
// flag.
type origin struct {
	file  string            // the file's name; "" when Load was given bare text
	root  *yamlv3.Node      // the file's document; nil when it has none
	env   map[string]string // path → variable
	flags map[string]bool
}

func newOrigin(file string, yamlText []byte, environ []string, overrides map[string]any) origin {
	o := origin{file: file, env: map[string]string{}, flags: map[string]bool{}}
	var doc yamlv3.Node
	if file != "" && yamlv3.Unmarshal(yamlText, &doc) == nil && len(doc.Content) == 1 {
		o.root = doc.Content[0]
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if rest, ok := strings.CutPrefix(name, EnvPrefix); ok {
			if p := envPath(rest); p != "" {
				o.env[p] = name
			}
		}
	}
	for k := range overrides {
		o.flags[k] = true
	}
	return o
}

// of returns the source of path for a problem's text: " (bot.yaml:12)",
// " (from SPOTBOT_RISK__MAX_DRAWDOWNN)", " (from a flag)", or "" for a
// default. A key the file does not set is placed at its nearest section
// the file does set (data.path missing: the line of data).
func (o origin) of(path string) string {
	if v := o.env[path]; v != "" {
		return " (from " + v + ")"
	}
	if o.flags[path] {
		return " (from a flag)"
	}
	toks := pathTokens(path)
	for n := len(toks); n > 0; n-- {
		if line := lineOf(o.root, toks[:n]); line > 0 {
			return fmt.Sprintf(" (%s:%d)", filepath.Base(o.file), line)
		}
	}
	return ""
}

// lineOf finds the line of the key or list item toks name in a YAML node;
// 0 when it is not there.
func lineOf(n *yamlv3.Node, toks []string) int {
	line := 0
	for _, t := range toks {
		if n == nil {
			return 0
		}
		if idx, ok := strings.CutPrefix(t, "["); ok {
			i, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if err != nil || n.Kind != yamlv3.SequenceNode || i < 0 || i >= len(n.Content) {
				return 0
			}
			n = n.Content[i]
			line = n.Line
			continue
		}
		if n.Kind != yamlv3.MappingNode {
			return 0
		}
		var next *yamlv3.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == t {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			return 0
		}
		n = next
	}
	return line
}

// pathTokens splits "strategies[1].params.fast" into strategies, [1],
// params and fast.
func pathTokens(path string) []string {
	var out []string
	for _, part := range strings.Split(path, ".") {
		for {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				break
			}
			out = append(out, part[i:i+j+1])
			part = part[i+j+1:]
		}
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

// typeAt walks Config's fields by their koanf names to the type at a
// decoder's field name, returning it and the name as a configuration path
// (a map's keys joined with dots: mapstructure's account.balances[BTC] is
// account.balances.BTC). The type is nil when the path leaves the
// structure.
func typeAt(name string) (reflect.Type, string) {
	t := reflect.TypeOf(Config{})
	var path strings.Builder
	for _, tok := range pathTokens(name) {
		t = keys.Deref(t)
		switch {
		case t == nil:
		case t.Kind() == reflect.Map:
			tok = strings.TrimSuffix(strings.TrimPrefix(tok, "["), "]")
			t = t.Elem()
		case t.Kind() == reflect.Slice && strings.HasPrefix(tok, "["):
			t = t.Elem()
		case t.Kind() == reflect.Struct:
			t = keys.Field(t, tok)
		default:
			t = nil
		}
		if path.Len() > 0 && !strings.HasPrefix(tok, "[") {
			path.WriteByte('.')
		}
		path.WriteString(tok)
	}
	return t, path.String()
}

// knownKeys lists the keys of the section at path, from its koanf tags.
func knownKeys(path string) []string {
	t, _ := typeAt(path)
	return keys.Of(t)
}

// problem is one thing wrong with a configuration, at a path.
type problem struct {
	path, msg string
}

// decodeProblems turns the decoder's errors into problems: an unknown key
// with the known key it most likely meant, a value of the wrong type by
// what the field takes. failed lists the paths whose value did not decode,
// whose zero value validation must not report again.
func decodeProblems(err error) (probs []problem, failed []string) {
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
				walk(inner) // mapstructure's "decoding failed due to ..."
				return
			}
			probs = append(probs, problem{"", e.Error()})
			return
		}
		inner := de.Unwrap()
		if _, ok := inner.(interface{ Unwrap() []error }); ok {
			walk(inner)
			return
		}
		if _, ok := inner.(*mapstructure.DecodeError); ok {
			walk(inner)
			return
		}
		if keys, ok := strings.CutPrefix(inner.Error(), "has invalid keys: "); ok {
			_, parentPath := typeAt(de.Name())
			known := knownKeys(de.Name())
			for _, key := range strings.Split(keys, ", ") {
				p := key
				if parentPath != "" {
					p = parentPath + "." + key
				}
				msg := "unknown key"
				if s, ok := spelling.Closest(key, known); ok {
					msg += "; did you mean " + s + "?"
				}
				probs = append(probs, problem{p, msg})
			}
			return
		}
		t, path := typeAt(de.Name())
		probs = append(probs, problem{path, strategy.TypeProblem(t)})
		failed = append(failed, path)
	}
	walk(err)
	return probs, failed
}

// under says path is p or a key below it.
func under(path, p string) bool {
	return path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}

// annotate writes each problem a line, "path: what (source)", leaving out
// validation problems of fields whose value did not decode (their zero
// value is not what the author wrote).
func (o origin) annotate(probs []problem, validation error, failed []string) error {
	if validation != nil {
		for _, l := range strings.Split(validation.Error(), "\n") {
			if l = strings.TrimSpace(l); l == "" {
				continue
			}
			path, msg, ok := strings.Cut(l, ": ")
			if !ok || strings.ContainsAny(path, " \"") {
				probs = append(probs, problem{"", l})
				continue
			}
			if slices.ContainsFunc(failed, func(f string) bool { return under(path, f) }) {
				continue
			}
			probs = append(probs, problem{path, msg})
		}
	}
	if len(probs) == 0 {
		return nil
	}
	errs := make([]error, 0, len(probs))
	for _, p := range probs {
		if p.path == "" {
			errs = append(errs, errors.New(p.msg))
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s%s", p.path, p.msg, o.of(p.path)))
	}
	return errors.Join(errs...)
}

// shown quotes an enumeration's value for a problem's text, followed by a
// space, when it is short and looks like a word; else it is left out: a
// value with digits or of some length may be a secret pasted into the
// wrong field.
func shown(v string) string {
	if len(v) > 20 {
		return ""
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_' || r == ' ') {
			return ""
		}
	}
	return strconv.Quote(v) + " "
}
