package framework

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

func answer(method, path string, status int, body string) *apiclient.Response {
	return &apiclient.Response{Method: method, Path: path, Status: status, Body: []byte(body)}
}

func TestJudgeRoute(t *testing.T) {
	unknown := unknownRoutePrefix + "/cob/abc123"
	tests := []struct {
		name          string
		route, sib    *apiclient.Response
		wantPresent   bool
		wantEvidences string
	}{
		{"net/http generic 404 on both", answer("PUT", "/cob/abc123", 404, "404 page not found\n"),
			answer("PUT", unknown, 404, "404 page not found\n"), false, "like the unknown route"},
		{"NestJS names the path", answer("PUT", "/cob/abc123", 404, `{"statusCode":404,"message":"Cannot PUT /cob/abc123","error":"Not Found"}`),
			answer("PUT", unknown, 404, `{"statusCode":404,"message":"Cannot PUT `+unknown+`","error":"Not Found"}`), false, "like the unknown route"},
		{"RFC 7807 with a request id and a time", answer("GET", "/api/med", 404, `{"type":"about:blank","title":"Not Found","status":404,"detail":"no route GET /api/med","instance":"0b8f3c1e-4a7b-4c5d-8e9f-0123456789ab","timestamp":"2026-03-02T12:00:00.123Z"}`),
			answer("GET", unknownRoutePrefix+"/api/med", 404, `{"type":"about:blank","title":"Not Found","status":404,"detail":"no route GET `+unknownRoutePrefix+`/api/med","instance":"9a8f3c1e-4a7b-4c5d-8e9f-0123456789cd","timestamp":"2026-03-02T12:00:01Z"}`), false, "like the unknown route"},
		{"unknown id on a present route", answer("GET", "/cob/abc123", 404, `{"statusCode":404,"message":"cob not found","error":"Not Found"}`),
			answer("GET", unknown, 404, `{"statusCode":404,"message":"no route GET `+unknown+`","error":"Not Found"}`), true, "answered 404; the unknown route"},
		{"validation error", answer("PUT", "/cob/abc123", 400, `{"statusCode":400,"message":"valor is required","error":"Bad Request"}`),
			answer("PUT", unknown, 404, "404 page not found"), true, "answered 400"},
		{"method not allowed", answer("PATCH", "/cob/abc123", 405, ""), answer("PATCH", unknown, 404, ""), false, "answered 405"},
		{"not implemented", answer("POST", "/api/med", 501, "{}"), answer("POST", unknownRoutePrefix+"/api/med", 404, ""), false, "answered 501"},
		{"same status, different body", answer("GET", "/api/webhooks", 200, `{"webhooks":[]}`), answer("GET", unknownRoutePrefix+"/api/webhooks", 200, `<html>index</html>`), true, "answered 200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := judgeRoute("X", tt.route, tt.sib)
			if got.Present != tt.wantPresent || !strings.Contains(got.Evidence, tt.wantEvidences) {
				t.Fatalf("judgeRoute = %+v, want present %v with evidence containing %q", got, tt.wantPresent, tt.wantEvidences)
			}
		})
	}
}

func TestNormalizeAnswer_KeepsWhatTellsHandlersApart(t *testing.T) {
	a := normalizeAnswer(answer(http.MethodGet, "/cob/x", 404, `{"message":"cob not found"}`))
	b := normalizeAnswer(answer(http.MethodGet, "/cob/x", 404, `{"message":"transaction not found"}`))
	if a == b {
		t.Fatalf("two different messages normalise alike: %q", a)
	}
}

func TestProbeFor(t *testing.T) {
	saved := routeProbes
	t.Cleanup(func() { routeProbes = saved })
	routeProbes = nil
	RegisterRoutes(RouteProbe{Route: "PUT /cob/{txid}", Checks: mustRE(`^PUT /cob/\{txid\} `)})
	if p, ok := probeFor("PUT /cob/{txid} creates an ATIVA charge"); !ok || p.Route != "PUT /cob/{txid}" {
		t.Fatalf("probeFor = %+v, %v", p, ok)
	}
	if _, ok := probeFor("Sandbox clock advances"); ok {
		t.Fatal("a check of no route has a probe")
	}
}

// judgeRoute takes any answer without panicking and always says why, and an
// answer judged against itself (the same request, status and body: the
// target's generic not-found) is always absent.
func FuzzJudgeRoute(f *testing.F) {
	f.Add("GET", "/cob/abc", 404, `{"message":"Cannot GET /cob/abc"}`)
	f.Add("PUT", "/pix/E1/devolucao/x", 400, `{"type":"about:blank","status":400}`)
	f.Add("", "", 0, "")
	f.Fuzz(func(t *testing.T, method, path string, status int, body string) {
		r := answer(method, path, status, body)
		got := judgeRoute("route", r, answer(method, unknownRoutePrefix+path, status, body))
		if got.Evidence == "" {
			t.Fatal("no evidence")
		}
		if again := judgeRoute("route", r, r); again.Present {
			t.Fatalf("an answer judged against itself is present: %+v", again)
		}
	})
}
