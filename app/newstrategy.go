package app

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
)

// spotbotModule is the module path of spotbot itself.
const spotbotModule = "github.com/spotbot/spotbot"

// scaffoldGo is the go directive of a new module: spotbot's own, which a
// test keeps equal to the root go.mod's.
const scaffoldGo = "1.26.0"

// unversioned is the version go mod tidy writes for a module that a
// replace directive points at a directory.
const unversioned = "v0.0.0-00010101000000-000000000000"

//go:embed templates/newstrategy/*.tmpl
var scaffoldTemplates embed.FS

// scaffoldFiles maps each template to the file it becomes; "NAME" in a
// path is the strategy's name.
var scaffoldFiles = []struct{ tmpl, path string }{
	{"go.mod.tmpl", "go.mod"},
	{"main.go.tmpl", "main.go"},
	{"strategy.go.tmpl", "NAME/NAME.go"},
	{"strategy_test.go.tmpl", "NAME/NAME_test.go"},
	{"backtest.yaml.tmpl", "backtest.yaml"},
	{"paper.yaml.tmpl", "paper.yaml"},
	{"live.yaml.tmpl", "live.yaml"},
	{"gitignore.tmpl", ".gitignore"},
}

// newNewStrategyCmd is `bot new-strategy NAME`.
func newNewStrategyCmd(prog string) *cobra.Command {
	var o scaffoldFlags
	c := &cobra.Command{
		Use:   "new-strategy NAME",
		Short: "Write a new module with a strategy of your own, ready to test and backtest",
		Long: `new-strategy writes a Go module with a strategy of your own into --dir
(./NAME by default): go.mod, main.go (every command of this tool over the
built-in strategies and NAME), NAME/NAME.go (a moving-average trend rule
with typed parameters, a warm-up and market orders), NAME/NAME_test.go (a
test through the runtime and the simulated exchange), backtest.yaml,
paper.yaml, live.yaml and .gitignore. It never overwrites a file.

NAME is the Go package and the registered strategy name: lowercase letters
and digits, starting with a letter.

Which spotbot the module builds against:
  --spotbot PATH        a replace directive to the checkout at PATH;
  otherwise, when this binary was built from a spotbot checkout (go run
  ./cmd/bot in it), a replace directive to that checkout;
  otherwise, when it was built from a released spotbot module (go run or
  go install of github.com/spotbot/spotbot/cmd/bot@VERSION, or a module
  requiring it), a require of that version;
  otherwise, when the working directory is inside a spotbot checkout, a
  replace directive to it. If none applies, it asks for --spotbot.

With a replace directive, go.mod lists spotbot's requirements and go.sum
is the checkout's: the module builds at once, offline, from the modules
that built spotbot. With a require, go.sum is not written: run "go mod
tidy" in the new folder first (it fetches from the module proxy).`,
		Example: "  " + prog + " new-strategy breakout\n  " +
			prog + " new-strategy mystrat --dir ../mystrat --module example.com/me/mystrat",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.name = args[0]
			src := buildSource{}
			src.info, src.infoOK = debug.ReadBuildInfo()
			_, src.file, _, _ = runtime.Caller(0)
			src.wd, _ = os.Getwd()
			return newStrategy(o, src, prog, c.OutOrStdout())
		},
	}
	flags := c.Flags()
	flags.StringVar(&o.dir, "dir", "", "folder of the new module (default ./NAME)")
	flags.StringVar(&o.module, "module", "", "module path (default example.com/NAME)")
	flags.StringVar(&o.spotbot, "spotbot", "", "a spotbot checkout to build against (a replace directive)")
	return c
}

// scaffoldFlags are the arguments of `bot new-strategy`.
type scaffoldFlags struct {
	name, dir, module, spotbot string
}

// buildSource is what the binary knows of how it was built: its build
// information, the path this source file was compiled from (absolute
// unless built with -trimpath) and the working directory.
type buildSource struct {
	info   *debug.BuildInfo
	infoOK bool
	file   string
	wd     string
}

// scaffoldData is what the templates see.
type scaffoldData struct {
	Name, ID, Module, Prog string
	Go                     string
	Version                string // of spotbot's require directive
	Replace                string // the replace directive's target, quoted if needed; "" for none
	// Direct and Indirect are the go.mod's requirements ("path version"),
	// set when they are known from a checkout; else go.mod requires spotbot
	// alone and go mod tidy completes it.
	Direct, Indirect []string
}

