package main

import (
	"fmt"
	"strings"

	"github.com/fzipp/gocyclo"
)

// A ComplexityException lets one function exceed the limit, up to Max.
type ComplexityException struct {
	Pkg  string // module-relative package
	Func string // as gocyclo names it: "Name" or "(*Type).Name"
	Max  int
}

// checkComplexity reports every non-test function whose cyclomatic complexity
// (gocyclo's) is over max and has no exception, or is over its exception's
// Max; exceptions no function needs any more; and gocyclo:ignore directives,
// which would hide a function from the check (exceptions belong in the table).
func checkComplexity(t *tree, max int, exceptions []ComplexityException) []Finding {
	var out []Finding
	used := make([]bool, len(exceptions))
	for _, f := range t.Files {
		if f.Test {
			continue
		}
		for _, cg := range f.AST.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//gocyclo:ignore") {
					out = append(out, Finding{"complexity", t.pos(c.Pos()), "a gocyclo:ignore directive: split the function (or, for now, list it in cmd/pixlint/exceptions.go)"})
				}
			}
		}
		for _, s := range gocyclo.AnalyzeASTFile(f.AST, t.Fset, nil) {
			if s.Complexity <= max {
				continue
			}
			where := fmt.Sprintf("%s:%d", f.Rel, s.Pos.Line)
			i := findComplexityException(exceptions, f.Pkg, s.FuncName)
			switch {
			case i < 0:
				out = append(out, Finding{"complexity", where, fmt.Sprintf("%s has cyclomatic complexity %d, over %d: split it", s.FuncName, s.Complexity, max)})
			case s.Complexity > exceptions[i].Max:
				used[i] = true
				out = append(out, Finding{"complexity", where, fmt.Sprintf("%s has cyclomatic complexity %d, over its temporary exception's %d (cmd/pixlint/exceptions.go) and the limit %d: split it", s.FuncName, s.Complexity, exceptions[i].Max, max)})
			default:
				used[i] = true
			}
		}
	}
	for i, e := range exceptions {
		if !used[i] {
			out = append(out, Finding{"complexity", e.Pkg, fmt.Sprintf("the exception for %s (cmd/pixlint/exceptions.go) is no longer needed: remove it", e.Func)})
		}
	}
	return out
}

func findComplexityException(exceptions []ComplexityException, pkg, fn string) int {
	for i, e := range exceptions {
		if e.Pkg == pkg && e.Func == fn {
			return i
		}
	}
	return -1
}
