package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Config is what one run checks: the repository's tables (repoConfig) or,
// in the tests, a synthetic module's.
type Config struct {
	Root string // the module's root directory

	Rules     []Rule     // the dependency table, one row per package
	Layers    []Layer    // the layers, top first (layers.go); nil: not checked
	BuildTags [][]string // build tag sets under which the imports are read (nil: the default build)
	Docs      string     // file (relative to Root) holding the generated dependency table; "" for none

	ClockPackage string         // the one package that reads the wall clock by design
	WallClock    []WallClockUse // the other places allowed to

	MaxComplexity        int
	ComplexityExceptions []ComplexityException

	MaxPackageLines int
	// WarnPackageLines starts the size check's warning band: a package
	// above it is reported as a warning, one above MaxPackageLines fails.
	// 0: no band.
	WarnPackageLines int
	SizeExempt       []string // packages never measured
	SizeExceptions   []SizeException

	Makefile string // file (relative to Root) whose fuzz target must discover the targets; "" for none

	Staticcheck           [][]string // the argument lists of the staticcheck runs (pixlint -staticcheck)
	StaticcheckExceptions []StaticcheckException
}

// A Finding is one broken rule, at a place a reader can open.
type Finding struct {
	Check string // deps, layers, docs, walltime, complexity, size, fuzz, names, table, staticcheck
	Where string // a module-relative package, file or file:line
	Msg   string
}

// warningCheck is the check of the findings that are printed and fail
// nothing: the size check's warning band.
const warningCheck = "size-band"

// Warning reports whether the finding is a warning (warningCheck).
func (f Finding) Warning() bool { return f.Check == warningCheck }

func (f Finding) String() string { return fmt.Sprintf("%s: %s [%s]", f.Where, f.Msg, f.Check) }

// Lint runs every check on cfg's module and returns the findings sorted by place.
func Lint(cfg Config) ([]Finding, error) {
	t, err := loadTree(cfg, true)
	if err != nil {
		return nil, err
	}
	var out []Finding
	out = append(out, checkTables(cfg)...)
	out = append(out, checkDeps(t, cfg.Rules)...)
	out = append(out, checkLayers(t, cfg.Layers)...)
	out = append(out, checkDepsDoc(cfg)...)
	out = append(out, checkWallClock(t, cfg.ClockPackage, cfg.WallClock)...)
	out = append(out, checkComplexity(t, cfg.MaxComplexity, cfg.ComplexityExceptions)...)
	out = append(out, checkSize(t, cfg.MaxPackageLines, cfg.SizeExempt, cfg.SizeExceptions)...)
	out = append(out, warnSize(t, cfg.WarnPackageLines, cfg.MaxPackageLines, cfg.SizeExempt)...)
	out = append(out, checkFuzz(t, cfg.Makefile)...)
	out = append(out, checkNames(t)...)
	sortFindings(out)
	return out, nil
}

// sortFindings orders findings by place: file (or package), then line.
func sortFindings(fs []Finding) {
	split := func(where string) (string, int) {
		if i := strings.LastIndexByte(where, ':'); i >= 0 {
			if n, err := strconv.Atoi(where[i+1:]); err == nil {
				return where[:i], n
			}
		}
		return where, 0
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		fa, la := split(a.Where)
		fb, lb := split(b.Where)
		if c := strings.Compare(fa, fb); c != 0 {
			return c
		}
		return cmp.Compare(la, lb)
	})
}

// tree is the module as the checks see it: its Go files parsed, and its
// packages as go list reports them.
type tree struct {
	Root     string
	Module   string
	Fset     *token.FileSet
	Files    []*sourceFile // every .go file outside testdata, vendor, hidden and nested modules, by path
	Packages []*listedPackage
}

type sourceFile struct {
	Rel   string // slash-separated, relative to the root
	Pkg   string // module-relative directory ("." for the root)
	Test  bool   // a _test.go file
	Lines int    // newlines, as wc -l counts them
	AST   *ast.File
	Src   []byte
}

// listedPackage is a package of the module, with its imports under every
// build tag set of the config merged.
type listedPackage struct {
	ImportPath string
	Rel        string   // module-relative path
	Imports    []string // direct imports of the non-test files
	Deps       []string // every dependency of the non-test files, transitively
	Error      string
}

