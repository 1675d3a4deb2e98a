package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Static answers: GET / (here), and the pages a control plane mounts (the web
// console, the API document and its reference page, package sandboxapi). They
// are the same bytes for every caller, act on nothing and need no token; they
// are served outside the route tables, with the console's security headers.

// StaticFile is a file ready to serve: its bytes, Content-Type and ETag.
type StaticFile struct {
	data  []byte
	ctype string
	etag  string
}

// NewStaticFile makes a StaticFile of data, its ETag a hash of the bytes.
func NewStaticFile(data []byte, ctype string) StaticFile {
	sum := sha256.Sum256(data)
	return StaticFile{data: data, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

// ServeStatic answers with the file that pick chooses, under the security
// headers of the console and the given Content-Security-Policy, recording the
// request's metrics and access log under route; when pick finds none, the
// answer of any unmatched path (404, or 401 first when an admin token is
// configured, as elsewhere under /_sandbox).
func (s *Server) ServeStatic(route, csp string, pick func(*http.Request) (StaticFile, bool)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := pick(r)
		if !ok {
			s.router.NotFoundHandler.ServeHTTP(w, r)
			return
		}
		start := time.Now() // wall time: request latency metric only
		reqID := uuid.NewString()
		rec := &statusRecorder{ResponseWriter: w}
		h := w.Header()
		h.Set("X-Request-Id", reqID)
		h.Set("Content-Type", f.ctype)
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		http.ServeContent(rec, r, "", time.Time{}, bytes.NewReader(f.data))
		d := time.Since(start)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		s.metrics.Observe(route, r.Method, rec.status, d)
		s.log.Info("request", "request_id", reqID, "method", r.Method, "route", route,
			"status", rec.status, "duration_ms", float64(d.Microseconds())/1000)
	})
}

// rootCSP lets the landing page use its own inline styles and nothing else.
const rootCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

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
	if s.controlPlane {
		links.Console, links.Docs, links.OpenAPI = "/_sandbox/console", "/_sandbox/docs", "/_sandbox/openapi.yaml"
	}
	j, _ := json.Marshal(links)
	jsonFile := NewStaticFile(append(j, '\n'), "application/json")
	var page strings.Builder
	page.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pixsandbox</title>` +
		`<style>body{font:16px/1.5 system-ui,sans-serif;margin:3rem auto;max-width:40rem;padding:0 1rem}li{margin:.3rem 0}</style></head><body>` +
		`<h1>pixsandbox</h1><p>` + template.HTMLEscapeString(links.Message) + `</p><ul>`)
	if s.controlPlane {
		page.WriteString(`<li><a href="/_sandbox/console">Console</a>: accounts, transactions, charges, the clock, webhooks, MEDs, scenarios</li>` +
			`<li><a href="/_sandbox/docs">API explorer</a>: the API reference with "Try it out" (<a href="/_sandbox/openapi.yaml">openapi.yaml</a>)</li>`)
	}
	page.WriteString(`<li><a href="/healthz">/healthz</a></li><li><a href="/metrics">/metrics</a></li></ul></body></html>` + "\n")
	htmlFile := NewStaticFile([]byte(page.String()), "text/html; charset=utf-8")
	static := s.ServeStatic("/", rootCSP, func(r *http.Request) (StaticFile, bool) {
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
