package obs

import (
	"runtime/debug"
)

// BuildInfo is what spotbot_build_info reports about the binary.
type BuildInfo struct {
	Version   string // the main module's version ("(devel)" for a local build)
	Revision  string // the VCS revision it was built from; "" when unknown
	GoVersion string // the Go toolchain that built it
}

// ReadBuildInfo reads the running binary's build information
// (runtime/debug.ReadBuildInfo).
func ReadBuildInfo() BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return BuildInfo{Version: "unknown"}
	}
	out := BuildInfo{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if out.Version == "" {
		out.Version = "unknown"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			out.Revision = s.Value
		}
	}
	return out
}
