package httpapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/mux"
)

// consoleFiles is the web console at /_sandbox/console: static HTML, CSS and
// JavaScript modules with no build step. The console drives the sandbox only
// through the public API and the control plane's JSON routes (docs/console.md).
//
//go:embed console
var consoleFiles embed.FS

// consoleTypes maps the console's file extensions to their Content-Type; a file
// with another extension is not served (console_test.go checks every embedded
// file has one).
var consoleTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
}

// consoleCSP keeps the console to its own files: scripts and styles from this
// origin only (no inline code), API calls to this origin, and images from this
// origin or data: URLs (the QR code PNG a charge carries).
const consoleCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// consoleFile is one embedded console file ready to serve.
type consoleFile struct {
	data  []byte
	ctype string
	etag  string
}

// consoleIndex reads the embedded console once.
var consoleIndex = sync.OnceValue(func() map[string]consoleFile {
	files := map[string]consoleFile{}
	_ = fs.WalkDir(consoleFiles, "console", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ctype, ok := consoleTypes[path.Ext(p)]
		if !ok {
			return nil
		}
		data, err := consoleFiles.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		files[path.Base(p)] = consoleFile{data: data, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	return files
})

// handleConsolePage serves GET /_sandbox/console: the console's page.
func (s *Server) handleConsolePage() http.Handler {
	return s.serveConsole("/_sandbox/console", func(*http.Request) string { return "index.html" })
}

// handleConsoleAsset serves GET /_sandbox/console/{asset}: the page's scripts
// and style sheet.
func (s *Server) handleConsoleAsset() http.Handler {
	return s.serveConsole("/_sandbox/console/{asset}", func(r *http.Request) string { return mux.Vars(r)["asset"] })
}

// serveConsole answers with the embedded file that name picks; a name that is
// not a console file gets the answer of any unmatched path (404, or 401 first
// when an admin token is configured, as elsewhere under /_sandbox).
//
// The page and its assets themselves need no admin token: a browser cannot add
// X-Sandbox-Admin-Token to a navigation, so a guarded page could never be
// opened to enter the token. They are the same bytes for every caller, hold no
// state and act on nothing; every call the console makes goes to a JSON route
// of the API or of the control plane, which applies the admin token as always.
func (s *Server) serveConsole(route string, name func(*http.Request) string) http.Handler {
	return s.serveStatic(route, consoleCSP, func(r *http.Request) (consoleFile, bool) {
		f, ok := consoleIndex()[name(r)]
		return f, ok
	})
}

// serveStatic answers with the file that pick chooses, under the security
// headers of the console and the given Content-Security-Policy; when pick finds
// none, the answer of any unmatched path.
func (s *Server) serveStatic(route, csp string, pick func(*http.Request) (consoleFile, bool)) http.Handler {
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
