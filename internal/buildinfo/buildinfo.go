// Package buildinfo names the build a binary was made from, for its
// -version flag, its start log line and its telemetry resource
// (service.version): the module's version when it was built as a
// released module, otherwise "devel" with the commit it was built from
// (and "+dirty" when the working tree had changes), as the Go toolchain
// records them (go version -m BINARY shows the same; GOFLAGS=-buildvcs=false
// records none). A release build may set it outright:
//
//	go build -ldflags "-X github.com/flowscript/flowscript/internal/buildinfo.stamped=v1.4.0" ./cmd/...
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Version is the build's version: "v1.2.3", "devel 72f7024a1b2c",
// "devel 72f7024a1b2c+dirty", or "devel" when the toolchain recorded no
// commit (go run, a build outside a repository, -buildvcs=false).
var Version = sync.OnceValue(func() string {
	if stamped != "" {
		return stamped
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(info)
})

// stamped is the version -ldflags "-X …buildinfo.stamped=…" set, if any.
var stamped string

func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "devel"
	}
	v := "devel " + revision[:min(len(revision), 12)]
	if modified == "true" {
		v += "+dirty"
	}
	return v
}
