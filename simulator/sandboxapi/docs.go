package sandboxapi

import (
	"html/template"
	"net/http"
	"sync"

	"github.com/pixsandbox/pixsandbox/docs"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
)

// The API document served (GET /_sandbox/openapi.yaml, from go:embed, the same
// bytes as docs/openapi.yaml) and its reference page (GET /_sandbox/docs,
// rendered from it once, with no script and nothing loaded from elsewhere).
// Like the console, they need no admin token: the same bytes for every caller,
// acting on nothing.

// docsCSP lets the reference page use its own inline styles and nothing else.
const docsCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

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

// handleAPIReference serves GET /_sandbox/docs.
func (cp *ControlPlane) handleAPIReference() http.Handler {
	return cp.srv.ServeStatic("/_sandbox/docs", docsCSP, func(*http.Request) (httpapi.StaticFile, bool) { return referenceFile(), true })
}
