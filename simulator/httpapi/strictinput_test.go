package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// bodyRoute is a route that reads a JSON body, with a body whose first member
// is the string field first (`{"<first>":"…"`).
type bodyRoute struct {
	method, path, first, body string
	shape                     apitest.Shape
	token                     bool // the token route's shape
	header                    map[string]string
}

// bodyRoutes lists every route that reads a body, public and control plane.
func bodyRoutes(fs *apitest.FuzzServer) []bodyRoute {
	a := fs.Env.Fixtures.Accounts[0]
	pemBytes, _ := fs.Env.Fixtures.ReadFile(a.Certificate)
	cash := `{"externalId":"e1","value":10,"details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`
	return []bodyRoute{
		{method: "POST", path: "/api/auth/token", first: "clientId", body: `{"clientId":"` + a.ClientID + `","clientSecret":"` + a.ClientSecret + `"}`,
			token: true, header: map[string]string{"X-SSL-Client-Cert": pix.EncodeCertHeader(pemBytes)}},
		{method: "POST", path: "/api/pix/cash-out", first: "externalId", body: cash, shape: apitest.Extended},
		{method: "POST", path: "/api/pix/cash-in", first: "note", body: `{"note":"x","transaction":{"value":10,"description":"d","externalId":"e"},"payer":{"fullName":"P","document":"52998224725"}}`, shape: apitest.Extended},
		{method: "POST", path: "/dict/pix", first: "pixKey", body: `{"pixKey":"pix@bcb.gov.br","payment":{"currency":"BRL","amount":1}}`,
			header: map[string]string{"x-idempotency-key": "2b28bc5f-714d-4515-9a30-06854d5df38c"}},
		{method: "PUT", path: "/cob/abcdefghijklmnopqrstuvwxyz0", first: "chave", body: `{"chave":"x","calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`},
		{method: "PATCH", path: "/cob/abcdefghijklmnopqrstuvwxyz0", first: "status", body: `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`},
		{method: "PUT", path: "/pix/E12345678202603021200abcdefghijk/devolucao/r1", first: "valor", body: `{"valor":"1.00"}`},
		{method: "POST", path: "/api/pix/refund-in/1", first: "externalId", body: `{"externalId":"r1","refundValue":1}`},
		{method: "POST", path: "/api/resend-webhook/1", first: "url", body: `{"url":"http://127.0.0.1:1/hook"}`},
		{method: "POST", path: "/api/webhooks", first: "url", body: `{"url":"https://example.com/hook","eventType":"cash_in"}`},
		{method: "POST", path: "/_sandbox/clock", first: "now", body: `{"now":"2026-03-03T00:00:00Z"}`},
		{method: "POST", path: "/_sandbox/clock/advance", first: "duration", body: `{"duration":"1s"}`},
		{method: "POST", path: "/_sandbox/accounts", first: "name", body: `{"name":"N"}`},
		{method: "POST", path: "/_sandbox/accounts/1/certificates", first: "notBefore", body: `{"notBefore":"2026-01-01T00:00:00Z"}`},
		{method: "PUT", path: "/_sandbox/accounts/1/settings", first: "splitSchedule", body: `{"splitSchedule":"0 * * * *"}`},
		{method: "POST", path: "/_sandbox/jobs", first: "kind", body: `{"kind":"x"}`},
		{method: "PUT", path: "/_sandbox/webhook-registration", first: "mode", body: `{"mode":"enabled"}`},
		{method: "POST", path: "/_sandbox/med", first: "endToEndId", body: `{"endToEndId":"E12345678202603021200abcdefghijk"}`},
		{method: "POST", path: "/_sandbox/med/1/analyze", first: "result", body: `{"result":"APPROVED"}`},
		{method: "POST", path: "/_sandbox/payments", first: "pixCode", body: `{"pixCode":"x"}`},
		{method: "POST", path: "/_sandbox/pix-in", first: "pixKey", body: `{"pixKey":"x","amount":1}`},
		{method: "POST", path: "/_sandbox/qrcode", first: "pixCode", body: `{"pixCode":"x"}`},
		{method: "POST", path: "/_sandbox/transactions/1/fail", first: "errorCode", body: `{"errorCode":"ORDER_REJECTED"}`},
		{method: "POST", path: "/_sandbox/dict/keys", first: "key", body: `{"key":"a@b.com"}`},
		{method: "POST", path: "/_sandbox/webhook-targets", first: "url", body: `{"url":"http://127.0.0.1:1/h","eventType":"cash_in","accountId":1}`},
		{method: "POST", path: "/_sandbox/check-receiver", first: "url", body: `{"url":"http://127.0.0.1:1/h"}`},
	}
}

