package sandboxapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestSandboxDocs_OpenAPIEqualsFile: GET /_sandbox/openapi.yaml answers the
// bytes of docs/openapi.yaml, with no admin token even when one is configured.
func TestSandboxDocs_OpenAPIEqualsFile(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env := simulatortest.New(t, simulatortest.Options{AdminToken: "s3cret"})
	resp, raw := get(t, env.URL+"/_sandbox/openapi.yaml", nil)
	if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/yaml; charset=utf-8" {
		t.Fatalf("GET /_sandbox/openapi.yaml = %d %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	if !bytes.Equal(raw, want) {
		t.Fatal("GET /_sandbox/openapi.yaml differs from docs/openapi.yaml")
	}
	again, _ := get(t, env.URL+"/_sandbox/openapi.yaml", map[string]string{"If-None-Match": resp.Header.Get("ETag")})
	if again.Status != http.StatusNotModified {
		t.Fatalf("If-None-Match with the ETag = %d, want 304", again.Status)
	}
}

// TestSandboxDocs_ReferencePage: GET /_sandbox/docs/reference is one HTML
// page with a section per operation, no script, and a policy that lets it
// load nothing.
func TestSandboxDocs_ReferencePage(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	resp, raw := get(t, env.URL+"/_sandbox/docs/reference", nil)
	if resp.Status != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /_sandbox/docs/reference = %d %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Fatalf("Content-Security-Policy %q", csp)
	}
	page := string(raw)
	ops := apitest.OpenAPIOperations(t, filepath.Join("..", "..", "docs", "openapi.yaml"))
	for key, op := range ops {
		if !strings.Contains(page, `id="op-`+op.OperationID+`"`) {
			t.Errorf("the reference page has no section for %s", key)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("the reference page has a script")
	}
}

// TestSandboxDocs_Explorer: GET /_sandbox/docs is the explorer's page; it and
// every file it loads (its own, Swagger UI's, and the console modules its
// script imports) are served under a policy that allows this origin only,
// with an ETag, and name no other origin: the page loads nothing from
// elsewhere (make test-e2e checks it in a browser with the network off).
func TestSandboxDocs_Explorer(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{AdminToken: "s3cret"})
	resp, raw := get(t, env.URL+"/_sandbox/docs", nil)
	if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /_sandbox/docs without the admin token = %d %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	checkSelfOnly(t, "/_sandbox/docs", resp.Header.Get("Content-Security-Policy"))
	page := string(raw)
	absolute := regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://|(?:src|href|action)\s*=\s*["']?//|url\(\s*["']?//|@import`)
	if m := absolute.FindString(page); m != "" {
		t.Errorf("the explorer's page names another origin: %q", m)
	}
	for _, m := range regexp.MustCompile(`<a [^>]*href="(/[^"]*)"`).FindAllStringSubmatch(page, -1) {
		if r, _ := get(t, env.URL+m[1], map[string]string{"X-Sandbox-Admin-Token": "s3cret"}); r.Status != http.StatusOK {
			t.Errorf("the page links to %s, which answers %d", m[1], r.Status)
		}
	}
	assets := regexp.MustCompile(`<(?:script|link) [^>]*(?:src|href)="(/[^"]*)"`).FindAllStringSubmatch(page, -1)
	script := ""
	for _, m := range assets {
		r, body := get(t, env.URL+m[1], nil)
		if r.Status != http.StatusOK || !strings.HasPrefix(m[1], "/_sandbox/docs/") {
			t.Errorf("the page loads %s, which answers %d", m[1], r.Status)
			continue
		}
		checkSelfOnly(t, m[1], r.Header.Get("Content-Security-Policy"))
		if again, _ := get(t, env.URL+m[1], map[string]string{"If-None-Match": r.Header.Get("ETag")}); again.Status != http.StatusNotModified {
			t.Errorf("%s with If-None-Match = %d, want 304", m[1], again.Status)
		}
		switch path.Base(m[1]) {
		case "explorer.js", "explorer.css":
			if found := absolute.FindString(string(body)); found != "" {
				t.Errorf("%s names another origin: %q", m[1], found)
			}
			if path.Base(m[1]) == "explorer.js" {
				script = string(body)
			}
		case "swagger-ui.css":
			for _, u := range regexp.MustCompile(`url\(\s*["']?([^"')]*)`).FindAllStringSubmatch(string(body), -1) {
				if !strings.HasPrefix(u[1], "data:") {
					t.Errorf("swagger-ui.css loads %q, not a data: URL", u[1])
				}
			}
		case "swagger-ui-bundle.js":
			if found := regexp.MustCompile(`sourceMappingURL=\S*://`).FindString(string(body)); found != "" {
				t.Errorf("swagger-ui-bundle.js points at %q", found)
			}
		}
	}
	if script == "" {
		t.Fatal("the page loads no /_sandbox/docs/explorer.js")
	}
	// Swagger UI's default sends the document to an outside validator.
	if !strings.Contains(script, "validatorUrl: null") {
		t.Error("explorer.js leaves Swagger UI's online validator on")
	}
	for _, m := range regexp.MustCompile(`(?m)^import .* from '([^']+)';$`).FindAllStringSubmatch(script, -1) {
		if r, _ := get(t, env.URL+m[1], nil); r.Status != http.StatusOK || !strings.HasPrefix(m[1], "/_sandbox/") {
			t.Errorf("explorer.js imports %s, which answers %d", m[1], r.Status)
		}
	}
	for _, m := range regexp.MustCompile(`\$\('([^']+)'`).FindAllStringSubmatch(script, -1) {
		if !strings.Contains(page, `data-testid="`+m[1]+`"`) {
			t.Errorf("explorer.js looks up data-testid %q, which the page lacks", m[1])
		}
	}
	r, body := get(t, env.URL+"/_sandbox/docs/nope.js", map[string]string{"X-Sandbox-Admin-Token": "s3cret"})
	checkMinimal404(t, r, body)
	if r, _ := get(t, env.URL+"/_sandbox/docs/nope.js", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("an unknown explorer file without the admin token = %d, want 401 as other /_sandbox paths", r.Status)
	}
}

