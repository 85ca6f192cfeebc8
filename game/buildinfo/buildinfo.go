// Package buildinfo is the version every rtype binary prints with -version and the server
// exports as rtype_build_info: stamped at build time by `make dist` and `make build`
// (-ldflags "-X github.com/rtype/rtype/game/buildinfo.Version=$(git describe --tags --always --dirty)"),
// else the module version `go install ...@vX` records, else "dev".
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set with -ldflags -X at build time ("" when it was not).
var Version string

// Unversioned is the version of a build that has none (go run, go build without -ldflags): the
// browser page compares no such version with the server's (net/webpage's rtype.js).
const Unversioned = "dev"

// Get returns the binary's version: Version, else the main module's version from the build
// information (go install), else "dev".
func Get() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Unversioned
}

// String is the line -version prints: "rtype-server v1.2.0 (go1.26.0 linux/amd64)".
func String(binary string) string {
	return fmt.Sprintf("%s %s (%s %s/%s)", binary, Get(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
