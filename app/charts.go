package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spotbot/spotbot/backtest"
	"github.com/spotbot/spotbot/backtest/chartlib"
)

// chartOptions finds the charting library the HTML reports inline:
// SPOTBOT_CHARTS names a local copy (npm pack's .tgz or the .js file), or
// "off" for static charts; else the user's cache, else the npm registry
// (the tarball then cached). Without it the report draws static charts
// and says how to get the interactive ones. Tests' deps have no fetch,
// so they never reach the network.
func chartOptions(ctx context.Context, d deps) backtest.HTMLOptions {
	lib := chartlib.Pinned()
	local := ""
	for _, kv := range d.environ() {
		if v, ok := strings.CutPrefix(kv, "SPOTBOT_CHARTS="); ok {
			local = v
		}
	}
	if local == "off" {
		return backtest.HTMLOptions{Note: "Static charts: SPOTBOT_CHARTS=off."}
	}
	l := chartlib.Loader{Lib: lib, Local: local, Client: d.chartClient}
	if dir, err := os.UserCacheDir(); err == nil && d.chartClient != nil {
		l.CacheDir = filepath.Join(dir, "spotbot", "npm")
	}
	js, err := l.Load(ctx)
	if err != nil {
		return backtest.HTMLOptions{Note: fmt.Sprintf("Static charts: the interactive ones need %s (%s) from the npm registry, "+
			"which is not at hand (%v). Write a report once with network (it is then cached), or set SPOTBOT_CHARTS to a copy "+
			"made with `npm pack %s`.", lib, lib.License, err, lib)}
	}
	return backtest.HTMLOptions{Script: js}
}
