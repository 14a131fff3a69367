package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spotbot/spotbot/strategy"
)

// repoRoot is the spotbot checkout the tests run in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestNewStrategyRefusesBadArguments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"new-strategy", "MyStrat"}, `usage: strategy name "MyStrat": use 1 to 32 lowercase letters and digits, starting with a letter (it is the Go package and the registered name)`},
		{[]string{"new-strategy", "my_strat"}, `usage: strategy name "my_strat": use 1 to 32 lowercase letters and digits, starting with a letter (it is the Go package and the registered name)`},
		{[]string{"new-strategy", "9lives"}, `usage: strategy name "9lives": use 1 to 32 lowercase letters and digits, starting with a letter (it is the Go package and the registered name)`},
		{[]string{"new-strategy", "func"}, `usage: strategy name "func" is a Go keyword`},
		{[]string{"new-strategy", "strategy"}, `usage: strategy name "strategy" clashes with a package the generated code imports; choose another`},
		{[]string{"new-strategy", "ok", "--module", "example.com/a b"}, `usage: module path "example.com/a b": use elements of letters, digits and ._~- separated by slashes, such as example.com/me/mystrat`},
		{[]string{"new-strategy", "ok", "--module", "github.com/spotbot/spotbot/x"}, `usage: module path "github.com/spotbot/spotbot/x" is inside spotbot's own; choose another`},
		{[]string{"new-strategy", "ok", "--spotbot", dir}, "usage: --spotbot " + dir + ": no go.mod of module github.com/spotbot/spotbot there"},
		{[]string{"new-strategy"}, "usage: accepts 1 arg(s), received 0\nRun 'bot new-strategy --help' for usage."},
	} {
		var out, errOut bytes.Buffer
		code := Execute(t.Context(), Bot(strategy.NewRegistry()), append(tc.args, "--dir", filepath.Join(dir, "out")), &out, &errOut)
		if code != ExitUsage || strings.TrimSpace(errOut.String()) != tc.want || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant exit 2 and\n%s", tc.args, code, out.String(), errOut.String(), tc.want)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("refused commands wrote %v (%v)", entries, err)
	}
}

func TestNewStrategyNeverOverwrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "trend", "trend_test.go")
	if err := os.MkdirAll(filepath.Dir(existing), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(existing, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Execute(t.Context(), Bot(strategy.NewRegistry()), []string{"new-strategy", "trend", "--dir", dir}, &out, &errOut)
	want := "usage: " + existing + " exists; new-strategy never overwrites a file: choose another --dir or move it away\n"
	if code != ExitUsage || errOut.String() != want {
		t.Fatalf("exit %d, stderr %q, want 2 and %q", code, errOut.String(), want)
	}
	// Nothing else was written, and the file is as it was.
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, strings.TrimPrefix(p, dir+"/"))
		}
		return err
	})
	if text, _ := os.ReadFile(existing); !slices.Equal(files, []string{"trend/trend_test.go"}) || string(text) != "mine" {
		t.Errorf("files %q, %s holds %q", files, existing, text)
	}
}