// loadTree parses the module's files and, when withPackages, lists its packages.
func loadTree(cfg Config, withPackages bool) (*tree, error) {
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	mod, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	t := &tree{Root: root, Module: mod, Fset: token.NewFileSet()}
	if err := t.parseFiles(); err != nil {
		return nil, err
	}
	if withPackages {
		if err := t.listPackages(cfg.BuildTags); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}

func (t *tree) parseFiles() error {
	return filepath.WalkDir(t.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p == t.Root {
				return nil
			}
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module is not this module
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// Object resolution stays on: the wall-clock check tells a package
		// name (no object) from a local variable of the same name.
		f, err := parser.ParseFile(t.Fset, p, src, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(t.Root, p)
		rel = filepath.ToSlash(rel)
		t.Files = append(t.Files, &sourceFile{
			Rel: rel, Pkg: path.Dir(rel), Test: strings.HasSuffix(name, "_test.go"),
			Lines: bytes.Count(src, []byte("\n")), AST: f, Src: src,
		})
		return nil
	})
}

// listPackages runs go list once per build tag set and merges the imports.
func (t *tree) listPackages(tagSets [][]string) error {
	if len(tagSets) == 0 {
		tagSets = [][]string{nil}
	}
	byPath := map[string]*listedPackage{}
	for _, tags := range tagSets {
		args := []string{"list", "-e", "-json=ImportPath,Imports,Deps,Error"}
		if len(tags) > 0 {
			args = append(args, "-tags", strings.Join(tags, ","))
		}
		cmd := exec.Command("go", append(args, "./...")...)
		cmd.Dir = t.Root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p struct {
				ImportPath    string
				Imports, Deps []string
				Error         *struct{ Err string }
			}
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return fmt.Errorf("go list output: %v", err)
			}
			lp := byPath[p.ImportPath]
			if lp == nil {
				lp = &listedPackage{ImportPath: p.ImportPath, Rel: t.rel(p.ImportPath)}
				byPath[p.ImportPath] = lp
				t.Packages = append(t.Packages, lp)
			}
			lp.Imports = mergeSorted(lp.Imports, p.Imports)
			lp.Deps = mergeSorted(lp.Deps, p.Deps)
			if p.Error != nil && lp.Error == "" {
				lp.Error = p.Error.Err
			}
		}
	}
	slices.SortFunc(t.Packages, func(a, b *listedPackage) int { return strings.Compare(a.Rel, b.Rel) })
	return nil
}

// rel turns an import path of the module into its module-relative form and
// leaves any other import path alone.
func (t *tree) rel(importPath string) string {
	if importPath == t.Module {
		return "."
	}
	if r, ok := strings.CutPrefix(importPath, t.Module+"/"); ok {
		return r
	}
	return importPath
}

func (t *tree) internal(importPath string) bool {
	return importPath == t.Module || strings.HasPrefix(importPath, t.Module+"/")
}

func mergeSorted(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// pos is a file:line of the tree, module-relative.
func (t *tree) pos(p token.Pos) string {
	position := t.Fset.Position(p)
	rel, err := filepath.Rel(t.Root, position.Filename)
	if err != nil {
		rel = position.Filename
	}
	return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), position.Line)
}

// checkTables reports rows and entries of the config that cannot be right
// whatever the code: duplicates and missing reasons.
func checkTables(cfg Config) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for _, r := range cfg.Rules {
		if seen[r.Pkg] {
			out = append(out, Finding{"table", r.Pkg, "two rows in the dependency table (cmd/pixlint/rules.go)"})
		}
		seen[r.Pkg] = true
		if strings.TrimSpace(r.Note) == "" {
			out = append(out, Finding{"table", r.Pkg, "the dependency row says nothing about the package: give it a Note"})
		}
	}
	for _, w := range cfg.WallClock {
		if strings.TrimSpace(w.Reason) == "" {
			out = append(out, Finding{"table", w.Path, "a wall-clock allowance without a reason (cmd/pixlint/walltime.go)"})
		}
	}
	return out
}
