package main

import (
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A fuzzTarget is a fuzz function of a package's tests.
type fuzzTarget struct {
	Pkg  string // module-relative package
	Name string
}

// fuzzTargets lists the fuzz targets of the tree in package and file order:
// what go test -fuzz can run, found in the source without building the tests.
func fuzzTargets(t *tree) []fuzzTarget {
	var out []fuzzTarget
	for _, f := range t.Files {
		for _, fn := range fuzzFuncs(f) {
			if fuzzSignature(f.AST, fn) {
				out = append(out, fuzzTarget{f.Pkg, fn.Name.Name})
			}
		}
	}
	return out
}

// fuzzFuncs are the top-level functions of a test file that go test takes
// for fuzz targets by their name: Fuzz, then anything but a lower-case letter.
func fuzzFuncs(f *sourceFile) []*ast.FuncDecl {
	if !f.Test {
		return nil
	}
	var out []*ast.FuncDecl
	for _, d := range f.AST.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil {
			continue
		}
		rest, ok := strings.CutPrefix(fn.Name.Name, "Fuzz")
		if !ok {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(rest); rest != "" && unicode.IsLower(r) {
			continue
		}
		out = append(out, fn)
	}
	return out
}

// fuzzSignature says whether fn is func(*testing.F) with no results.
func fuzzSignature(f *ast.File, fn *ast.FuncDecl) bool {
	params := fn.Type.Params.List
	if fn.Type.Results != nil || fn.Type.TypeParams != nil || len(params) != 1 || len(params[0].Names) > 1 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "F" {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == importName(f, "testing")
}

func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}

var fuzzName = regexp.MustCompile(`\bFuzz[A-Z0-9_]\w*`)

// checkFuzz keeps make fuzz free of hand-kept lists: every function named as a
// fuzz target is one go test can run without build tags (else make fuzz
// would skip it), and the Makefile discovers the targets (pixlint
// -list-fuzz) instead of naming them.
func checkFuzz(t *tree, makefile string) []Finding {
	var out []Finding
	for _, f := range t.Files {
		fns := fuzzFuncs(f)
		if len(fns) == 0 {
			continue
		}
		if hasBuildConstraint(f.AST) {
			out = append(out, Finding{"fuzz", f.Rel, "fuzz targets in a file with a build constraint: make fuzz runs without build tags and would never run them"})
		}
		for _, fn := range fns {
			if !fuzzSignature(f.AST, fn) {
				out = append(out, Finding{"fuzz", t.pos(fn.Pos()), fmt.Sprintf("%s is named as a fuzz target but is not func(*testing.F): go test -fuzz would not run it", fn.Name.Name)})
			}
		}
	}
	if makefile == "" {
		return out
	}
	src, err := os.ReadFile(filepath.Join(t.Root, filepath.FromSlash(makefile)))
	if err != nil {
		return append(out, Finding{"fuzz", makefile, err.Error()})
	}
	for i, line := range strings.Split(string(src), "\n") {
		for _, name := range fuzzName.FindAllString(line, -1) {
			out = append(out, Finding{"fuzz", fmt.Sprintf("%s:%d", makefile, i+1), fmt.Sprintf("names the fuzz target %s by hand: make fuzz takes the list from pixlint -list-fuzz", name)})
		}
	}
	if !strings.Contains(string(src), "pixlint -list-fuzz") {
		out = append(out, Finding{"fuzz", makefile, "the fuzz target does not take its list from go run ./cmd/pixlint -list-fuzz"})
	}
	return out
}

func hasBuildConstraint(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") || strings.HasPrefix(c.Text, "// +build") {
				return true
			}
		}
	}
	return false
}
