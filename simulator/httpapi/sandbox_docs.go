package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
	"sync"

	"github.com/pixsandbox/pixsandbox/docs"
)

// The API document served (GET /_sandbox/openapi.yaml, from go:embed, the same
// bytes as docs/openapi.yaml), its reference page (GET /_sandbox/docs, rendered
// from it once, with no script and nothing loaded from elsewhere) and the
// landing answer of GET /, which points to the console, the docs and /healthz.
// Like the console, they need no admin token: the same bytes for every caller,
// acting on nothing.

// docsCSP lets the reference page use its own inline styles and nothing else.
const docsCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func newStaticFile(data []byte, ctype string) consoleFile {
	sum := sha256.Sum256(data)
	return consoleFile{data: data, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

// openAPIFile is docs/openapi.yaml as embedded.
var openAPIFile = sync.OnceValue(func() consoleFile {
	return newStaticFile(docs.OpenAPI, "application/yaml; charset=utf-8")
})

// referenceFile is the reference page; a document that does not render (the
// docs package's tests keep it from happening) gives a page saying so.
var referenceFile = sync.OnceValue(func() consoleFile {
	page, err := docs.ReferenceHTML(docs.OpenAPI)
	if err != nil {
		page = []byte("<!doctype html><title>pixsandbox API reference</title><p>The API document does not render: " +
			template.HTMLEscapeString(err.Error()) + `. It is served as YAML at <a href="/_sandbox/openapi.yaml">/_sandbox/openapi.yaml</a>.`)
	}
	return newStaticFile(page, "text/html; charset=utf-8")
})

// handleOpenAPIDocument serves GET /_sandbox/openapi.yaml.
func (s *Server) handleOpenAPIDocument() http.Handler {
	return s.serveStatic("/_sandbox/openapi.yaml", docsCSP, func(*http.Request) (consoleFile, bool) { return openAPIFile(), true })
}

// handleAPIReference serves GET /_sandbox/docs.
func (s *Server) handleAPIReference() http.Handler {
	return s.serveStatic("/_sandbox/docs", docsCSP, func(*http.Request) (consoleFile, bool) { return referenceFile(), true })
}

// rootLinks is the JSON answer of GET /.
type rootLinks struct {
	Name    string `json:"name"`
	Health  string `json:"health"`
	Metrics string `json:"metrics"`
	Console string `json:"console,omitempty"`
	Docs    string `json:"docs,omitempty"`
	OpenAPI string `json:"openapi,omitempty"`
	Message string `json:"message"`
}

// handleRoot serves GET /: instead of the 401 of an unknown path, where to go.
// A browser (Accept naming text/html) gets a page of links; anything else JSON.
// Without the control plane only /healthz and /metrics are listed.
func (s *Server) handleRoot() http.Handler {
	links := rootLinks{Name: "pixsandbox", Health: "/healthz", Metrics: "/metrics",
		Message: "A sandbox of a PIX payment API. The PIX routes need Authorization: Bearer <access_token> from POST /api/auth/token."}
	if s.sandbox != nil {
		links.Console, links.Docs, links.OpenAPI = "/_sandbox/console", "/_sandbox/docs", "/_sandbox/openapi.yaml"
	}
	j, _ := json.Marshal(links)
	jsonFile := newStaticFile(append(j, '\n'), "application/json")
	var page strings.Builder
	page.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pixsandbox</title>` +
		`<style>body{font:16px/1.5 system-ui,sans-serif;margin:3rem auto;max-width:40rem;padding:0 1rem}li{margin:.3rem 0}</style></head><body>` +
		`<h1>pixsandbox</h1><p>` + template.HTMLEscapeString(links.Message) + `</p><ul>`)
	if s.sandbox != nil {
		page.WriteString(`<li><a href="/_sandbox/console">Console</a>: accounts, transactions, charges, the clock, webhooks, MEDs, scenarios</li>` +
			`<li><a href="/_sandbox/docs">API reference</a> (<a href="/_sandbox/openapi.yaml">openapi.yaml</a>)</li>`)
	}
	page.WriteString(`<li><a href="/healthz">/healthz</a></li><li><a href="/metrics">/metrics</a></li></ul></body></html>` + "\n")
	htmlFile := newStaticFile([]byte(page.String()), "text/html; charset=utf-8")
	static := s.serveStatic("/", docsCSP, func(r *http.Request) (consoleFile, bool) {
		if strings.Contains(r.Header.Get("Accept"), "text/html") {
			return htmlFile, true
		}
		return jsonFile, true
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Vary", "Accept")
		static.ServeHTTP(w, r)
	})
}