// newStrategy is `bot new-strategy`: it checks the arguments, decides which
// spotbot the module builds against, writes the files and prints what to
// type next.
func newStrategy(o scaffoldFlags, src buildSource, prog string, stdout io.Writer) error {
	if err := validStrategyName(o.name); err != nil {
		return err
	}
	if o.dir == "" {
		o.dir = o.name
	}
	if o.module == "" {
		o.module = "example.com/" + o.name
	}
	if err := validModulePath(o.module); err != nil {
		return err
	}
	version, replace, why, err := spotbotFor(o.spotbot, src)
	if err != nil {
		return err
	}
	d := scaffoldData{Name: o.name, ID: o.name[:min(len(o.name), 16)], Module: o.module, Prog: prog,
		Go: scaffoldGo, Version: version, Replace: modPath(replace)}
	var sum []byte
	if replace != "" {
		// From a checkout, the module is complete at once: spotbot's own
		// requirements and go.sum, so it builds offline with the modules
		// that built spotbot.
		if d.Direct, d.Indirect, sum, err = checkoutRequirements(replace); err != nil {
			return err
		}
	}
	files, err := renderScaffold(d)
	if err != nil {
		return err
	}
	if sum != nil {
		files = append(files, scaffoldFile{path: "go.sum", text: sum})
	}
	if err := writeScaffold(o.dir, files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (module %s, %s)\n", o.dir, o.module, why)
	for _, f := range files {
		fmt.Fprintf(stdout, "  %s\n", filepath.Join(o.dir, f.path))
	}
	if sum != nil {
		fmt.Fprintf(stdout, `
next (go.mod and go.sum are complete: no network needed; run "go mod tidy"
after importing other modules):
  cd %s
  go test ./...
  go run . backtest run --config backtest.yaml
`, shellQuote(o.dir))
		return nil
	}
	fmt.Fprintf(stdout, `
next (go mod tidy completes go.mod and writes go.sum, from the module proxy or
the module cache):
  cd %s
  go mod tidy
  go test ./...
  go run . backtest run --config backtest.yaml
`, shellQuote(o.dir))
	return nil
}

// checkoutRequirements reads a spotbot checkout's go.mod and go.sum and
// returns the new module's requirements: spotbot and the modules the
// generated code imports directly, then every other requirement of
// spotbot's as indirect, and spotbot's go.sum, which covers them all.
func checkoutRequirements(dir string) (direct, indirect []string, sum []byte, err error) {
	text, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, nil, nil, err
	}
	if sum, err = os.ReadFile(filepath.Join(dir, "go.sum")); err != nil {
		return nil, nil, nil, err
	}
	direct = []string{spotbotModule + " " + unversioned}
	inRequire := false
	for i, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if c := strings.Index(line, "//"); c >= 0 {
			line = strings.TrimSpace(line[:c])
		}
		var req string
		switch {
		case line == "require (":
			inRequire = true
			continue
		case inRequire && line == ")":
			inRequire = false
			continue
		case inRequire:
			req = line
		case strings.HasPrefix(line, "require "):
			req = strings.TrimSpace(strings.TrimPrefix(line, "require "))
		default:
			continue
		}
		if req == "" {
			continue
		}
		f := strings.Fields(req)
		if len(f) != 2 {
			return nil, nil, nil, fmt.Errorf("%s/go.mod:%d: cannot read requirement %q", dir, i+1, req)
		}
		if f[0] == "github.com/shopspring/decimal" {
			direct = append(direct, f[0]+" "+f[1])
		} else {
			indirect = append(indirect, f[0]+" "+f[1])
		}
	}
	slices.Sort(direct)
	slices.Sort(indirect)
	return direct, indirect, sum, nil
}

// namePattern is what new-strategy accepts as a strategy name: a Go package
// name by the usual conventions (no underscores, no capitals).
var namePattern = regexp.MustCompile(`^[a-z][a-z0-9]{0,31}$`)

// reservedNames are identifiers the generated files import or declare:
// a package of that name would clash with them.
var reservedNames = []string{"app", "decimal", "errors", "exchange", "fmt", "indicator", "main",
	"slices", "strategies", "strategy", "strategytest", "testing"}

func validStrategyName(name string) error {
	switch {
	case !namePattern.MatchString(name):
		return fmt.Errorf("%w: strategy name %q: use 1 to 32 lowercase letters and digits, starting with a letter (it is the Go package and the registered name)", ErrUsage, name)
	case token.IsKeyword(name):
		return fmt.Errorf("%w: strategy name %q is a Go keyword", ErrUsage, name)
	}
	for _, r := range reservedNames {
		if name == r {
			return fmt.Errorf("%w: strategy name %q clashes with a package the generated code imports; choose another", ErrUsage, name)
		}
	}
	return nil
}

// modulePattern is a module path as go.mod accepts it unquoted: elements
// of letters, digits and ._~- separated by single slashes.
var modulePattern = regexp.MustCompile(`^[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$`)