// TestSpotbotFor checks which spotbot a new module builds against, for
// each way the binary may have been built.
func TestSpotbotFor(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	cache := filepath.Join(t.TempDir(), "github.com", "spotbot", "spotbot@v1.2.0")
	if err := os.MkdirAll(filepath.Join(cache, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "go.mod"), []byte("module github.com/spotbot/spotbot\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	main := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/spotbot/spotbot", Version: v}}
	}
	dep := func(v string, replaced bool) *debug.BuildInfo {
		m := &debug.Module{Path: "github.com/spotbot/spotbot", Version: v}
		if replaced {
			m.Replace = &debug.Module{Path: "../spotbot"}
		}
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/mybot"}, Deps: []*debug.Module{m}}
	}
	for _, tc := range []struct {
		name    string
		flag    string
		src     buildSource
		version string
		replace string
		err     string
	}{
		{"--spotbot wins", root, buildSource{info: main("v1.2.0"), infoOK: true, file: filepath.Join(cache, "app", "newstrategy.go")},
			unversioned, root, ""},
		{"built from a checkout", "", buildSource{info: main("(devel)"), infoOK: true, file: filepath.Join(root, "app", "newstrategy.go"), wd: elsewhere},
			unversioned, root, ""},
		{"a checkout with VCS stamping", "", buildSource{info: main("v0.0.0-20260101000000-abcdefabcdef"), infoOK: true, file: filepath.Join(root, "app", "newstrategy.go")},
			unversioned, root, ""},
		{"go run ...@v1.2.0", "", buildSource{info: main("v1.2.0"), infoOK: true, file: filepath.Join(cache, "app", "newstrategy.go"), wd: elsewhere},
			"v1.2.0", "", ""},
		{"a module requiring spotbot", "", buildSource{info: dep("v1.3.0-rc.1", false), infoOK: true, file: "github.com/spotbot/spotbot@v1.3.0-rc.1/app/newstrategy.go", wd: elsewhere},
			"v1.3.0-rc.1", "", ""},
		{"-trimpath in a checkout", "", buildSource{info: main("(devel)"), infoOK: true, file: "github.com/spotbot/spotbot/app/newstrategy.go", wd: filepath.Join(root, "docs")},
			unversioned, root, ""},
		{"a dirty build elsewhere", "", buildSource{info: main("v1.2.1-0.20260101000000-abcdefabcdef+dirty"), infoOK: true, file: "github.com/spotbot/spotbot/app/newstrategy.go", wd: elsewhere},
			"", "", "usage: cannot tell which spotbot to build against (this binary was not built from a released version or from a checkout): pass --spotbot PATH to a spotbot checkout"},
		{"a replaced dependency elsewhere", "", buildSource{info: dep("v1.2.0", true), infoOK: true, wd: elsewhere},
			"", "", "usage: cannot tell which spotbot to build against (this binary was not built from a released version or from a checkout): pass --spotbot PATH to a spotbot checkout"},
		{"no build information", "", buildSource{wd: elsewhere},
			"", "", "usage: cannot tell which spotbot to build against (this binary was not built from a released version or from a checkout): pass --spotbot PATH to a spotbot checkout"},
	} {
		v, r, _, err := spotbotFor(tc.flag, tc.src)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if v != tc.version || r != tc.replace || got != tc.err {
			t.Errorf("%s: version %q, replace %q, error %q; want %q, %q, %q", tc.name, v, r, got, tc.version, tc.replace, tc.err)
		}
	}
}

// TestScaffoldGoDirective keeps a new module's go directive at spotbot's.
func TestScaffoldGoDirective(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(text)
	if m == nil || string(m[1]) != scaffoldGo {
		t.Errorf("go.mod's go directive %q, new modules get %q", m, scaffoldGo)
	}
}

// TestScaffoldFromRelease checks the go.mod of a module made by a binary of
// a released spotbot: a require of that version, for go mod tidy to
// complete, and no go.sum.
func TestScaffoldFromRelease(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "m")
	src := buildSource{info: &debug.BuildInfo{Main: debug.Module{Path: "github.com/spotbot/spotbot", Version: "v1.2.0"}}, infoOK: true,
		file: "github.com/spotbot/spotbot@v1.2.0/app/newstrategy.go", wd: t.TempDir()}
	var out bytes.Buffer
	if err := newStrategy(scaffoldFlags{name: "trend", dir: dir, module: "example.com/me/trend"}, src, "bot", &out); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "module example.com/me/trend\n\ngo " + scaffoldGo + "\n\nrequire github.com/spotbot/spotbot v1.2.0\n"; string(text) != want {
		t.Errorf("go.mod\n%s\nwant\n%s", text, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); !os.IsNotExist(err) {
		t.Errorf("go.sum written (%v)", err)
	}
	if want := "\nnext (go mod tidy completes go.mod and writes go.sum, from the module proxy or\nthe module cache):\n  cd " + dir +
		"\n  go mod tidy\n  go test ./...\n  go run . backtest run --config backtest.yaml\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("output\n%s\nwant it to end with\n%s", out.String(), want)
	}
}

