package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The two walks of architecture.md ("A request", "A job") name the functions
// a cash-out and its settlement pass through, hop by hop. TestWalks holds
// them to the code: every hop is a function of its file, and it is called by
// name from the hop before it (or from the hop its "back in `X`" names), or,
// marked ⇢, handed over by the file in brackets, which names it (a route
// table row, a job handler's registration, a goroutine started). A renamed,
// moved or bypassed function fails the test until the walk is redrawn.
func TestWalks(t *testing.T) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"request", "job"} {
		t.Run(name, func(t *testing.T) {
			hops := walkHops(t, string(doc), name)
			if len(hops) < 5 {
				t.Fatalf("the %s walk has %d hops; it is drawn between <!-- walk:%s:begin --> and <!-- walk:%s:end -->", name, len(hops), name, name)
			}
			for i, h := range hops {
				checkHop(t, hops, i, h)
			}
		})
	}
}

// hop is one line of a walk: `file:Func` or `file:Type.Method`, and the
// text after it.
type hop struct {
	line, file, recv, name, rest string
	body                         *ast.BlockStmt
}

var hopLine = regexp.MustCompile("^\\d+\\. `([^`:]+\\.go):([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)?)`(.*)$")

func walkHops(t *testing.T, doc, name string) []*hop {
	t.Helper()
	begin, end := "<!-- walk:"+name+":begin -->", "<!-- walk:"+name+":end -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("architecture.md has no %s … %s block", begin, end)
	}
	var hops []*hop
	for _, line := range strings.Split(strings.TrimSpace(doc[i+len(begin):j]), "\n") {
		m := hopLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a hop (want \"N. `file.go:Func` …\"): %q", line)
		}
		h := &hop{line: line, file: m[1], name: m[2], rest: m[3]}
		if recv, fn, ok := strings.Cut(m[2], "."); ok {
			h.recv, h.name = recv, fn
		}
		hops = append(hops, h)
	}
	return hops
}

var (
	handedBy = regexp.MustCompile("⇢ \\(`([^`]+\\.go)`")
	backIn   = regexp.MustCompile("back in `([^`]+)`")
)

func checkHop(t *testing.T, hops []*hop, i int, h *hop) {
	t.Helper()
	h.body = funcBody(t, h)
	if h.body == nil {
		return
	}
	if i == 0 {
		return
	}
	if m := handedBy.FindStringSubmatch(h.rest); m != nil {
		src, err := os.ReadFile(filepath.Join("..", m[1]))
		if err != nil || !regexp.MustCompile(`\b`+h.name+`\b`).Match(src) {
			t.Errorf("%s: handed over by %s, which does not name %s (%v)", h.line, m[1], h.name, err)
		}
		return
	}
	caller := hops[i-1]
	if m := backIn.FindStringSubmatch(h.rest); m != nil {
		caller = nil
		for _, c := range hops[:i] {
			if c.recv+"."+c.name == m[1] || c.name == m[1] {
				caller = c
			}
		}
		if caller == nil {
			t.Errorf("%s: %s is not a hop before it", h.line, m[1])
			return
		}
	}
	if caller.body != nil && !mentions(caller.body, h.name) {
		t.Errorf("%s: %s (%s) does not call %s", h.line, caller.recv+"."+caller.name, caller.file, h.name)
	}
}

// funcBody finds the hop's function in its file, or reports that it is not
// there.
func funcBody(t *testing.T, h *hop) *ast.BlockStmt {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", h.file), nil, 0)
	if err != nil {
		t.Errorf("%s: %v", h.line, err)
		return nil
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != h.name || receiver(fd) != h.recv {
			continue
		}
		return fd.Body
	}
	t.Errorf("%s: %s has no func %s", h.line, h.file, strings.TrimPrefix(h.recv+"."+h.name, "."))
	return nil
}

func receiver(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}

// mentions reports whether name appears as an identifier in body: a call,
// a method value, a function passed on.
func mentions(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}
