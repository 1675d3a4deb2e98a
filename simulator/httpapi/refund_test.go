package httpapi_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

func TestRefundRoutes_PathValidation(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	h := map[string]string{"Authorization": "Bearer " + apitest.TokenFor(t, env, 0), "Content-Type": "application/json"}
	e2e := "E13140088202603021200abcdefghijk"
	for path, field := range map[string]string{
		"/pix/" + e2e[:31] + "/devolucao/r1":                    "e2eid",
		"/pix/" + e2e + "x/devolucao/r1":                        "e2eid",
		"/pix/" + e2e[:31] + "-/devolucao/r1":                   "e2eid",
		"/pix/" + e2e + "/devolucao/" + strings.Repeat("a", 36): "id",
		"/pix/" + e2e + "/devolucao/a-b":                        "id",
	} {
		r := apitest.Do(t, "PUT", env.URL+path, strings.NewReader(`{"valor":"1.00"}`), h)
		if r.Status != 400 || !strings.HasPrefix(r.Body["message"].(string), field) {
			t.Errorf("PUT %s = %d %s", path, r.Status, r.Raw)
		}
	}
	if r := apitest.Do(t, "PUT", env.URL+"/pix/"+e2e+"/devolucao/r1", strings.NewReader(`{"valor":"1.00"}`), h); r.Status != 404 {
		t.Fatalf("unknown e2eid: %d %s", r.Status, r.Raw)
	}
	for body, field := range map[string]string{
		`{"valor":"1.0"}`: "valor", `{"valor":1}`: "valor", `{}`: "valor", `{"valor":"1.00","natureza":"MED_FRAUDE"}`: "natureza",
		`{"valor":"1.00","descricao":"` + strings.Repeat("x", 141) + `"}`: "descricao",
	} {
		r := apitest.Do(t, "PUT", env.URL+"/pix/"+e2e+"/devolucao/r1", strings.NewReader(body), h)
		if r.Status != 400 || !strings.HasPrefix(r.Body["message"].(string), field) {
			t.Errorf("body %s = %d %s", body, r.Status, r.Raw)
		}
	}
	if r := apitest.Do(t, "POST", env.URL+"/api/pix/refund-in/999999", strings.NewReader(`{"refundValue":1}`), h); r.Status != 404 {
		t.Fatalf("refund-in of an unknown parent: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, "POST", env.URL+"/api/pix/refund-in/1", strings.NewReader(`{"refundValue":0.001}`), h); r.Status != 400 {
		t.Fatalf("refund-in of 0.001: %d %s", r.Status, r.Raw)
	}
}
