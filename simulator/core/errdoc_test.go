package core_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// The transport and the control plane see the core through two interfaces,
// httpapi.Services and sandboxapi.Sandbox, and map each error it returns by
// its pix Kind and Code. TestErrorsDocumented holds the Errors line of every
// method of both to one form and to the code:
//
//   - a method that returns an error has exactly one Errors line, in the form
//     "Errors: KindX: CodeA, CodeB (note); KindY: CodeC." or "Errors:
//     KindInternal only."; one that returns none has no Errors line;
//   - every Kind and Code it names is a constant of package pix;
//   - the core's method of the same name exists, names only pix constants,
//     no kind the interface leaves out and, when it names codes at all,
//     exactly the interface's codes;
//   - a method on both interfaces has the same line on both;
//   - every code the scenario catalogue forces at request on the method's
//     operation is listed, under the kind the scenario gives it.
func TestErrorsDocumented(t *testing.T) {
	root := moduleRoot(t)
	consts := parsePixConstants(t, filepath.Join(root, "simulator", "pix"))
	core := coreMethods(t, ".")
	checkOperationsMapped(t)
	lines := map[string]errorsLine{}
	var embedded []string
	for _, in := range []struct{ dir, name string }{{"simulator/httpapi", "Services"}, {"simulator/sandboxapi", "Sandbox"}} {
		methods, embeds := interfaceMethods(t, filepath.Join(root, in.dir), in.name)
		embedded = append(embedded, embeds...)
		if len(methods) < 10 {
			t.Fatalf("%s.%s has %d methods: the test did not find the interface", in.dir, in.name, len(methods))
		}
		for _, m := range methods {
			t.Run(in.name+"."+m.name, func(t *testing.T) {
				line, ok := checkInterfaceMethod(t, consts, m)
				if !ok {
					return
				}
				checkCoreAgrees(t, consts, core, m.name, line)
				checkScenarioCodes(t, consts, m.name, line)
				if prev, seen := lines[m.name]; seen && !slices.Equal(prev.pairs, line.pairs) {
					t.Errorf("the Errors line differs between the interfaces: %v and %v", prev.pairs, line.pairs)
				}
				lines[m.name] = line
			})
		}
	}
	checkEmbedded(t, root, embedded, lines)
}

// checkEmbedded holds an interface embedded in Services or Sandbox (a
// simulator package's, e.g. events.Core) to methods the two interfaces also
// declare with their Errors lines: an embedded method has no line of its own.
func checkEmbedded(t *testing.T, root string, embedded []string, lines map[string]errorsLine) {
	t.Helper()
	for _, e := range embedded {
		pkg, name, ok := strings.Cut(e, ".")
		if !ok {
			t.Errorf("embedded interface %s: want pkg.Name of a simulator package", e)
			continue
		}
		methods, more := interfaceMethods(t, filepath.Join(root, "simulator", pkg), name)
		if len(methods) == 0 || len(more) > 0 {
			t.Errorf("embedded interface %s: %d methods, %d embedded in turn; want methods only", e, len(methods), len(more))
		}
		for _, m := range methods {
			if _, ok := lines[m.name]; !ok && m.returnsError {
				t.Errorf("%s.%s (embedded) is declared with an Errors line in neither Services nor Sandbox", e, m.name)
			}
		}
	}
}

