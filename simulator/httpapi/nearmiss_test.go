package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// nearMissEntry is an entry of GET /_sandbox/requests with its near misses.
type nearMissEntry struct {
	Path     string `json:"path"`
	Route    string `json:"route"`
	Status   int    `json:"status"`
	NearMiss []struct {
		Method      string   `json:"method"`
		Route       string   `json:"route"`
		Differences []string `json:"differences"`
	} `json:"nearMiss"`
}

func listNearMisses(tb testing.TB, env *simulatortest.Env, query string) []nearMissEntry {
	tb.Helper()
	var l struct {
		Data []nearMissEntry `json:"data"`
	}
	r := apitest.DoRaw(tb, http.MethodGet, env.URL+"/_sandbox/requests?"+query, nil, nil)
	if r.Status != http.StatusOK {
		tb.Fatalf("GET /_sandbox/requests?%s = %d %s", query, r.Status, r.Raw)
	}
	if err := json.Unmarshal(r.Raw, &l); err != nil {
		tb.Fatal(err)
	}
	return l.Data
}

// TestNearMiss_Answers: a request no route matches answers 404 naming the
// nearest route and what differs, in the minimal shape; a known path with
// another method answers 405 naming the allowed methods (and Allow). A real
// HTTP client against an in-process server.
func TestNearMiss_Answers(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 100})
	auth := map[string]string{"Authorization": "Bearer " + apitest.TokenFor(t, env, 0), "Content-Type": "application/json"}
	cases := []struct {
		name, method, path string
		status             int
		message, allow     string
	}{
		{"missing hyphen (the acceptance case)", "POST", "/api/pix/cashout", 404,
			"no route POST /api/pix/cashout; did you mean POST /api/pix/cash-out? the path differs in 'cashout' → 'cash-out'", ""},
		{"trailing slash", "POST", "/api/pix/cash-out/", 404,
			"no route POST /api/pix/cash-out/; did you mean POST /api/pix/cash-out? the path has a trailing slash", ""},
		{"missing /api", "POST", "/pix/cash-out", 404,
			"no route POST /pix/cash-out; did you mean POST /api/pix/cash-out? the path lacks the /api prefix", ""},
		{"extra /api", "GET", "/api/accounts/balances", 404,
			"no route GET /api/accounts/balances; did you mean GET /accounts/balances? the path has an extra /api prefix", ""},
		{"extra /public (the extended shape's path)", "POST", "/public/api/pix/cash-out", 404,
			"no route POST /public/api/pix/cash-out; did you mean POST /api/pix/cash-out? the path has an extra /public prefix", ""},
		{"case", "GET", "/API/Balance", 404,
			"no route GET /API/Balance; did you mean GET /api/balance? the path differs in case: 'API' → 'api', 'Balance' → 'balance'", ""},
		{"typo and another method", "GET", "/api/pix/cashout", 404,
			"no route GET /api/pix/cashout; did you mean POST /api/pix/cash-out? the method differs: GET → POST and the path differs in 'cashout' → 'cash-out'", ""},
		{"a variable segment missing", "GET", "/cob", 404,
			"no route GET /cob; did you mean GET /cob/{txid}? the path lacks the {txid} segment", ""},
		{"accents", "PUT", "/pix/E1/devolução/r1", 404,
			"no route PUT /pix/E1/devolução/r1; did you mean PUT /pix/{e2eid}/devolucao/{id}? the path differs in 'devolução' → 'devolucao'", ""},
		{"control plane", "GET", "/_sandbox/clok", 404,
			"no route GET /_sandbox/clok; did you mean GET /_sandbox/clock? the path differs in 'clok' → 'clock'", ""},
		{"nothing near", "GET", "/nope", 404, "no route GET /nope", ""},
		{"a page without that file", "GET", "/_sandbox/console/nope.js", 404, "no route GET /_sandbox/console/nope.js", ""},
		{"wrong method", "GET", "/api/pix/cash-out", 405,
			"method GET is not allowed on /api/pix/cash-out; allowed methods: POST", "POST"},
		{"wrong method, two allowed", "DELETE", "/_sandbox/clock", 405,
			"method DELETE is not allowed on /_sandbox/clock; allowed methods: GET, POST", "GET, POST"},
		{"wrong method on a template", "DELETE", "/cob/abcdefghijklmnopqrstuvwxyz123", 405,
			"method DELETE is not allowed on /cob/abcdefghijklmnopqrstuvwxyz123; allowed methods: GET, PATCH, PUT", "GET, PATCH, PUT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := apitest.Do(t, c.method, env.URL+c.path, strings.NewReader(`{}`), auth)
			if r.Status != c.status || r.Body["message"] != c.message || len(r.Body) != 3 || r.Body["error"] != http.StatusText(c.status) {
				t.Fatalf("%s %s = %d %s\nwant %d in the minimal shape, message %q", c.method, c.path, r.Status, r.Raw, c.status, c.message)
			}
			if got := r.Header.Get("Allow"); got != c.allow {
				t.Errorf("Allow = %q, want %q", got, c.allow)
			}
		})
	}
}

