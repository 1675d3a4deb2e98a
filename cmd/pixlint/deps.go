package main

import (
	"fmt"
	"strings"
)

// A Rule is one row of the dependency table: what the non-test files of a
// package may import. Test files may import anything of the module and of
// go.mod: they are not part of the package's dependency direction.
//
// Entries are module-relative packages ("simulator/pix"), subtrees
// ("simulator/..." is simulator and everything under it), third-party
// modules or packages ("github.com/gorilla/mux" covers its subpackages) and,
// in Never, standard-library packages ("net/http").
type Rule struct {
	Pkg   string   // module-relative package
	Allow []string // the module's packages and third-party modules it may import directly; the standard library is always allowed
	Never []string // what it must not depend on, directly or through any dependency (standard library included)
	Note  string   // what the package is, one line, for the docs
}

// checkDeps holds every listed package to its row: a package without a row,
// a row without a package, a direct import its row does not allow and a
// dependency its row forbids are findings.
func checkDeps(t *tree, rules []Rule) []Finding {
	var out []Finding
	byPkg := map[string]Rule{}
	for _, r := range rules {
		byPkg[r.Pkg] = r
	}
	listed := map[string]bool{}
	for _, p := range t.Packages {
		listed[p.Rel] = true
		if p.Error != "" {
			out = append(out, Finding{"deps", p.Rel, "go list: " + p.Error})
		}
		r, ok := byPkg[p.Rel]
		if !ok {
			out = append(out, Finding{"deps", p.Rel, fmt.Sprintf(
				"no row in the dependency table: add one to cmd/pixlint/rules.go, e.g. "+
					"{Pkg: %q, Allow: []string{…}, Note: \"…\"}, then go run ./cmd/pixlint -write-docs", p.Rel)})
			continue
		}
		out = append(out, checkImports(t, p, r)...)
	}
	for _, r := range rules {
		if !listed[r.Pkg] {
			out = append(out, Finding{"deps", r.Pkg, "a row of the dependency table (cmd/pixlint/rules.go) names no package of the module: remove or rename it"})
		}
	}
	return out
}

func checkImports(t *tree, p *listedPackage, r Rule) []Finding {
	var out []Finding
	for _, imp := range p.Imports {
		if imp == "C" || (!t.internal(imp) && standard(imp)) {
			continue // the standard library: only Never limits it
		}
		if !allowed(r.Allow, t.rel(imp)) {
			out = append(out, Finding{"deps", p.Rel, fmt.Sprintf(
				"imports %s, which its row of cmd/pixlint/rules.go does not allow (allowed: %s)", t.rel(imp), listOrNone(r.Allow))})
		}
	}
	for _, dep := range p.Deps {
		d := t.rel(dep)
		for _, never := range r.Never {
			if !matches(never, d) {
				continue
			}
			how := "through its dependencies"
			for _, imp := range p.Imports {
				if imp == dep {
					how = "directly"
				}
			}
			out = append(out, Finding{"deps", p.Rel, fmt.Sprintf("depends on %s (%s), which its row of cmd/pixlint/rules.go never allows", d, how)})
		}
	}
	return out
}

// standard tells a standard-library import path by its first element, which
// has no dot (module paths outside the standard library have one).
func standard(importPath string) bool {
	first, _, _ := strings.Cut(importPath, "/")
	return !strings.Contains(first, ".")
}

func allowed(entries []string, pkg string) bool {
	for _, e := range entries {
		if matches(e, pkg) {
			return true
		}
	}
	return false
}

// matches says whether pkg (module-relative for the module's packages, the
// import path otherwise) is covered by a table entry.
func matches(entry, pkg string) bool {
	if tree, ok := strings.CutSuffix(entry, "/..."); ok {
		return pkg == tree || strings.HasPrefix(pkg, tree+"/")
	}
	if pkg == entry {
		return true
	}
	// A third-party entry names a module and covers its packages.
	return thirdParty(entry) && strings.HasPrefix(pkg, entry+"/")
}

// thirdParty tells a table entry naming a third-party module or package from
// one naming a package of the module or of the standard library.
func thirdParty(entry string) bool { return !standard(entry) }

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "the standard library only"
	}
	return strings.Join(s, ", ")
}
