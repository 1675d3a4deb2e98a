package httpapi_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The route tables are unexported, so this test reads their source: each row is
// one line holding name, method, path and success status, and a row without a
// handler answers 501 once authenticated.
var (
	routeRow   = regexp.MustCompile(`\{name:\s*"([^"]+)",\s*method:\s*http\.Method(\w+),\s*path:\s*"([^"]+)".*success:\s*http\.Status(\w+)`)
	routerRow  = regexp.MustCompile(`router\.Handle\("([^"]+)",.*\.Methods\(http\.Method(\w+)\)\.Name\("([^"]+)"\)`)
	yamlPath   = regexp.MustCompile(`^  ['"]?(/[^'"]*)['"]?:\s*$`)
	yamlMethod = regexp.MustCompile(`^    (get|put|post|delete|patch|head|options|trace):\s*$`)
	yamlOpID   = regexp.MustCompile(`^      operationId:\s*(\S+)\s*$`)
	yamlStatus = regexp.MustCompile(`^        ['"]?(\d{3})['"]?:\s*$`)
)

// statusCodes maps the http.Status* names the route tables use to their codes.
var statusCodes = map[string]string{"OK": "200", "Created": "201", "Accepted": "202", "NoContent": "204"}

type declaredRoute struct {
	name, success string
	served        bool
}

type documentedOp struct {
	operationID string
	statuses    map[string]bool
	text        string
}

// TestOpenAPI_CoversEveryRoute checks docs/openapi.yaml against the route tables:
// the same (method, path) pairs both ways, operationId = route name in camelCase,
// the success status documented, and 501 documented exactly for routes with no
// handler yet.
func TestOpenAPI_CoversEveryRoute(t *testing.T) {
	routes := readRouteTables(t)
	ops := readOpenAPIOperations(t, filepath.Join("..", "..", "docs", "openapi.yaml"))

	for _, key := range sortedKeys(routes) {
		rt := routes[key]
		op, ok := ops[key]
		if !ok {
			t.Errorf("%s (route %s) is not in docs/openapi.yaml", key, rt.name)
			continue
		}
		if want := camel(rt.name); op.operationID != want {
			t.Errorf("%s: operationId %q, want %q (route %s)", key, op.operationID, want, rt.name)
		}
		if !op.statuses[rt.success] {
			t.Errorf("%s: success status %s is not documented", key, rt.success)
		}
		notServed := strings.Contains(op.text, "Not served by this version yet")
		switch {
		case !rt.served && (!op.statuses["501"] || !notServed):
			t.Errorf("%s has no handler: document a 501 response and say %q", key, "Not served by this version yet: answers 501 after authentication")
		case rt.served && (op.statuses["501"] || notServed):
			t.Errorf("%s is served now: drop its 501 response and its \"Not served\" note", key)
		}
	}
	for _, key := range sortedKeys(ops) {
		if _, ok := routes[key]; !ok {
			t.Errorf("docs/openapi.yaml documents %s, which the server does not route", key)
		}
	}
}

// readRouteTables parses every non-test Go file of this package (routes.go,
// sandbox.go, sandbox_pixout.go, server.go, …) into "METHOD /path" -> route.
func readRouteTables(t *testing.T) map[string]declaredRoute {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
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
				add(file, m[2], m[3], declaredRoute{name: m[1], success: code, served: strings.Contains(line, "handle:")})
			} else if m := routerRow.FindStringSubmatch(line); m != nil {
				add(file, m[2], m[1], declaredRoute{name: m[3], success: "200", served: true})
			}
		}
	}
	// Guard against the regexps silently matching nothing after a reformat.
	for _, key := range []string{"POST /api/auth/token", "GET /_sandbox/clock", "GET /_sandbox/transactions/{id}", "GET /metrics"} {
		if _, ok := routes[key]; !ok {
			t.Fatalf("route table parse found no %s; update the regexps in this test", key)
		}
	}
	return routes
}

// readOpenAPIOperations reads the operations under `paths:` line by line: paths
// at indent 2, methods at 4, operationId at 6 and response codes at 8.
func readOpenAPIOperations(t *testing.T, file string) map[string]*documentedOp {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ops := map[string]*documentedOp{}
	var path string
	var op *documentedOp
	inPaths, inResponses := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line != "" && line[0] != ' ' && line[0] != '#' {
			inPaths = strings.HasPrefix(line, "paths:")
			op = nil
			continue
		}
		if !inPaths {
			continue
		}
		if m := yamlPath.FindStringSubmatch(line); m != nil {
			path, op = m[1], nil
			continue
		}
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.TrimSpace(line) != "" {
			op = nil // another key at path level
			continue
		}
		if m := yamlMethod.FindStringSubmatch(line); m != nil && path != "" {
			key := strings.ToUpper(m[1]) + " " + path
			if _, dup := ops[key]; dup {
				t.Fatalf("%s: %s documented twice", file, key)
			}
			op, inResponses = &documentedOp{statuses: map[string]bool{}}, false
			ops[key] = op
			continue
		}
		if strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "     ") {
			op = nil // path-level parameters and the like
			continue
		}
		if op == nil {
			continue
		}
		op.text += line + "\n"
		if strings.HasPrefix(line, "      ") && !strings.HasPrefix(line, "       ") {
			inResponses = strings.TrimSpace(line) == "responses:"
		}
		if m := yamlOpID.FindStringSubmatch(line); m != nil {
			op.operationID = m[1]
		}
		if m := yamlStatus.FindStringSubmatch(line); m != nil && inResponses {
			op.statuses[m[1]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ops) == 0 {
		t.Fatalf("%s: no operations found under paths:", file)
	}
	return ops
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
