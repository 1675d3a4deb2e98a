package httpapi_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// The route tables are built by methods, so this test reads their source (this
// package's and the control plane's, ../sandboxapi): each row is one line
// holding name, method, path and success status, and a row without a handler
// answers 501 once authenticated; a page row (name, path, handler) is a GET
// answering 200.
var (
	routeRow  = regexp.MustCompile(`\{Name:\s*"([^"]+)",\s*Method:\s*http\.Method(\w+),\s*Path:\s*"([^"]+)".*Success:\s*http\.Status(\w+)`)
	pageRow   = regexp.MustCompile(`\{Name:\s*"([^"]+)",\s*Path:\s*"([^"]+)",\s*Handler:`)
	routerRow = regexp.MustCompile(`router\.Handle\("([^"]+)",.*\.Methods\(http\.Method(\w+)\)\.Name\("([^"]+)"\)`)
)

// statusCodes maps the http.Status* names the route tables use to their codes.
var statusCodes = map[string]string{"OK": "200", "Created": "201", "Accepted": "202", "NoContent": "204"}

type declaredRoute struct {
	name, success string
	served        bool
}

// TestOpenAPI_CoversEveryRoute checks docs/openapi.yaml against the route tables:
// the same (method, path) pairs both ways, operationId = route name in camelCase,
// the success status documented, and 501 documented exactly for routes with no
// handler yet.
func TestOpenAPI_CoversEveryRoute(t *testing.T) {
	routes := readRouteTables(t)
	ops := apitest.OpenAPIOperations(t, filepath.Join("..", "..", "docs", "openapi.yaml"))

	for _, key := range sortedKeys(routes) {
		rt := routes[key]
		op, ok := ops[key]
		if !ok {
			t.Errorf("%s (route %s) is not in docs/openapi.yaml", key, rt.name)
			continue
		}
		if want := camel(rt.name); op.OperationID != want {
			t.Errorf("%s: operationId %q, want %q (route %s)", key, op.OperationID, want, rt.name)
		}
		if !op.Statuses[rt.success] {
			t.Errorf("%s: success status %s is not documented", key, rt.success)
		}
		notServed := strings.Contains(op.Text, "Not served by this version yet")
		switch {
		case !rt.served && (!op.Statuses["501"] || !notServed):
			t.Errorf("%s has no handler: document a 501 response and say %q", key, "Not served by this version yet: answers 501 after authentication")
		case rt.served && (op.Statuses["501"] || notServed):
			t.Errorf("%s is served now: drop its 501 response and its \"Not served\" note", key)
		}
	}
	for _, key := range sortedKeys(ops) {
		if _, ok := routes[key]; !ok {
			t.Errorf("docs/openapi.yaml documents %s, which the server does not route", key)
		}
	}
}

// readRouteTables parses every non-test Go file of this package and of
// ../sandboxapi (routes.go, server.go, …) into "METHOD /path" -> route.
func readRouteTables(t *testing.T) map[string]declaredRoute {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join("..", "sandboxapi", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	sort.Strings(files)
	routes := map[string]declaredRoute{}
	add := func(file, method, path string, rt declaredRoute) {
		key := strings.ToUpper(method) + " " + path
		if _, dup := routes[key]; dup {
			t.Fatalf("%s: %s declared twice", file, key)
		}
		routes[key] = rt
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if m := routeRow.FindStringSubmatch(line); m != nil {
				code, ok := statusCodes[m[4]]
				if !ok {
					t.Fatalf("%s: route %s: add http.Status%s to statusCodes in this test", file, m[1], m[4])
				}
				add(file, m[2], m[3], declaredRoute{name: m[1], success: code, served: strings.Contains(line, "Handle:")})
			} else if m := pageRow.FindStringSubmatch(line); m != nil {
				add(file, "GET", m[2], declaredRoute{name: m[1], success: "200", served: true})
			} else if m := routerRow.FindStringSubmatch(line); m != nil {
				add(file, m[2], m[1], declaredRoute{name: m[3], success: "200", served: true})
			}
		}
	}
	// Guard against the regexps silently matching nothing after a reformat.
	for _, key := range []string{"POST /api/auth/token", "GET /_sandbox/clock", "GET /_sandbox/transactions/{id}", "GET /metrics", "GET /_sandbox/console"} {
		if _, ok := routes[key]; !ok {
			t.Fatalf("route table parse found no %s; update the regexps in this test", key)
		}
	}
	return routes
}

// camel turns a route name into its operationId: auth.token -> authToken.
func camel(name string) string {
	parts := strings.Split(name, ".")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestOpenAPI_ScopedRoutes checks that docs/openapi.yaml lists every control
// route again under /_sandbox/workspaces/{workspace}/, as a reference to the
// unscoped route's path item with the workspace parameter, and nothing else
// there (the workspace routes themselves are checked with the others; the
// pages are not scoped).
func TestOpenAPI_ScopedRoutes(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "sandboxapi", "routes.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The pages (the console, the explorer, the document) are not routed
	// under a workspace: they act on nothing, and the page's own script
	// chooses the workspace it calls.
	want := map[string]bool{}
	controlPath := regexp.MustCompile(`Path:\s*"(/_sandbox/[^"]*)"`)
	for _, line := range strings.Split(string(src), "\n") {
		if m := controlPath.FindStringSubmatch(line); m != nil && !pageRow.MatchString(line) {
			want[m[1]] = true
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`(?m)^  /_sandbox/workspaces/\{workspace\}(/[^:]*):\n    \$ref: '#/paths/([^']*)'\n    parameters:\n      - \$ref: '#/components/parameters/Workspace'\n`)
	got := map[string]bool{}
	for _, m := range entry.FindAllStringSubmatch(string(doc), -1) {
		unscoped := "/_sandbox" + m[1]
		ref := strings.NewReplacer("~1", "/", "~0", "~").Replace(m[2])
		if ref != unscoped {
			t.Errorf("%s refers to %s, want %s", "/_sandbox/workspaces/{workspace}"+m[1], ref, unscoped)
		}
		got[unscoped] = true
	}
	for p := range want {
		if !got[p] {
			t.Errorf("docs/openapi.yaml lacks /_sandbox/workspaces/{workspace}%s ($ref to %s)", strings.TrimPrefix(p, "/_sandbox"), p)
		}
	}
	for p := range got {
		if !want[p] {
			t.Errorf("docs/openapi.yaml lists %s under a workspace, which the control plane does not route", p)
		}
	}
	if len(got) == 0 {
		t.Fatal("no scoped route found in docs/openapi.yaml")
	}
}
