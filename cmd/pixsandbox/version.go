package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Set at link time by make dist and the Dockerfile:
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=0123abc -X main.date=2026-01-02T03:04:05Z"
//
// Left empty, buildVersion fills them from the module and VCS information Go
// records in the binary (runtime/debug.ReadBuildInfo).
var (
	version string
	commit  string
	date    string
)

// versionInfo is what `pixsandbox version` prints.
type versionInfo struct {
	Version string // module version: a tag, a pseudo-version or "(devel)"
	Commit  string // VCS revision, "+dirty" when built from modified files; "unknown" when not recorded
	Date    string // build date (-ldflags) or commit date (VCS); "unknown" when not recorded
	Go      string // toolchain that built the binary
	// Platform is GOOS/GOARCH of the binary.
	Platform string
}

// buildVersion combines the -ldflags values with the build information; the
// -ldflags values win.
func buildVersion(read func() (*debug.BuildInfo, bool)) versionInfo {
	v := versionInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := read(); ok {
		v.Go = bi.GoVersion
		if v.Version == "" {
			v.Version = bi.Main.Version
		}
		var rev, when string
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if v.Commit == "" && rev != "" {
			v.Commit = rev
			if dirty {
				v.Commit += "+dirty"
			}
		}
		if v.Date == "" {
			v.Date = when
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	if v.Date == "" {
		v.Date = "unknown"
	}
	return v
}

// String is the one line `pixsandbox version` prints.
func (v versionInfo) String() string {
	return fmt.Sprintf("pixsandbox %s (commit %s, built %s, %s, %s)", v.Version, v.Commit, v.Date, v.Go, v.Platform)
}

const versionUsage = `Usage:
  pixsandbox version    (also: pixsandbox --version)

Prints the version of this binary: the module version, the commit it was
built from, the build date, the Go toolchain and the platform.
`

// printVersion runs `pixsandbox version`.
func printVersion(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if isHelpFlag(a) {
			fmt.Fprint(stdout, versionUsage)
			return 0
		}
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "pixsandbox version: unexpected arguments %q\nRun 'pixsandbox version -h' for usage.\n", args)
		return 2
	}
	fmt.Fprintln(stdout, buildVersion(debug.ReadBuildInfo))
	return 0
}

// isHelpFlag reports whether a is one of the help flags every subcommand accepts.
func isHelpFlag(a string) bool {
	return a == "-h" || a == "--help" || a == "-help"
}
