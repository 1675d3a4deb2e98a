package sandboxapi

import (
	"embed"
	"html/template"
	"net/http"
	"sync"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/docs"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
)

// The API document served (GET /_sandbox/openapi.yaml, from go:embed, the same
// bytes as docs/openapi.yaml), the API explorer (GET /_sandbox/docs and its
// assets: Swagger UI pointed at the document, with "Try it out" as a sandbox
// account; docs/console.md) and the reference page rendered from the document
// once, with no script (GET /_sandbox/docs/reference). Like the console, they
// need no admin token: the same bytes for every caller, acting on nothing.

// docsCSP lets the reference page use its own inline styles and nothing else.
const docsCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// explorerCSP keeps the explorer to this server: scripts, styles, fonts and
// calls from this origin only (no inline code, no eval), images from this
// origin or data: URLs (Swagger UI's icons are in its style sheet).
const explorerCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// explorerFiles is the explorer (Gap G-73): its page, script and style sheet, and
// Swagger UI's files (explorer/swagger-ui: the npm package swagger-ui-dist,
// vendored with its licence; VENDOR names the version and its integrity,
// SHA256SUMS each file's hash, `make explorer-vendor` checks them against
// the registry). The explorer's script imports the console's api.js.
//
//go:embed explorer
var explorerFiles embed.FS

// explorerIndex reads the embedded explorer once.
var explorerIndex = sync.OnceValue(func() map[string]httpapi.StaticFile {
	return embeddedFiles(explorerFiles, "explorer", staticTypes)
})

// openAPIFile is docs/openapi.yaml as embedded.
var openAPIFile = sync.OnceValue(func() httpapi.StaticFile {
	return httpapi.NewStaticFile(docs.OpenAPI, "application/yaml; charset=utf-8")
})

// referenceFile is the reference page; a document that does not render (the
// docs package's tests keep it from happening) gives a page saying so.
var referenceFile = sync.OnceValue(func() httpapi.StaticFile {
	page, err := docs.ReferenceHTML(docs.OpenAPI)
	if err != nil {
		page = []byte("<!doctype html><title>pixsandbox API reference</title><p>The API document does not render: " +
			template.HTMLEscapeString(err.Error()) + `. It is served as YAML at <a href="/_sandbox/openapi.yaml">/_sandbox/openapi.yaml</a>.`)
	}
	return httpapi.NewStaticFile(page, "text/html; charset=utf-8")
})

// handleOpenAPIDocument serves GET /_sandbox/openapi.yaml.
func (cp *ControlPlane) handleOpenAPIDocument() http.Handler {
	return cp.srv.ServeStatic("/_sandbox/openapi.yaml", docsCSP, func(*http.Request) (httpapi.StaticFile, bool) { return openAPIFile(), true })
}

// handleAPIExplorer serves GET /_sandbox/docs: the explorer's page.
func (cp *ControlPlane) handleAPIExplorer() http.Handler {
	return cp.srv.ServeStatic("/_sandbox/docs", explorerCSP, func(*http.Request) (httpapi.StaticFile, bool) {
		f, ok := explorerIndex()["index.html"]
		return f, ok
	})
}

// handleAPIExplorerAsset serves GET /_sandbox/docs/{asset}: the explorer's
// script and style sheet and Swagger UI's files; a name that is not one of
// them gets the answer of any unmatched path, as the console's assets.
func (cp *ControlPlane) handleAPIExplorerAsset() http.Handler {
	return cp.srv.ServeStatic("/_sandbox/docs/{asset}", explorerCSP, func(r *http.Request) (httpapi.StaticFile, bool) {
		f, ok := explorerIndex()[mux.Vars(r)["asset"]]
		return f, ok
	})
}

// handleAPIReference serves GET /_sandbox/docs/reference: the document as
// one page with no script, for reading without JavaScript.
func (cp *ControlPlane) handleAPIReference() http.Handler {
	return cp.srv.ServeStatic("/_sandbox/docs/reference", docsCSP, func(*http.Request) (httpapi.StaticFile, bool) { return referenceFile(), true })
}