// TestNearMiss_Anonymous: without a token an unknown path still answers the
// 401 of any protected route, byte for byte the same near miss or not; the
// journal (the operator's view) records the near miss all the same.
func TestNearMiss_Anonymous(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 100})
	far := apitest.DoRaw(t, http.MethodPost, env.URL+"/nope", nil, nil)
	near := apitest.DoRaw(t, http.MethodPost, env.URL+"/api/pix/cashout", nil, nil)
	wrongMethod := apitest.DoRaw(t, http.MethodGet, env.URL+"/api/pix/cash-out", nil, nil)
	for _, r := range []apitest.Result{near, wrongMethod} {
		if r.Status != http.StatusUnauthorized || string(r.Raw) != string(far.Raw) || r.Header.Get("Allow") != "" ||
			r.Header.Get("WWW-Authenticate") != far.Header.Get("WWW-Authenticate") {
			t.Errorf("anonymous: %d %s (Allow %q), want the 401 of an unknown path: %d %s", r.Status, r.Raw, r.Header.Get("Allow"), far.Status, far.Raw)
		}
		if strings.Contains(string(r.Raw), "cash-out") || strings.Contains(string(r.Raw), "did you mean") {
			t.Errorf("the 401 names a route: %s", r.Raw)
		}
	}
	e := listNearMisses(t, env, "path=/api/pix/cashout")
	if len(e) != 1 || e[0].Status != 401 || len(e[0].NearMiss) != 1 || e[0].NearMiss[0].Route != "/api/pix/cash-out" {
		t.Fatalf("the journal of the anonymous near miss: %+v", e)
	}
}

// TestNearMiss_AdminToken: under /_sandbox with an admin token configured,
// an unknown path and a known path with another method answer 401 without
// it, as every control route does (the answer tells nothing of which paths
// exist), and with it 404 naming the near miss or 405 naming the allowed
// methods.
func TestNearMiss_AdminToken(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{AdminToken: "s3cret"})
	admin := map[string]string{"X-Sandbox-Admin-Token": "s3cret"}
	if r := apitest.Do(t, http.MethodGet, env.URL+"/_sandbox/clok", nil, nil); r.Status != 401 || strings.Contains(string(r.Raw), "did you mean") {
		t.Errorf("unknown control-plane path without the admin token: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, http.MethodGet, env.URL+"/_sandbox/clok", nil, admin); r.Status != 404 || !strings.Contains(r.Body["message"].(string), "did you mean GET /_sandbox/clock?") {
		t.Errorf("unknown control-plane path with the admin token: %d %s", r.Status, r.Raw)
	}
	r := apitest.Do(t, http.MethodDelete, env.URL+"/_sandbox/clock", nil, nil)
	if r.Status != 401 || strings.Contains(string(r.Raw), "allowed") || r.Header.Get("Allow") != "" {
		t.Errorf("another method without the admin token: %d %s (Allow %q), want 401 naming nothing", r.Status, r.Raw, r.Header.Get("Allow"))
	}
	r = apitest.Do(t, http.MethodDelete, env.URL+"/_sandbox/clock", nil, admin)
	if r.Status != 405 || !strings.HasSuffix(r.Body["message"].(string), "; allowed methods: GET, POST") || r.Header.Get("Allow") != "GET, POST" {
		t.Errorf("405 with the admin token: %d %s (Allow %q)", r.Status, r.Raw, r.Header.Get("Allow"))
	}
}

// TestNearMiss_Journal: an unmatched request's entry records its near
// misses; matched=false lists the unmatched requests only, matched=true the
// others only; the acceptance case is among the first.
func TestNearMiss_Journal(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 100})
	auth := map[string]string{"Authorization": "Bearer " + apitest.TokenFor(t, env, 0)}
	apitest.DoRaw(t, http.MethodGet, env.URL+"/accounts/balances", nil, auth)
	apitest.DoRaw(t, http.MethodPost, env.URL+"/api/pix/cashout", strings.NewReader(`{}`), auth)
	apitest.DoRaw(t, http.MethodGet, env.URL+"/api/pix/cash-out", nil, auth)
	apitest.DoRaw(t, http.MethodGet, env.URL+"/nope", nil, auth)

	paths := func(es []nearMissEntry) string {
		var p []string
		for _, e := range es {
			p = append(p, e.Path)
		}
		return strings.Join(p, " ")
	}
	unmatched := listNearMisses(t, env, "matched=false")
	if got := paths(unmatched); got != "/nope /api/pix/cash-out /api/pix/cashout" {
		t.Fatalf("matched=false: %s", got)
	}
	if got := paths(listNearMisses(t, env, "matched=true")); got != "/accounts/balances /api/auth/token" {
		t.Fatalf("matched=true: %s", got)
	}
	if got := paths(listNearMisses(t, env, "")); got != "/nope /api/pix/cash-out /api/pix/cashout /accounts/balances /api/auth/token" {
		t.Fatalf("no filter: %s", got)
	}
	nope, method, cashout := unmatched[0], unmatched[1], unmatched[2]
	if cashout.Route != "(unmatched)" || cashout.Status != 404 || len(cashout.NearMiss) != 1 {
		t.Fatalf("the acceptance case's entry: %+v", cashout)
	}
	if m := cashout.NearMiss[0]; m.Method != "POST" || m.Route != "/api/pix/cash-out" || strings.Join(m.Differences, "|") != "the path differs in 'cashout' → 'cash-out'" {
		t.Errorf("its near miss: %+v", m)
	}
	if len(method.NearMiss) != 1 || method.NearMiss[0].Method != "POST" || method.Status != 405 ||
		strings.Join(method.NearMiss[0].Differences, "|") != "the method differs: GET → POST" {
		t.Errorf("the 405's entry: %+v", method)
	}
	if nope.NearMiss != nil {
		t.Errorf("an entry with nothing near: %+v", nope)
	}
	if got := paths(listNearMisses(t, env, "matched=false&status=404&path=/api")); got != "/api/pix/cashout" {
		t.Errorf("matched=false with other filters: %s", got)
	}
}
