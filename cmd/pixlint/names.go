package main

import (
	"path"
	"strings"
)

// checkNames reports a Go file that shares its base name with a package's
// folder beside it (webhook.go next to webhook/): a reader cannot tell from
// the names which holds what. A test file counts by the name it tests
// (webhook_test.go is webhook). A folder of other files beside the Go file
// that embeds or serves them (console.go next to console/, the web
// console's assets) is that file's, and is left alone.
func checkNames(t *tree) []Finding {
	pkgDirs := map[string]bool{}
	for _, f := range t.Files {
		pkgDirs[f.Pkg] = true
	}
	var out []Finding
	for _, f := range t.Files {
		base := strings.TrimSuffix(strings.TrimSuffix(path.Base(f.Rel), ".go"), "_test")
		dir := path.Join(f.Pkg, base)
		if !pkgDirs[dir] {
			continue
		}
		out = append(out, Finding{Check: "names", Where: f.Rel,
			Msg: "shares its name with the package folder " + dir + "/ beside it: rename the file or move it into a package of its own"})
	}
	return out
}