// The parser of Errors lines refuses what is not in the form, so a line that
// drifts from it fails TestErrorsDocumented rather than passing unread.
func TestErrorsLineForm(t *testing.T) {
	consts := parsePixConstants(t, filepath.Join(moduleRoot(t), "simulator", "pix"))
	for _, tc := range []struct {
		doc  string
		want []string // kind/code pairs; nil: the line is refused
	}{
		{"Does it.\n\nErrors: KindInvalid: CodeInvalidRequest (a, b; c); KindNotFound: CodeNotFound.\n",
			[]string{"KindInvalid/CodeInvalidRequest", "KindNotFound/CodeNotFound"}},
		{"Errors: KindNotFound: CodeNotFound,\nCodeRefundNotAReceipt.\n",
			[]string{"KindNotFound/CodeNotFound", "KindNotFound/CodeRefundNotAReceipt"}},
		{"Errors: KindInternal only.\n", []string{}},
		{"Errors: KindInternal only (the store).\n", []string{}},
		{"Errors: KindInvalid: CodeNoSuchCode.\n", nil},                                     // not a pix Code
		{"Errors: KindNoSuchKind: CodeNotFound.\n", nil},                                    // not a pix Kind
		{"Errors: KindInternal: CodeInternal.\n", nil},                                      // KindInternal is implicit
		{"Errors: CodeNotFound (KindNotFound).\n", nil},                                     // the kind comes first
		{"Errors: KindNotFound: CodeNotFound\n", nil},                                       // no full stop
		{"Errors: KindNotFound CodeNotFound.\n", nil},                                       // no colon
		{"Errors: KindNotFound: CodeNotFound, CodeNotFound.\n", nil},                        // a code twice
		{"Errors: KindNotFound: CodeNotFound; KindNotFound: CodeRefundNotAReceipt.\n", nil}, // a kind twice
		{"Errors: KindNotFound: .\n", nil},                                                  // no code
		{"Errors: KindNotFound: CodeNotFound or worse.\n", nil},                             // words outside a note
		{"Errors: KindNotFound: CodeNotFound (unclosed.\n", nil},                            // an open note
		{"Errors: KindInvalid: CodeInvalidRequest.\n\nErrors: KindInternal only.\n", nil},   // two lines
	} {
		line, found, err := parseErrorsLine(tc.doc, consts)
		switch {
		case tc.want == nil && err == nil:
			t.Errorf("%q: accepted as %v, want refused", tc.doc, line.pairs)
		case tc.want != nil && (err != nil || !found):
			t.Errorf("%q: refused (found %v): %v", tc.doc, found, err)
		case tc.want != nil && !slices.Equal(line.pairs, tc.want):
			t.Errorf("%q: pairs %v, want %v", tc.doc, line.pairs, tc.want)
		}
	}
	if _, found, err := parseErrorsLine("Does it.\n", consts); found || err != nil {
		t.Errorf("a comment without an Errors line: found %v, %v", found, err)
	}
}

// method is one method of an interface: its name, its comment, whether its
// last result is an error.
type method struct {
	name, doc    string
	returnsError bool
}

// errorsLine is a parsed Errors line.
type errorsLine struct {
	pairs []string        // "KindX/CodeY", in the line's order
	kinds map[string]bool // the kinds named, and KindInternal, which every method may return
	codes map[string]bool
}

// pixConstants are package pix's Kind and Code constants: names to values
// and back.
type pixConstants struct {
	kinds    map[string]pix.Kind
	codes    map[string]pix.Code
	kindName map[pix.Kind]string
	codeName map[pix.Code]string
}

func checkInterfaceMethod(t *testing.T, consts pixConstants, m method) (errorsLine, bool) {
	t.Helper()
	line, found, err := parseErrorsLine(m.doc, consts)
	switch {
	case err != nil:
		t.Errorf("its Errors line: %v", err)
		return errorsLine{}, false
	case !m.returnsError && found:
		t.Errorf("it returns no error but its comment has an Errors line")
		return errorsLine{}, false
	case m.returnsError && !found:
		t.Errorf(`it returns an error but its comment has no Errors line ("Errors: KindX: CodeA, CodeB; KindY: CodeC." or "Errors: KindInternal only.")`)
		return errorsLine{}, false
	}
	return line, found
}

// checkCoreAgrees compares the core's method name with the interface's line.
func checkCoreAgrees(t *testing.T, consts pixConstants, core map[string]string, name string, line errorsLine) {
	t.Helper()
	doc, ok := core[name]
	if !ok {
		t.Errorf("the core has no method %s with receiver *Simulator", name)
		return
	}
	codes := map[string]bool{}
	for _, c := range codeToken.FindAllString(doc, -1) {
		if _, ok := consts.codes[c]; !ok {
			t.Errorf("the core's comment names %s, which is not a pix Code", c)
		}
		codes[c] = true
	}
	for _, k := range kindToken.FindAllString(doc, -1) {
		if _, ok := consts.kinds[k]; !ok {
			t.Errorf("the core's comment names %s, which is not a pix Kind", k)
		} else if !line.kinds[k] {
			t.Errorf("the core's comment names %s, which the Errors line does not list", k)
		}
	}
	if len(codes) == 0 {
		return // the core describes, the interface lists
	}
	if missing, extra := setDiff(line.codes, codes), setDiff(codes, line.codes); len(missing)+len(extra) > 0 {
		t.Errorf("the core's comment and the Errors line name different codes: the core leaves out %v and adds %v", missing, extra)
	}
}