// TestNewStrategyModule scaffolds a module as a newcomer would, builds it
// against this checkout, runs its test and backtests it through its own
// main.go. It compiles a module, so it runs alone and takes a minute or
// two.
func TestNewStrategyModule(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot build the new module")
	}
	root := repoRoot(t)
	dir := filepath.Join(t.TempDir(), "mystrat")
	var out, errOut bytes.Buffer
	if code := Execute(t.Context(), Bot(strategy.NewRegistry()), []string{"new-strategy", "mystrat", "--dir", dir}, &out, &errOut); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	files := []string{"go.mod", "main.go", "mystrat/mystrat.go", "mystrat/mystrat_test.go", "backtest.yaml", "paper.yaml", "live.yaml", ".gitignore", "go.sum"}
	want := "wrote " + dir + " (module example.com/mystrat, spotbot from the checkout this binary was built from, " + root + ")\n"
	for _, f := range files {
		want += "  " + filepath.Join(dir, f) + "\n"
	}
	want += "\nnext (go.mod and go.sum are complete: no network needed; run \"go mod tidy\"\nafter importing other modules):\n  cd " + dir +
		"\n  go test ./...\n  go run . backtest run --config backtest.yaml\n"
	if out.String() != want {
		t.Fatalf("output\n%s\nwant\n%s", out.String(), want)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(gomod), "module example.com/mystrat\n\ngo "+scaffoldGo+"\n\nrequire (\n\tgithub.com/shopspring/decimal ") ||
		!strings.HasSuffix(string(gomod), "\n\n// spotbot is built from this checkout, not from a released version.\nreplace github.com/spotbot/spotbot => "+root+"\n") {
		t.Fatalf("go.mod:\n%s", gomod)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	run := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"GOWORK=off"}, env...)...)
		text, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, text)
		}
		return string(text)
	}
	// The written go.mod and go.sum are complete: the module's test builds
	// with no proxy, from the modules that built spotbot.
	testOut := run([]string{"GOPROXY=off", "GOFLAGS=-mod=readonly"}, "test", "-count=1", "./...")
	if !regexp.MustCompile(`(?m)^ok  \texample\.com/mystrat/mystrat\t`).MatchString(testOut) {
		t.Errorf("go test:\n%s", testOut)
	}
	run([]string{"GOFLAGS=-mod=mod"}, "mod", "tidy")
	run([]string{"GOFLAGS=-mod=mod"}, "vet", "./...")
	report := filepath.Join(t.TempDir(), "report")
	btOut := run([]string{"GOFLAGS=-mod=mod"}, "run", ".", "backtest", "run", "--config", "backtest.yaml", "--no-store", "--no-html", "--out", report)
	if !strings.Contains(btOut, "Backtest               mystrat (mystrat)\n") {
		t.Errorf("backtest output:\n%s", btOut)
	}
	// The other configurations: live.yaml checks with credentials, and
	// paper.yaml replays the sample to its end through the daemon.
	if got := run([]string{"GOFLAGS=-mod=mod", "SPOTBOT_API_KEY=k", "SPOTBOT_API_SECRET=s"}, "run", ".", "check", "--config", "live.yaml"); !strings.HasPrefix(got, "live.yaml: ok\nmode:         live (http://127.0.0.1:8080)\n") {
		t.Errorf("check live.yaml:\n%s", got)
	}
	if got := run([]string{"GOFLAGS=-mod=mod"}, "run", ".", "run", "--config", "paper.yaml"); !strings.Contains(got, `msg="bot stopped" orders_placed=524 fills=524 open_orders=0`) {
		t.Errorf("run --config paper.yaml, last lines:\n%s", got[max(0, len(got)-1000):])
	}
	text, err := os.ReadFile(filepath.Join(report, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Metrics struct {
			Bars        int    `json:"bars"`
			Trades      int    `json:"trades"`
			EquityFinal string `json:"equity_final"`
		} `json:"metrics"`
		FinalBalances map[string]string `json:"final_balances"`
	}
	if err := json.Unmarshal(text, &rep); err != nil {
		t.Fatal(err)
	}
	// Pinned from the first run: the 20-bar trend rule on the whole
	// embedded BTCUSDT sample with 10,000 USDT.
	m := rep.Metrics
	if m.Bars != 4289 || m.Trades != 262 || m.EquityFinal != "11345.9823315589" ||
		rep.FinalBalances["USDT"] != "11345.97145637" || rep.FinalBalances["BTC"] != "0.00000023" || len(rep.FinalBalances) != 2 {
		t.Errorf("report: %d bars, %d trades, equity %s, balances %v; want 4289, 262, 11345.9823315589, map[BTC:0.00000023 USDT:11345.97145637]",
			m.Bars, m.Trades, m.EquityFinal, rep.FinalBalances)
	}
}
