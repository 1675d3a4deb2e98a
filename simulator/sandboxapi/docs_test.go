package sandboxapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
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

// TestSandboxDocs_ReferencePage: GET /_sandbox/docs is one HTML page with a
// section per operation, no script, and a policy that lets it load nothing.
func TestSandboxDocs_ReferencePage(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	resp, raw := get(t, env.URL+"/_sandbox/docs", nil)
	if resp.Status != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /_sandbox/docs = %d %q", resp.Status, resp.Header.Get("Content-Type"))
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
	for _, p := range []string{"/_sandbox/openapi.yaml", "/_sandbox/docs"} {
		resp, raw := get(t, env.URL+p, nil)
		checkMinimal404(t, resp, raw)
	}
	resp, raw := get(t, env.URL+"/", nil)
	var links map[string]string
	if resp.Status != http.StatusOK || json.Unmarshal(raw, &links) != nil || links["console"] != "" || links["health"] != "/healthz" {
		t.Fatalf("GET / without the control plane = %d %s", resp.Status, raw)
	}
}