// scenarioOps are the operations whose requests carry a scenario, by the
// method that serves them.
var scenarioOps = map[string]scenarios.Operation{
	"IssueToken":     scenarios.OpAuthToken,
	"CreateCashOut":  scenarios.OpCashOut,
	"CreateTransfer": scenarios.OpTransfer,
	"CreateCashIn":   scenarios.OpCashIn,
	"CreateCob":      scenarios.OpCob,
	"CreateRefund":   scenarios.OpRefund,
}

// checkOperationsMapped fails when the catalogue honours an operation
// scenarioOps does not name, so a new one cannot escape checkScenarioCodes.
func checkOperationsMapped(t *testing.T) {
	t.Helper()
	for _, sc := range scenarios.All() {
		for _, op := range sc.Operations {
			found := false
			for _, o := range scenarioOps {
				found = found || o == op
			}
			if !found {
				t.Errorf("scenario %s honours operation %s, which scenarioOps does not map to a method", sc.Name, op)
			}
		}
	}
}

// checkScenarioCodes fails when a scenario forces, at request, a kind and code
// the method's Errors line does not list.
func checkScenarioCodes(t *testing.T, consts pixConstants, name string, line errorsLine) {
	t.Helper()
	op, ok := scenarioOps[name]
	if !ok {
		return
	}
	for _, sc := range scenarios.All() {
		err := sc.RejectAtRequest(op)
		if err == nil {
			continue
		}
		pair := consts.kindName[pix.ErrorKind(err)] + "/" + consts.codeName[pix.ErrorCode(err)]
		if !slices.Contains(line.pairs, pair) {
			t.Errorf("scenario %s forces %s at request, which the Errors line does not list", sc.Name, pair)
		}
	}
}

var (
	codeToken  = regexp.MustCompile(`\bCode[A-Z][A-Za-z0-9]*`)
	kindToken  = regexp.MustCompile(`\bKind[A-Z][A-Za-z0-9]*`)
	kindGroup  = regexp.MustCompile(`^(Kind[A-Za-z0-9]+): (.+)$`)
	note       = regexp.MustCompile(`\s*\([^()]*\)`)
	internalOn = regexp.MustCompile(`^KindInternal only$`)
)

// parseErrorsLine finds the Errors paragraph of a comment and parses it; found
// is false when there is none.
func parseErrorsLine(doc string, consts pixConstants) (line errorsLine, found bool, err error) {
	var text string
	for _, para := range strings.Split(doc, "\n\n") {
		if !strings.HasPrefix(para, "Errors:") {
			continue
		}
		if found {
			return line, true, fmt.Errorf("two Errors paragraphs")
		}
		found, text = true, strings.Join(strings.Fields(strings.TrimPrefix(para, "Errors:")), " ")
	}
	if !found {
		return line, false, nil
	}
	line = errorsLine{pairs: []string{}, kinds: map[string]bool{"KindInternal": true}, codes: map[string]bool{}}
	body, ok := strings.CutSuffix(text, ".")
	if !ok {
		return line, true, fmt.Errorf("%q does not end with a full stop", text)
	}
	body = note.ReplaceAllString(body, "")
	if strings.ContainsAny(body, "()") {
		return line, true, fmt.Errorf("%q: a note in parentheses is not closed, or nests", text)
	}
	if internalOn.MatchString(body) {
		return line, true, nil
	}
	for _, group := range strings.Split(body, "; ") {
		m := kindGroup.FindStringSubmatch(group)
		if m == nil {
			return line, true, fmt.Errorf("%q: %q is not \"KindX: CodeA, CodeB\"", text, group)
		}
		if _, ok := consts.kinds[m[1]]; !ok || m[1] == "KindInternal" {
			return line, true, fmt.Errorf("%q: %s is not a pix Kind other than KindInternal", text, m[1])
		}
		if line.kinds[m[1]] {
			return line, true, fmt.Errorf("%q: %s comes twice", text, m[1])
		}
		line.kinds[m[1]] = true
		for _, c := range strings.Split(m[2], ", ") {
			if _, ok := consts.codes[c]; !ok {
				return line, true, fmt.Errorf("%q: %q is not a pix Code", text, c)
			}
			pair := m[1] + "/" + c
			if slices.Contains(line.pairs, pair) {
				return line, true, fmt.Errorf("%q: %s comes twice under %s", text, c, m[1])
			}
			line.pairs = append(line.pairs, pair)
			line.codes[c] = true
		}
	}
	return line, true, nil
}

