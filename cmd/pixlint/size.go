package main

import (
	"fmt"
	"slices"
)

// A SizeException lets one package exceed the line limit, up to Max.
type SizeException struct {
	Pkg string // module-relative package
	Max int
}

// warnSize reports, as warnings, the packages of more than warn lines and
// at most max: large enough to look for a seam, not a reason to cut.
func warnSize(t *tree, warn, max int, exempt []string) []Finding {
	if warn <= 0 {
		return nil
	}
	lines := map[string]int{}
	for _, f := range t.Files {
		if !f.Test {
			lines[f.Pkg] += f.Lines
		}
	}
	var out []Finding
	for p, n := range lines {
		if n > warn && n <= max && !slices.Contains(exempt, p) {
			out = append(out, Finding{warningCheck, p, fmt.Sprintf(
				"%d lines of non-test Go, in the warning band (%d to %d): split it where a seam shows, not to fit the number", n, warn, max)})
		}
	}
	return out
}

// checkSize reports every package whose non-test .go files (all of them,
// whatever their build tags) add up to more than max lines, unless exempt or
// within its exception, and exceptions no package needs any more.
func checkSize(t *tree, max int, exempt []string, exceptions []SizeException) []Finding {
	lines := map[string]int{}
	var pkgs []string
	for _, f := range t.Files {
		if f.Test {
			continue
		}
		if _, ok := lines[f.Pkg]; !ok {
			pkgs = append(pkgs, f.Pkg)
		}
		lines[f.Pkg] += f.Lines
	}
	var out []Finding
	used := make([]bool, len(exceptions))
	for _, p := range pkgs {
		n := lines[p]
		if n <= max || slices.Contains(exempt, p) {
			continue
		}
		i := slices.IndexFunc(exceptions, func(e SizeException) bool { return e.Pkg == p })
		switch {
		case i < 0:
			out = append(out, Finding{"size", p, fmt.Sprintf("%d lines of non-test Go, over %d: split the package", n, max)})
		case n > exceptions[i].Max:
			used[i] = true
			out = append(out, Finding{"size", p, fmt.Sprintf("%d lines of non-test Go, over its temporary exception's %d (cmd/pixlint/exceptions.go) and the limit %d: split the package", n, exceptions[i].Max, max)})
		default:
			used[i] = true
		}
	}
	for i, e := range exceptions {
		if !used[i] {
			out = append(out, Finding{"size", e.Pkg, fmt.Sprintf("the size exception (cmd/pixlint/exceptions.go) is no longer needed (%d lines or fewer, or no such package): remove it", max)})
		}
	}
	return out
}
