package contract_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		method, path, route string
		params              map[string]string
	}{
		{"GET", "/accounts/balances", "GET /accounts/balances", nil},
		{"GET", "/accounts/balances/", "GET /accounts/balances", nil},
		{"PUT", "/cob/abc", "PUT /cob/{txid}", map[string]string{"txid": "abc"}},
		{"PATCH", "/cob/abc", "PATCH /cob/{txid}", map[string]string{"txid": "abc"}},
		{"PUT", "/pix/E1/devolucao/r1", "PUT /pix/{e2eid}/devolucao/{id}", map[string]string{"e2eid": "E1", "id": "r1"}},
		{"GET", "/api/pix/transactions/pix-key/+5511987654321", "GET /api/pix/transactions/pix-key/{pixKey}", map[string]string{"pixKey": "+5511987654321"}},
		{"POST", "/api/resend-webhook/E123", "POST /api/resend-webhook/{transactionIdentifier}", map[string]string{"transactionIdentifier": "E123"}},
		{"DELETE", "/cob/abc", "", nil},
		{"GET", "/cob/", "", nil},
		{"GET", "/cob/a/b", "", nil},
		{"GET", "/_sandbox/clock", "", nil},
	}
	for _, tt := range tests {
		rt, params := contract.Match(tt.method, tt.path)
		got := ""
		if rt != nil {
			got = rt.String()
		}
		if got != tt.route {
			t.Errorf("Match(%s %s) = %q, want %q", tt.method, tt.path, got, tt.route)
			continue
		}
		for k, v := range tt.params {
			if params[k] != v {
				t.Errorf("Match(%s %s): %s = %q, want %q", tt.method, tt.path, k, params[k], v)
			}
		}
	}
}

// TestRoutes_InOpenAPI: every route of the table is documented in
// docs/openapi.yaml, and every PIX API route documented there (not the
// control plane, the health check, the metrics or the landing page) is in the
// table. The statuses the document gives a route beyond the contract's are
// the simulator's choices (docs/spec-gaps.md); they are listed in the log.
func TestRoutes_InOpenAPI(t *testing.T) {
	ops := apitest.OpenAPIOperations(t, filepath.Join("..", "..", "docs", "openapi.yaml"))
	table := map[string]*contract.Route{}
	for _, r := range contract.Routes() {
		table[r.String()] = r
		op, ok := ops[r.String()]
		if !ok {
			t.Errorf("%s is not in docs/openapi.yaml", r)
			continue
		}
		var beyond []string
		for s := range op.Statuses {
			if s != "default" && !allowedStatus(r, s) {
				beyond = append(beyond, s)
			}
		}
		slices.Sort(beyond)
		if len(beyond) > 0 {
			t.Logf("%s: docs/openapi.yaml also documents %s", r, strings.Join(beyond, ", "))
		}
	}
	for key := range ops {
		_, path, _ := strings.Cut(key, " ")
		if strings.HasPrefix(path, "/_sandbox") || path == "/" || path == "/healthz" || path == "/metrics" {
			continue
		}
		if table[key] == nil {
			t.Errorf("docs/openapi.yaml documents %s, which the route table lacks", key)
		}
	}
}

func allowedStatus(r *contract.Route, s string) bool {
	if r.StatusNotShown || r.Reference {
		return true
	}
	if strings.HasPrefix(s, "2") && r.Success == nil {
		return true
	}
	for _, st := range append(append(slices.Clone(r.Success), r.Errors...), 401) {
		if s == itoa(int64(st)) {
			return true
		}
	}
	return false
}

// TestRules_Catalogue: ids are unique and of their kind's prefix; every rule
// has a section and a summary.
func TestRules_Catalogue(t *testing.T) {
	seen := map[string]bool{}
	prefix := map[contract.Kind]string{contract.KindResponse: "resp.", contract.KindState: "state.", contract.KindRequest: "req.", contract.KindUpstream: "upstream."}
	for _, r := range contract.Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		seen[r.ID] = true
		if !strings.HasPrefix(r.ID, prefix[r.Kind]) {
			t.Errorf("rule %s of kind %s does not start with %q", r.ID, r.Kind, prefix[r.Kind])
		}
		if r.Section == "" || r.Summary == "" {
			t.Errorf("rule %s lacks its section or summary", r.ID)
		}
	}
	if got := contract.KindRequest.Rank(); got >= contract.KindState.Rank() || contract.KindState.Rank() >= contract.KindResponse.Rank() {
		t.Errorf("ranks: request %d, state %d, response %d", got, contract.KindState.Rank(), contract.KindResponse.Rank())
	}
}