// interfaceMethods returns the methods of the interface type name declared in
// the non-test files of dir, and the interfaces it embeds (pkg.Name).
func interfaceMethods(t *testing.T, dir, name string) (out []method, embeds []string) {
	t.Helper()
	for _, f := range parseDir(t, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != name {
				return true
			}
			it, ok := ts.Type.(*ast.InterfaceType)
			if !ok {
				return false
			}
			for _, fld := range it.Methods.List {
				if sel, ok := fld.Type.(*ast.SelectorExpr); ok && len(fld.Names) == 0 {
					if x, ok := sel.X.(*ast.Ident); ok {
						embeds = append(embeds, x.Name+"."+sel.Sel.Name)
						continue
					}
				}
				ft, ok := fld.Type.(*ast.FuncType)
				if !ok || len(fld.Names) != 1 {
					t.Fatalf("%s.%s embeds %T: list its methods or embed another package's interface", dir, name, fld.Type)
				}
				out = append(out, method{name: fld.Names[0].Name, doc: fld.Doc.Text(), returnsError: returnsError(ft)})
			}
			return false
		})
	}
	return out, embeds
}

func returnsError(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return false
	}
	id, ok := ft.Results.List[len(ft.Results.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

// coreMethods returns the comments of the methods with receiver *Simulator
// declared in the non-test files of dir, by name.
func coreMethods(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Simulator" {
					out[fd.Name.Name] = fd.Doc.Text()
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no method with receiver *Simulator in %s", dir)
	}
	return out
}

// parsePixConstants reads the Kind and Code constants of package pix in dir.
// Kind constants must be iota (or repeat it); Code constants string literals.
func parsePixConstants(t *testing.T, dir string) pixConstants {
	t.Helper()
	c := pixConstants{kinds: map[string]pix.Kind{}, codes: map[string]pix.Code{}, kindName: map[pix.Kind]string{}, codeName: map[pix.Code]string{}}
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			typ, iota := "", false
			for i, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				switch {
				case vs.Type != nil:
					typ = exprName(vs.Type)
				case len(vs.Values) > 0:
					typ = ""
				}
				if len(vs.Values) > 0 {
					iota = exprName(vs.Values[0]) == "iota"
				}
				for j, n := range vs.Names {
					switch typ {
					case "Kind":
						if !iota {
							t.Fatalf("pix.%s: a Kind constant that is not iota; teach parsePixConstants its value", n.Name)
						}
						c.kinds[n.Name], c.kindName[pix.Kind(i)] = pix.Kind(i), n.Name
					case "Code":
						v, ok := stringLit(vs.Values, j)
						if !ok {
							t.Fatalf("pix.%s: a Code constant that is not a string literal", n.Name)
						}
						c.codes[n.Name], c.codeName[pix.Code(v)] = pix.Code(v), n.Name
					}
				}
			}
		}
	}
	if len(c.kinds) < 5 || len(c.codes) != len(pix.AllCodes) {
		t.Fatalf("found %d Kind and %d Code constants in %s; pix.AllCodes has %d codes", len(c.kinds), len(c.codes), dir, len(pix.AllCodes))
	}
	return c
}

// stringLit is the value of values[i] when it is a string literal.
func stringLit(values []ast.Expr, i int) (string, bool) {
	if i >= len(values) {
		return "", false
	}
	lit, ok := values[i].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(lit.Value)
	return v, err == nil
}

func exprName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// parseDir parses the non-test Go files of dir with their comments.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	fset := token.NewFileSet()
	var out []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// moduleRoot is the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// setDiff returns the keys of a that b lacks, sorted.
func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
