package conformance

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

var _ = ginkgo.Describe("Sandbox API document", framework.Res("sandbox-docs"), framework.Sandbox, func() {
	f := framework.New("sandbox-docs", framework.WithoutIdentity())

	/*
		Check: sandbox/openapi-document
		Sandbox: GET /_sandbox/openapi.yaml, GET /_sandbox/docs/reference
		Description: GET /_sandbox/openapi.yaml MUST answer 200 with a YAML OpenAPI 3.1 document
		(Content-Type application/yaml) that documents POST /api/auth/token and itself; GET
		/_sandbox/docs/reference MUST answer 200 with an HTML page that names the token route and
		loads no script.
	*/
	framework.SandboxIt("serves its API document and a reference page", func(ctx ginkgo.SpecContext) {
		doc := f.Do(ctx, http.MethodGet, "/_sandbox/openapi.yaml", "", nil, nil)
		gomega.Expect(doc).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(doc.Header.Get("Content-Type")).To(gomega.HavePrefix("application/yaml"))
		text := string(doc.Body)
		gomega.Expect(text).To(gomega.HavePrefix("openapi: 3.1"))
		gomega.Expect(text).To(gomega.ContainSubstring("\n  /api/auth/token:\n"))
		gomega.Expect(text).To(gomega.ContainSubstring("\n  /_sandbox/openapi.yaml:\n"))

		page := f.Do(ctx, http.MethodGet, "/_sandbox/docs/reference", "", nil, nil)
		gomega.Expect(page).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(page.Header.Get("Content-Type")).To(gomega.HavePrefix("text/html"))
		gomega.Expect(string(page.Body)).To(gomega.ContainSubstring("/api/auth/token"))
		gomega.Expect(strings.Contains(string(page.Body), "<script")).To(gomega.BeFalse(), "the reference page loads no script")
	})

	/*
		Check: sandbox/api-explorer
		Sandbox: GET /_sandbox/docs, GET /_sandbox/docs/{asset} (Gaps G-73, G-74)
		Description: GET /_sandbox/docs MUST answer 200 with an HTML page under a
		Content-Security-Policy whose sources are this origin only ('self', 'none', data: images),
		every script it loads MUST be served from /_sandbox/docs/ as JavaScript, and the API
		document's first server MUST be the relative URL "/", so "Try it out" calls the server the
		page came from.
	*/
	framework.SandboxIt("serves the API explorer from its own origin only", func(ctx ginkgo.SpecContext) {
		page := f.Do(ctx, http.MethodGet, "/_sandbox/docs", "", nil, nil)
		gomega.Expect(page).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(page.Header.Get("Content-Type")).To(gomega.HavePrefix("text/html"))
		csp := page.Header.Get("Content-Security-Policy")
		gomega.Expect(csp).To(gomega.ContainSubstring("script-src 'self'"))
		for _, d := range strings.Split(csp, ";") {
			fields := strings.Fields(d)
			for _, src := range fields[1:] {
				gomega.Expect(src == "'self'" || src == "'none'" || (src == "data:" && fields[0] == "img-src")).To(gomega.BeTrue(),
					"Content-Security-Policy %q allows %s in %s", csp, src, fields[0])
			}
		}
		scripts := regexp.MustCompile(`<script [^>]*src="([^"]+)"`).FindAllStringSubmatch(string(page.Body), -1)
		gomega.Expect(scripts).NotTo(gomega.BeEmpty(), "the explorer loads its scripts")
		for _, m := range scripts {
			gomega.Expect(m[1]).To(gomega.HavePrefix("/_sandbox/docs/"))
			js := f.Do(ctx, http.MethodGet, m[1], "", nil, nil)
			gomega.Expect(js).To(framework.HaveStatus(http.StatusOK))
			gomega.Expect(js.Header.Get("Content-Type")).To(gomega.HavePrefix("text/javascript"))
		}
		doc := f.Do(ctx, http.MethodGet, "/_sandbox/openapi.yaml", "", nil, nil)
		gomega.Expect(string(doc.Body)).To(gomega.ContainSubstring("\nservers:\n  - url: /\n"))
	})

	/*
		Check: sandbox/root-links
		Sandbox: GET /
		Description: GET / without a token MUST answer 200 JSON naming /healthz, the console
		(/_sandbox/console) and the docs (/_sandbox/docs), not 401.
	*/
	framework.SandboxIt("points GET / to the console, the docs and /healthz", func(ctx ginkgo.SpecContext) {
		r := f.Do(ctx, http.MethodGet, "/", "", nil, nil)
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		var links map[string]any
		gomega.Expect(json.Unmarshal(r.Body, &links)).To(gomega.Succeed(), "GET / body %s", r.Body)
		gomega.Expect(links).To(gomega.HaveKeyWithValue("health", "/healthz"))
		gomega.Expect(links).To(gomega.HaveKeyWithValue("console", "/_sandbox/console"))
		gomega.Expect(links).To(gomega.HaveKeyWithValue("docs", "/_sandbox/docs"))
	})
})
