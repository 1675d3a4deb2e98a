package sandboxapi

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"sync"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
)

// consoleFiles is the web console at /_sandbox/console: static HTML, CSS and
// JavaScript modules with no build step. The console drives the sandbox only
// through the public API and the control plane's JSON routes (docs/console.md).
//
//go:embed console
var consoleFiles embed.FS

// staticTypes maps the extensions of the console's and the explorer's files
// to their Content-Type; a file with another extension is not served
// (console_test.go checks every console file has one). The files without one
// are the explorer's Swagger UI LICENSE, NOTICE, VENDOR and SHA256SUMS.
var staticTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	"":      "text/plain; charset=utf-8",
}

// consoleCSP keeps the console to its own files: scripts and styles from this
// origin only (no inline code), API calls to this origin, and images from this
// origin or data: URLs (the QR code PNG a charge carries).
const consoleCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// consoleIndex reads the embedded console once.
var consoleIndex = sync.OnceValue(func() map[string]httpapi.StaticFile {
	return embeddedFiles(consoleFiles, "console", staticTypes)
})

// embeddedFiles reads the files under root in fsys whose extension types
// gives a Content-Type, by their base name (the routes serve one flat
// directory).
func embeddedFiles(fsys fs.FS, root string, types map[string]string) map[string]httpapi.StaticFile {
	files := map[string]httpapi.StaticFile{}
	_ = fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ctype, ok := types[path.Ext(p)]
		if !ok {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files[path.Base(p)] = httpapi.NewStaticFile(data, ctype)
		return nil
	})
	return files
}

// handleConsolePage serves GET /_sandbox/console: the console's page.
func (cp *ControlPlane) handleConsolePage() http.Handler {
	return cp.serveConsole("/_sandbox/console", func(*http.Request) string { return "index.html" })
}

// handleConsoleAsset serves GET /_sandbox/console/{asset}: the page's scripts
// and style sheet.
func (cp *ControlPlane) handleConsoleAsset() http.Handler {
	return cp.serveConsole("/_sandbox/console/{asset}", func(r *http.Request) string { return mux.Vars(r)["asset"] })
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
func (cp *ControlPlane) serveConsole(route string, name func(*http.Request) string) http.Handler {
	return cp.srv.ServeStatic(route, consoleCSP, func(r *http.Request) (httpapi.StaticFile, bool) {
		f, ok := consoleIndex()[name(r)]
		return f, ok
	})
}