// checkSelfOnly fails unless csp allows nothing but this origin (and data:
// images), with no inline code or eval.
func checkSelfOnly(t *testing.T, what, csp string) {
	t.Helper()
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("%s: Content-Security-Policy %q", what, csp)
	}
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		for _, src := range f[1:] {
			if src != "'self'" && src != "'none'" && (src != "data:" || f[0] != "img-src") {
				t.Errorf("%s: Content-Security-Policy allows %s in %s", what, src, f[0])
			}
		}
	}
}

// TestSandboxDocs_ExplorerVendored: Swagger UI's files are embedded as
// vendored: each one that VENDOR lists has the SHA-256 of SHA256SUMS, and
// VENDOR names the package, version, integrity and licence (make
// explorer-vendor checks them against the registry; this test needs no
// network).
func TestSandboxDocs_ExplorerVendored(t *testing.T) {
	dir := filepath.Join("explorer", "swagger-ui")
	vendor, err := os.ReadFile(filepath.Join(dir, "VENDOR"))
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(vendor), "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, "#") {
			fields[k] = v
		}
	}
	if fields["package"] != "swagger-ui-dist" || fields["license"] != "Apache-2.0" || fields["version"] == "" ||
		!regexp.MustCompile(`^sha512-[A-Za-z0-9+/]{86}==$`).MatchString(fields["integrity"]) {
		t.Errorf("VENDOR fields %v", fields)
	}
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, _ := strings.Cut(line, "  ")
		want[name] = sum
	}
	env := simulatortest.New(t, simulatortest.Options{})
	for _, name := range strings.Fields(fields["files"]) {
		_, served := get(t, env.URL+"/_sandbox/docs/"+name, nil)
		sum := sha256.Sum256(served)
		if got := hex.EncodeToString(sum[:]); want[name] == "" || got != want[name] {
			t.Errorf("served %s has SHA-256 %s, SHA256SUMS says %q", name, got, want[name])
		}
	}
	if len(want) != len(strings.Fields(fields["files"])) {
		t.Errorf("SHA256SUMS lists %d files, VENDOR %q", len(want), fields["files"])
	}
}

// TestSandboxDocs_Root: GET / points to the console, the docs and /healthz
// (a page for browsers, JSON otherwise) instead of answering 401; other
// unknown paths still answer 401.
func TestSandboxDocs_Root(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	resp, raw := get(t, env.URL+"/", map[string]string{"Accept": "text/html,application/xhtml+xml"})
	if resp.Status != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / (browser) = %d %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	for _, link := range []string{`href="/_sandbox/console"`, `href="/_sandbox/docs"`, `href="/healthz"`} {
		if !bytes.Contains(raw, []byte(link)) {
			t.Errorf("GET / page has no %s", link)
		}
	}
	resp, raw = get(t, env.URL+"/", nil)
	var links map[string]string
	if resp.Status != http.StatusOK || json.Unmarshal(raw, &links) != nil {
		t.Fatalf("GET / = %d %s", resp.Status, raw)
	}
	if links["console"] != "/_sandbox/console" || links["docs"] != "/_sandbox/docs" || links["health"] != "/healthz" || links["openapi"] != "/_sandbox/openapi.yaml" {
		t.Fatalf("GET / links %v", links)
	}
	if resp.Header.Get("Vary") != "Accept" {
		t.Errorf("GET / Vary %q, want Accept", resp.Header.Get("Vary"))
	}
	if other, _ := get(t, env.URL+"/nowhere", nil); other.Status != http.StatusUnauthorized {
		t.Fatalf("GET /nowhere = %d, want 401", other.Status)
	}
}

func TestSandboxDocs_NotMountedWithoutControlPlane(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{NoSandbox: true})
	for _, p := range []string{"/_sandbox/openapi.yaml", "/_sandbox/docs", "/_sandbox/docs/reference", "/_sandbox/docs/explorer.js"} {
		resp, raw := get(t, env.URL+p, nil)
		checkMinimal404(t, resp, raw)
	}
	resp, raw := get(t, env.URL+"/", nil)
	var links map[string]string
	if resp.Status != http.StatusOK || json.Unmarshal(raw, &links) != nil || links["console"] != "" || links["health"] != "/healthz" {
		t.Fatalf("GET / without the control plane = %d %s", resp.Status, raw)
	}
}
