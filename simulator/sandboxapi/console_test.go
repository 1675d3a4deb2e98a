package sandboxapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// consoleContentTypes is the Content-Type each console file extension must be
// served with.
var consoleContentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
}

func get(tb testing.TB, url string, headers map[string]string) (apitest.Result, []byte) {
	tb.Helper()
	return send(tb, http.MethodGet, url, headers)
}

// send is doRaw (server_test.go) for the console's bodiless requests, failing
// on any 5xx.
func send(tb testing.TB, method, url string, headers map[string]string) (apitest.Result, []byte) {
	tb.Helper()
	r := apitest.DoRaw(tb, method, url, nil, headers)
	if r.Status >= 500 {
		tb.Fatalf("%s %s = %d: %s", method, url, r.Status, r.Raw)
	}
	return r, r.Raw
}

// consoleFilesOnDisk lists the console's files (the embedded directory).
func consoleFilesOnDisk(tb testing.TB) []string {
	tb.Helper()
	entries, err := os.ReadDir("console")
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		tb.Fatal("console/ holds no files")
	}
	return names
}

func checkMinimal404(t *testing.T, resp apitest.Result, raw []byte) {
	t.Helper()
	if resp.Status != http.StatusNotFound {
		t.Fatalf("status %d, want 404: %s", resp.Status, raw)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("404 Content-Type %q, want JSON", ct)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil || body["error"] != "Not Found" || len(body) != 3 {
		t.Errorf("404 body is not the minimal shape: %s", raw)
	}
}

func TestConsole_Page(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	resp, raw := get(t, env.URL+"/_sandbox/console", nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("GET /_sandbox/console = %d: %s", resp.Status, raw)
	}
	for k, want := range map[string]string{
		"Content-Type":           "text/html; charset=utf-8",
		"X-Content-Type-Options": "nosniff",
		"Cache-Control":          "no-cache",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "img-src 'self' data:") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	if resp.Header.Get("X-Request-Id") == "" || resp.Header.Get("ETag") == "" {
		t.Errorf("missing X-Request-Id or ETag: %v", resp.Header)
	}
	onDisk, err := os.ReadFile(filepath.Join("console", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, onDisk) {
		t.Error("the page is not console/index.html")
	}

	// A repeat with the ETag is answered 304 with no body.
	resp2, raw2 := get(t, env.URL+"/_sandbox/console", map[string]string{"If-None-Match": resp.Header.Get("ETag")})
	if resp2.Status != http.StatusNotModified || len(raw2) != 0 {
		t.Errorf("If-None-Match: %d %q, want 304 and no body", resp2.Status, raw2)
	}

	// Every script and style sheet the page names is served.
	refs := regexp.MustCompile(`(?:src|href)="(/_sandbox/console/[^"]+)"`).FindAllStringSubmatch(string(raw), -1)
	if len(refs) < 2 {
		t.Fatalf("the page names %d assets, want its script and style sheet", len(refs))
	}
	for _, m := range refs {
		if r, body := get(t, env.URL+m[1], nil); r.Status != http.StatusOK {
			t.Errorf("the page names %s, which answers %d: %s", m[1], r.Status, body)
		}
	}
}

func TestConsole_Assets(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	importRE := regexp.MustCompile(`(?m)^import .* from '\./([^']+)';$`)
	for _, name := range consoleFilesOnDisk(t) {
		want, ok := consoleContentTypes[path.Ext(name)]
		if !ok {
			t.Errorf("console/%s: extension %q is not served; add it to staticTypes in console.go and to this test", name, path.Ext(name))
			continue
		}
		resp, raw := get(t, env.URL+"/_sandbox/console/"+name, nil)
		if resp.Status != http.StatusOK {
			t.Errorf("GET /_sandbox/console/%s = %d: %s", name, resp.Status, raw)
			continue
		}
		if got := resp.Header.Get("Content-Type"); got != want {
			t.Errorf("%s: Content-Type %q, want %q", name, got, want)
		}
		onDisk, err := os.ReadFile(filepath.Join("console", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw, onDisk) {
			t.Errorf("%s: served bytes differ from console/%s", name, name)
		}
		// Every module a script imports is a console file.
		for _, m := range importRE.FindAllStringSubmatch(string(raw), -1) {
			if _, err := os.Stat(filepath.Join("console", m[1])); err != nil {
				t.Errorf("%s imports ./%s, which is not in console/", name, m[1])
			}
		}
	}
}

func TestConsole_Unknown(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	for _, p := range []string{
		"/_sandbox/console/nope.js",
		"/_sandbox/console/",
		"/_sandbox/console/console",
		"/_sandbox/console/%2e%2e",
		"/_sandbox/console/..%2fconsole.go",
		"/_sandbox/console/app.js/x",
		"/_sandbox/consolex",
	} {
		t.Run(strings.TrimPrefix(p, "/_sandbox/"), func(t *testing.T) {
			resp, raw := get(t, env.URL+p, nil)
			checkMinimal404(t, resp, raw)
		})
	}
	for _, p := range []string{"/_sandbox/console", "/_sandbox/console/app.js"} {
		resp, raw := send(t, http.MethodPost, env.URL+p, nil)
		if resp.Status != http.StatusMethodNotAllowed {
			t.Errorf("POST %s = %d, want 405: %s", p, resp.Status, raw)
		}
	}
}

// TestConsole_AdminToken checks the console under --admin-token: the page and
// its assets load without the token (a browser cannot send it when opening a
// page), every control-plane route still needs it, and a path under the console
// that is not one of its files answers like any unmatched /_sandbox path.
func TestConsole_AdminToken(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{AdminToken: "s3cret"})
	right := map[string]string{"X-Sandbox-Admin-Token": "s3cret"}
	wrong := map[string]string{"X-Sandbox-Admin-Token": "nope"}

	for _, p := range []string{"/_sandbox/console", "/_sandbox/console/app.js", "/_sandbox/console/style.css"} {
		for _, h := range []map[string]string{nil, wrong, right} {
			if resp, raw := get(t, env.URL+p, h); resp.Status != http.StatusOK {
				t.Errorf("GET %s with %v = %d: %s", p, h, resp.Status, raw)
			}
		}
	}
	ctx := context.Background()
	for _, p := range []string{"/_sandbox/accounts", "/_sandbox/clock", "/_sandbox/scenarios", "/_sandbox/webhook-deliveries"} {
		for _, token := range []string{"", "nope"} {
			_, err := sandboxclient.New(env.URL, token).Call(ctx, http.MethodGet, p, nil, nil, http.StatusOK)
			if !sandboxclient.IsStatus(err, http.StatusUnauthorized) {
				t.Errorf("GET %s with admin token %q: %v, want 401", p, token, err)
			}
		}
		if _, err := sandboxclient.New(env.URL, "s3cret").Call(ctx, http.MethodGet, p, nil, nil, http.StatusOK); err != nil {
			t.Errorf("GET %s with the admin token: %v", p, err)
		}
	}
	resp, raw := get(t, env.URL+"/_sandbox/console/nope.js", nil)
	if resp.Status != http.StatusUnauthorized {
		t.Errorf("unknown asset without the admin token = %d, want 401 like other /_sandbox paths: %s", resp.Status, raw)
	}
	resp, raw = get(t, env.URL+"/_sandbox/console/nope.js", right)
	checkMinimal404(t, resp, raw)
}

func TestConsole_NotMounted(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{NoSandbox: true})
	for _, p := range []string{"/_sandbox/console", "/_sandbox/console/app.js"} {
		resp, raw := get(t, env.URL+p, nil)
		checkMinimal404(t, resp, raw)
	}
}

// TestConsole_CallsDocumentedRoutes reads the console's scripts and checks that
// every API call names its method and path literally, and that each is a route
// of docs/openapi.yaml: the console uses the public API and the control plane,
// nothing else.
func TestConsole_CallsDocumentedRoutes(t *testing.T) {
	ops := apitest.OpenAPIOperations(t, filepath.Join("..", "..", "docs", "openapi.yaml"))
	param := regexp.MustCompile(`\{[^}]*\}`)
	documented := map[string]bool{}
	for key := range ops {
		documented[param.ReplaceAllString(key, "{}")] = true
	}
	callRE := regexp.MustCompile("\\bcall\\('(GET|POST|PUT|PATCH|DELETE)', ['`](/[^'`]*)['`]")
	anyCall := regexp.MustCompile(`\bcall\(`)
	interp := regexp.MustCompile(`\$\{[^}]*\}`)
	seen := map[string]bool{}
	scripts := consoleScripts(t)
	explorer, err := os.ReadFile(filepath.Join("explorer", "explorer.js"))
	if err != nil {
		t.Fatal(err)
	}
	scripts["../explorer/explorer.js"] = string(explorer) // the API explorer calls through api.js too
	for name, src := range scripts {
		for i, line := range strings.Split(src, "\n") {
			calls := callRE.FindAllStringSubmatch(line, -1)
			trimmed := strings.TrimSpace(line)
			generic := name == "api.js" && (strings.Contains(line, "call(method, path") || strings.HasPrefix(trimmed, "//"))
			if n := len(anyCall.FindAllString(line, -1)); n != len(calls) && !generic {
				t.Errorf("console/%s:%d: a call whose method and path are not literal: %s", name, i+1, trimmed)
			}
			for _, m := range calls {
				key := m[1] + " " + interp.ReplaceAllString(m[2], "{}")
				seen[key] = true
				if !documented[key] {
					t.Errorf("console/%s:%d calls %s, which docs/openapi.yaml does not document", name, i+1, key)
				}
			}
		}
	}
	// Guard against the regexps silently matching nothing.
	for _, key := range []string{"POST /_sandbox/accounts/{}/token", "POST /api/pix/cash-in", "POST /_sandbox/payments", "GET /api/transactions",
		"GET /_sandbox/workspaces", "POST /_sandbox/workspaces", "GET /_sandbox/workspaces/{}", "DELETE /_sandbox/workspaces/{}"} {
		if !seen[key] {
			t.Errorf("found no call of %s in the console's scripts; update the regexps of this test", key)
		}
	}
}

// consoleScripts returns the console's scripts by name.
func consoleScripts(tb testing.TB) map[string]string {
	tb.Helper()
	out := map[string]string{}
	for _, name := range consoleFilesOnDisk(tb) {
		if path.Ext(name) != ".js" {
			continue
		}
		src, err := os.ReadFile(filepath.Join("console", name))
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = string(src)
	}
	return out
}

// TestConsole_ControlHeadersInOnePlace checks that only api.js writes the
// headers that choose the workspace and open the control plane: every other
// script calls through it, so every control-plane call acts on the workspace
// chosen in the picker.
func TestConsole_ControlHeadersInOnePlace(t *testing.T) {
	scripts := consoleScripts(t)
	for _, header := range []string{"X-Sandbox-Workspace", "X-Sandbox-Admin-Token"} {
		if !strings.Contains(scripts["api.js"], "'"+header+"'") {
			t.Errorf("api.js does not send %s", header)
		}
		for name, src := range scripts {
			if name != "api.js" && strings.Contains(src, header) {
				t.Errorf("console/%s writes %s: only api.js's call sets it", name, header)
			}
		}
	}
	fetchRE := regexp.MustCompile(`\b(fetch|XMLHttpRequest|EventSource)\b`)
	for name, src := range scripts {
		if name != "api.js" && fetchRE.MatchString(src) {
			t.Errorf("console/%s calls the server without api.js's call", name)
		}
	}
}

// TestConsole_ElementsExist checks that every element a script looks up by a
// literal data-testid ($('…')) is in index.html.
func TestConsole_ElementsExist(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("console", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	lookup := regexp.MustCompile(`\$\('([^']+)'`)
	n := 0
	for name, src := range consoleScripts(t) {
		for _, m := range lookup.FindAllStringSubmatch(src, -1) {
			n++
			if !bytes.Contains(page, []byte(`data-testid="`+m[1]+`"`)) {
				t.Errorf("console/%s looks up data-testid %q, which index.html lacks", name, m[1])
			}
		}
	}
	for _, id := range []string{"workspace-select", "workspace-create-form", "workspace-delete-confirm", "admin-token-scope", "requests-filter-workspace"} {
		if !bytes.Contains(page, []byte(`data-testid="`+id+`"`)) {
			t.Errorf("index.html lacks data-testid %q", id)
		}
	}
	if n < 50 {
		t.Errorf("found %d lookups in the scripts; update the regexp of this test", n)
	}
}
