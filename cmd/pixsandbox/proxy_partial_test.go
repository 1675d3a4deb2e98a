package main

import (
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
)

// TestProxyPartialTarget puts the validating proxy in front of the
// deliberately partial implementation (partialPIX, with its refund route) and
// runs the suite's spec checks through it: the implementation's known
// deviations come out as findings with their rule ids, and nothing else the
// proxy reports of its answers.
func TestProxyPartialTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite in a child process")
	}
	p := newPartialPIX()
	p.refunds = true
	srv := httptest.NewServer(p)
	defer srv.Close()
	via, findings, stop, err := proxy.Start(srv.URL, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	code, out, _ := runConformChild(t, "--target", via, "--control-plane", "off", "--labels", "spec&&!sandbox&&!sandbox-choice",
		"--token", p.token, "--refund-e2e", partialE2E)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the error shape deviates)\n%s", code, out)
	}
	// Its deviations: every error is an RFC 7807 problem document, not the
	// contract's shape (resp.error-shape, on the routes it serves and on the
	// others), and the routes it lacks answer 404, a status none of them has
	// (resp.status-allowed). Nothing else is wrong with its answers.
	served := []string{"GET /accounts/balances", "PUT /cob/{txid}", "GET /cob/{txid}", "PUT /pix/{e2eid}/devolucao/{id}", "GET /pix/{e2eid}/devolucao/{id}"}
	shapes, absent := map[string]bool{}, map[string]bool{}
	for _, f := range findings() {
		if f.Notice || f.Kind == contract.KindRequest {
			continue
		}
		switch f.Rule {
		case "resp.error-shape":
			shapes[f.Route] = true
		case "resp.status-allowed":
			absent[f.Route] = true
			if slices.Contains(served, f.Route) {
				t.Errorf("resp.status-allowed on %s, a route it serves by the rules: %s %s: expected %s, seen %s", f.Route, f.Method, f.Path, f.Expected, f.Seen)
			}
		default:
			t.Errorf("%s finding %s on %s %s, not a deviation of the target: expected %s, seen %s", f.Kind, f.Rule, f.Method, f.Path, f.Expected, f.Seen)
		}
	}
	for _, r := range []string{"GET /accounts/balances", "PUT /cob/{txid}", "PUT /pix/{e2eid}/devolucao/{id}"} {
		if !shapes[r] {
			t.Errorf("no resp.error-shape finding on %s, whose errors are RFC 7807 problem documents", r)
		}
	}
	for _, r := range []string{"POST /api/auth/token", "POST /api/pix/cash-out", "POST /api/pix/cash-in", "POST /dict/pix", "GET /api/transactions"} {
		if !absent[r] {
			t.Errorf("no resp.status-allowed finding on %s, which the target answers 404", r)
		}
	}
}
