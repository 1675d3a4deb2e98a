package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	info := func(main string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: main}, Settings: settings}, true
		}
	}
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name                 string
		ldVersion, ldCommit  string
		read                 func() (*debug.BuildInfo, bool)
		version, commit, day string
	}{
		{name: "from build info", read: info("v1.2.3", vcs...), version: "v1.2.3", commit: "abc123+dirty", day: "2026-01-02T03:04:05Z"},
		{name: "ldflags win", ldVersion: "v9.0.0", ldCommit: "fff", read: info("v1.2.3", vcs...), version: "v9.0.0", commit: "fff", day: "2026-01-02T03:04:05Z"},
		{name: "nothing recorded", read: info(""), version: "(devel)", commit: "unknown", day: "unknown"},
		{name: "no build info", read: func() (*debug.BuildInfo, bool) { return nil, false }, version: "(devel)", commit: "unknown", day: "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func(v, c string) { version, commit = v, c }(version, commit)
			version, commit = tt.ldVersion, tt.ldCommit
			got := buildVersion(tt.read)
			if got.Version != tt.version || got.Commit != tt.commit || got.Date != tt.day {
				t.Fatalf("buildVersion = %+v, want version %q commit %q date %q", got, tt.version, tt.commit, tt.day)
			}
		})
	}
}

func TestRun_Version(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "pixsandbox ") || !strings.Contains(out.String(), "commit ") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"version", "extra"}, &out, &errOut); code != 2 || strings.Count(errOut.String(), "\n") != 2 {
		t.Fatalf("version extra: exit %d, stderr %q", code, errOut.String())
	}
}