func validModulePath(p string) error {
	if !modulePattern.MatchString(p) || strings.HasPrefix(p, "-") {
		return fmt.Errorf("%w: module path %q: use elements of letters, digits and ._~- separated by slashes, such as example.com/me/mystrat", ErrUsage, p)
	}
	if p == spotbotModule || strings.HasPrefix(p, spotbotModule+"/") {
		return fmt.Errorf("%w: module path %q is inside spotbot's own; choose another", ErrUsage, p)
	}
	return nil
}

// spotbotFor decides how the new module finds spotbot: the version its
// require names, the directory a replace points at ("" for none), and
// why, for the user. See the command's help for the order of the rules.
func spotbotFor(flag string, src buildSource) (version, replace, why string, err error) {
	if flag != "" {
		dir, err := filepath.Abs(flag)
		if err != nil {
			return "", "", "", err
		}
		if !isSpotbotCheckout(dir) {
			return "", "", "", fmt.Errorf("%w: --spotbot %s: no go.mod of module %s there", ErrUsage, flag, spotbotModule)
		}
		return unversioned, dir, "spotbot from " + dir, nil
	}
	// This file, compiled from app/ of a checkout, names the checkout. A
	// copy in the module cache (a directory named spotbot@VERSION) is no
	// checkout: its version comes from the build information below.
	if filepath.IsAbs(src.file) {
		dir := filepath.Dir(filepath.Dir(src.file))
		if !strings.Contains(filepath.Base(dir), "@") && isSpotbotCheckout(dir) {
			return unversioned, dir, "spotbot from the checkout this binary was built from, " + dir, nil
		}
	}
	if v := builtVersion(src.info, src.infoOK); v != "" {
		return v, "", "spotbot " + v + ", the version this binary was built from", nil
	}
	for dir := src.wd; dir != "" && filepath.IsAbs(dir); {
		if isSpotbotCheckout(dir) {
			return unversioned, dir, "spotbot from the checkout around the working directory, " + dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", "", "", fmt.Errorf("%w: cannot tell which spotbot to build against (this binary was not built from a released version or from a checkout): pass --spotbot PATH to a spotbot checkout", ErrUsage)
}

// releasedVersion matches a module version the module proxy can serve: a
// release or a pseudo-version, without "+dirty" or other build metadata.
var releasedVersion = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// builtVersion returns the version of spotbot the build information
// records, as the main module or as a dependency that is not replaced,
// or "" when it records none the proxy could serve.
func builtVersion(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return ""
	}
	mods := append([]*debug.Module{&info.Main}, info.Deps...)
	for _, m := range mods {
		if m != nil && m.Path == spotbotModule && m.Replace == nil && releasedVersion.MatchString(m.Version) {
			return m.Version
		}
	}
	return ""
}

// moduleLine finds a go.mod's module directive.
var moduleLine = regexp.MustCompile(`(?m)^module\s+"?([^\s"]+)"?\s*$`)

// isSpotbotCheckout reports whether dir holds spotbot's go.mod.
func isSpotbotCheckout(dir string) bool {
	text, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	m := moduleLine.FindSubmatch(text)
	return m != nil && string(m[1]) == spotbotModule
}

// modPath writes a path as go.mod needs it: quoted when it holds a space
// or a character go.mod treats specially.
func modPath(p string) string {
	if strings.ContainsAny(p, " \t\"'`()[]{},;") || strings.Contains(p, "//") {
		return strconv.Quote(p)
	}
	return p
}

// shellSafe matches text a POSIX shell reads as one word, unquoted.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9._/+-]+$`)

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(p string) string {
	if shellSafe.MatchString(p) {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// scaffoldFile is one rendered file, its path relative to the module.
type scaffoldFile struct {
	path string
	text []byte
}

// renderScaffold renders every template with d, and formats the Go files
// as gofmt would.
func renderScaffold(d scaffoldData) ([]scaffoldFile, error) {
	out := make([]scaffoldFile, 0, len(scaffoldFiles))
	for _, f := range scaffoldFiles {
		t, err := template.New(f.tmpl).Option("missingkey=error").ParseFS(scaffoldTemplates, "templates/newstrategy/"+f.tmpl)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return nil, err
		}
		path := strings.ReplaceAll(f.path, "NAME", d.Name)
		text := b.Bytes()
		if strings.HasSuffix(path, ".go") {
			if text, err = format.Source(text); err != nil {
				return nil, fmt.Errorf("template %s: %w", f.tmpl, err)
			}
		}
		out = append(out, scaffoldFile{path: path, text: text})
	}
	return out, nil
}

// writeScaffold writes the files under dir, refusing before it writes
// anything when one of them exists.
func writeScaffold(dir string, files []scaffoldFile) error {
	for _, f := range files {
		p := filepath.Join(dir, f.path)
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("%w: %s exists; new-strategy never overwrites a file: choose another --dir or move it away", ErrUsage, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, f := range files {
		p := filepath.Join(dir, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := w.Write(f.text); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	return nil
}
