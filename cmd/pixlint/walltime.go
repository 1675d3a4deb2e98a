package main

import (
	"fmt"
	"go/ast"
	"path"
	"strconv"
	"strings"
)

// A WallClockUse allows time.Now, time.Since and time.Until in some files.
// Path is a module-relative package (its files, not those of packages under
// it), a file, or a file-name pattern without a slash ("*_test.go").
type WallClockUse struct {
	Path   string
	Reason string
}

// wallClockUses are the places besides simulator/clock that read the wall
// clock, each with the reason. Business time comes from a clock.Clock; wall
// time is for I/O deadlines, latency metrics and what a receiver or a person
// checks against their own clock. An entry that allows nothing any more is
// reported, so the list stays true.
var wallClockUses = []WallClockUse{
	{"*_test.go", "tests wait for real servers, goroutines and processes with wall-clock deadlines and check clock.Real against the host; the code under test reads its clock.Clock"},
	{"simulator/webhook/dispatcher.go", "an attempt's webhook-timestamp, which the receiver checks against its own clock, and the attempt's measured duration"},
	{"simulator/receivercheck/check.go", "the checker talks to a partner's receiver now: webhook-timestamps it checks against its clock, the report's timings"},
	{"simulator/badgerstore/writerstats.go", "the store's writer times its batches (WriterStats): measured durations, not simulation time"},
	{"simulator/metrics/simulation.go", "the gauge of how far the simulation clock is ahead of the wall"},
	{"simulator/httpapi/middleware.go", "request latency metric"},
	{"simulator/badgerstore/space.go", "a deleted workspace's keys are dropped at a pace set by the wall time their batches take"},
	{"cmd/pixsandbox/serve.go", "a workspace's TTL counts wall time without a request (workspace.Config.Wall)"},
	{"simulator/httpapi/static.go", "request latency metric of the static pages (console, API reference)"},
	{"simulator/sandboxapi/listener.go", "a listener's lease measures whether its client process is alive, not simulation time"},
	{"conformance/framework", "the suite drives a real service over the network (and may not import simulator/clock): request deadlines, receipt times, the target's clock"},
	{"conformance/proxy/judging/process.go", "a judging process paces its reports of the model's sizes to the proxy by wall time"},
	{"conformance/proxy", "the proxy times real exchanges: when a request came and its answer ended orders the state model's observations, and the report's start and end"},
	{"cmd/pixload", "a load tool: latencies, rates, pacing and deadlines of real processes"},
	{"cmd/pixsoak", "a soak tool: a fresh seed per run, progress timings and deadlines of real processes"},
}

var wallClockFuncs = map[string]bool{"Now": true, "Since": true, "Until": true}

// checkWallClock reports every reference to time.Now, time.Since or
// time.Until (a call or a function value) outside clockPkg and the allowed
// places, and every allowance that no longer allows anything.
func checkWallClock(t *tree, clockPkg string, uses []WallClockUse) []Finding {
	var out []Finding
	used := make([]bool, len(uses))
	for _, f := range t.Files {
		if f.Pkg == clockPkg {
			continue
		}
		for _, ref := range wallClockRefs(f.AST) {
			i := allowedWallClock(uses, f)
			if i >= 0 {
				used[i] = true
				continue
			}
			out = append(out, Finding{"walltime", t.pos(ref.Pos()), fmt.Sprintf(
				"%s reads the wall clock: take the time from a clock.Clock, or allow the file in cmd/pixlint/walltime.go with the reason", refName(ref))})
		}
	}
	for i, u := range uses {
		if !used[i] {
			out = append(out, Finding{"walltime", u.Path, "a wall-clock allowance (cmd/pixlint/walltime.go) that allows no use any more: remove it"})
		}
	}
	return out
}

func allowedWallClock(uses []WallClockUse, f *sourceFile) int {
	for i, u := range uses {
		switch {
		case !strings.Contains(u.Path, "/") && strings.Contains(u.Path, "*"):
			if ok, _ := path.Match(u.Path, path.Base(f.Rel)); ok {
				return i
			}
		case strings.HasSuffix(u.Path, ".go"):
			if u.Path == f.Rel {
				return i
			}
		case u.Path == f.Pkg:
			return i
		}
	}
	return -1
}

// wallClockRefs finds the wall-clock reads of a file: selectors Now, Since
// and Until on the file's name for package time (whatever it is imported
// as, and not when a local declaration shadows it), and any use of Now,
// Since or Until through a dot import.
func wallClockRefs(f *ast.File) []ast.Node {
	names := map[string]bool{}
	dot := false
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != "time" {
			continue
		}
		switch {
		case imp.Name == nil:
			names["time"] = true
		case imp.Name.Name == ".":
			dot = true
		case imp.Name.Name != "_":
			names[imp.Name.Name] = true
		}
	}
	var refs []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			// A package name resolves to no object; a local variable,
			// parameter or type of the same name does.
			if id, ok := n.X.(*ast.Ident); ok && names[id.Name] && id.Obj == nil && wallClockFuncs[n.Sel.Name] {
				refs = append(refs, n)
			}
		case *ast.Ident:
			if dot && n.Obj == nil && wallClockFuncs[n.Name] && isUnresolved(f, n) {
				refs = append(refs, n)
			}
		}
		return true
	})
	return refs
}

// isUnresolved says whether id is one of the file's identifiers the parser
// could not resolve in the file: with a dot import, those may be the
// imported package's.
func isUnresolved(f *ast.File, id *ast.Ident) bool {
	for _, u := range f.Unresolved {
		if u == id {
			return true
		}
	}
	return false
}

func refName(n ast.Node) string {
	switch n := n.(type) {
	case *ast.SelectorExpr:
		return "time." + n.Sel.Name
	case *ast.Ident:
		return "time." + n.Name + " (dot import)"
	}
	return "time"
}
