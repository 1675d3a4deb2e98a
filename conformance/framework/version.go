package framework

import (
	"context"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// SuiteVersion is the suite's build as Go recorded it in the binary: the
// module version and, when known, the VCS revision (with "+dirty" for a
// build from modified files), e.g. "v1.4.0 (commit 0123abc)" or
// "(devel) (commit 0123abc+dirty)".
func SuiteVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return versionOf(bi)
}

// versionOf formats a build's version and revision.
func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return v + " (commit " + rev + ")"
}

// targetVersion is what the target says of its own version: the version of
// its GET /healthz answer (a pixsandbox serve says it there), else the
// Server header of that answer or of probe (the answer to GET /), else "".
// The contract names no version route, so this is a courtesy of targets
// that tell.
func targetVersion(ctx context.Context, client *apiclient.Client, probe *apiclient.Response) string {
	if r, err := client.Do(ctx, http.MethodGet, "/healthz", "", nil, nil); err == nil && r.Status == http.StatusOK {
		if v, ok := r.Field("version"); ok {
			if s, isStr := v.(string); isStr && strings.TrimSpace(s) != "" {
				return oneLine(s, 200)
			}
		}
		if s := r.Header.Get("Server"); s != "" {
			return "Server: " + oneLine(s, 200)
		}
	}
	if probe != nil {
		if s := probe.Header.Get("Server"); s != "" {
			return "Server: " + oneLine(s, 200)
		}
	}
	return ""
}

// orUnknown is s, or a note that the target does not say.
func orUnknown(s string) string {
	if s == "" {
		return "(the target does not say)"
	}
	return s
}