// withInvalidUTF8 puts bad (bytes that are not UTF-8) at the start of the
// first field's value.
func (r bodyRoute) withInvalidUTF8(bad string) string {
	return strings.Replace(r.body, `{"`+r.first+`":"`, `{"`+r.first+`":"`+bad, 1)
}

// withDuplicate gives the first field twice, value first.
func (r bodyRoute) withDuplicate(value string) string {
	return strings.Replace(r.body, `{`, `{"`+r.first+`":"`+value+`",`, 1)
}

// send sends body on r and checks a 400 in the route family's shape whose
// messages name r.first.
func (r bodyRoute) refused(t *testing.T, fs *apitest.FuzzServer, body string) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range r.header {
		h[k] = v
	}
	rq := apitest.Request{Method: r.method, Path: r.path, Body: body, Header: h, Auth: !r.token && !strings.HasPrefix(r.path, "/_sandbox")}
	a := fs.Serve(t, rq)
	if a.Status != http.StatusBadRequest {
		t.Fatalf("%s %s %q: status %d, want 400: %s", r.method, r.path, body, a.Status, a.Raw)
	}
	if r.token {
		d, _ := a.Body["details"].(map[string]any)
		vs, _ := d["violations"].([]any)
		for _, v := range vs {
			if m, _ := v.(map[string]any); m["field"] == r.first {
				return
			}
		}
		t.Fatalf("%s: details.violations do not name %s: %s", r.path, r.first, a.Raw)
	}
	a.Check(t, rq, r.shape, r.first)
	if !strings.Contains(string(a.Raw), `"`+r.first+" ") && !strings.Contains(string(a.Raw), `; `+r.first+" ") {
		t.Fatalf("%s: no message names %s: %s", r.path, r.first, a.Raw)
	}
}

// TestBodyRoutes_StrictInput: every route that reads a body refuses a body
// that is not valid UTF-8, and one with a key given twice, with 400 in its
// family's error shape naming the field.
func TestBodyRoutes_StrictInput(t *testing.T) {
	fs := apitest.NewFuzzServer(t)
	fs.Serve(t, apitest.Request{Method: "PUT", Path: "/_sandbox/webhook-registration", Body: `{"mode":"enabled"}`})
	for _, r := range bodyRoutes(fs) {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			r.refused(t, fs, r.withInvalidUTF8("\xff"))
			r.refused(t, fs, r.withInvalidUTF8(`\udc00`))
			r.refused(t, fs, r.withDuplicate("other"))
		})
	}
}

// FuzzBodyRoutes_StrictInput: whatever the value and wherever the bad bytes,
// every body route refuses invalid UTF-8 and a duplicated key with 400 naming
// the field.
func FuzzBodyRoutes_StrictInput(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	fs.Serve(f, apitest.Request{Method: "PUT", Path: "/_sandbox/webhook-registration", Body: `{"mode":"enabled"}`})
	routes := bodyRoutes(fs)
	f.Add(uint8(0), "abc", uint8(0xff), false)
	f.Add(uint8(1), "", uint8(0xc3), false)
	f.Add(uint8(3), "x", uint8(0), true)
	f.Add(uint8(5), "é", uint8(0x80), false)
	f.Fuzz(func(t *testing.T, route uint8, value string, bad uint8, duplicate bool) {
		r := routes[int(route)%len(routes)]
		value = strings.NewReplacer(`"`, "", `\`, "").Replace(strings.ToValidUTF8(value, ""))
		value = strings.Map(func(c rune) rune {
			if c < 0x20 {
				return -1
			}
			return c
		}, value)
		if duplicate {
			r.refused(t, fs, r.withDuplicate(value))
			return
		}
		b := byte(bad) | 0x80 // 0x80..0xff: invalid where it stands alone, or as a cut sequence
		body := r.withInvalidUTF8(value + string([]byte{b}))
		if !strings.Contains(body, string([]byte{b})+`"`) {
			t.Skip("no string value to corrupt")
		}
		r.refused(t, fs, body)
	})
}

// TestCashOut_EveryInvalidFieldListed: three fields of the wrong JSON type and
// two invalid values answer one 400 whose message has five entries (spec
// "Errors > Shapes": message … one per invalid field).
func TestCashOut_EveryInvalidFieldListed(t *testing.T) {
	fs := apitest.NewFuzzServer(t)
	body := fmt.Sprintf(`{"value":"1","externalId":5,"description":%q,"details":{"key":true,"keyType":"CPF","name":"F","document":"52998224725"}}`, strings.Repeat("d", 141))
	rq := apitest.Request{Method: "POST", Path: "/api/pix/cash-out", Body: body, Auth: true, Header: map[string]string{"Content-Type": "application/json"}}
	a := fs.Serve(t, rq)
	a.Check(t, rq, apitest.Extended, "value", "externalId", "description", "details")
	msgs, _ := a.Body["message"].([]any)
	if a.Status != http.StatusBadRequest || a.Body["code"] != "HTTP_ERROR" || len(msgs) != 5 {
		t.Fatalf("status %d: want 400 HTTP_ERROR with 5 messages: %s", a.Status, a.Raw)
	}
	for i, want := range []string{"details.key must be a string", "externalId must be a string", "value must be a number",
		"description must be at most 140", "details.keyType must be one of"} {
		if m, _ := msgs[i].(string); !strings.HasPrefix(m, want) {
			t.Errorf("message[%d] = %q, want it to start with %q", i, m, want)
		}
	}

	// The same on cash-in: wrong types and bad values together.
	body = `{"transaction":{"value":"10","description":"","externalId":7,"expirationTime":10},"payer":{"fullName":"P","document":5}}`
	rq = apitest.Request{Method: "POST", Path: "/api/pix/cash-in", Body: body, Auth: true, Header: map[string]string{"Content-Type": "application/json"}}
	a = fs.Serve(t, rq)
	msgs, _ = a.Body["message"].([]any)
	if a.Status != http.StatusBadRequest || len(msgs) != 5 {
		t.Fatalf("cash-in: status %d, want 400 with 5 messages: %s", a.Status, a.Raw)
	}
}

// fuzzRoute sends arbitrary bodies (and one fuzzed header) to a protected
// POST route with a valid token and checks the answer with apitest.Answer.check:
// never 5xx, always JSON in the route family's error shape.
func fuzzRoute(f *testing.F, path string, extended bool, seeds []string, header func(string) map[string]string) {
	fs := apitest.NewFuzzServer(f)
	for _, s := range seeds {
		f.Add(s, "")
	}
	sh := apitest.Minimal
	if extended {
		sh = apitest.Extended
	}
	f.Fuzz(func(t *testing.T, body, hdr string) {
		h := header(hdr)
		h["Content-Type"] = "application/json"
		rq := apitest.Request{Method: http.MethodPost, Path: path, Body: body, Header: h, Auth: true}
		fs.Serve(t, rq).Check(t, rq, sh)
	})
}

// scenarioHeader sends the fuzzed header as X-Sandbox-Scenario.
func scenarioHeader(h string) map[string]string { return map[string]string{"X-Sandbox-Scenario": h} }
