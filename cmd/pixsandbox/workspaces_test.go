package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// testWorkspace is a workspace created through the control plane.
type testWorkspace struct {
	ID, AdminToken string
	Accounts       []map[string]any
}

func createWorkspace(tb testing.TB, m *Main, body string, h map[string]string) testWorkspace {
	tb.Helper()
	st, out := call(tb, "POST", m.URL()+"/_sandbox/workspaces", body, h)
	if st != http.StatusCreated {
		tb.Fatalf("create workspace %s: %d %v", body, st, out)
	}
	w := testWorkspace{ID: out["id"].(string), AdminToken: out["adminToken"].(string)}
	for _, a := range out["accounts"].([]any) {
		w.Accounts = append(w.Accounts, a.(map[string]any))
	}
	return w
}

// token issues a token for a workspace account with its own credentials.
func (w testWorkspace) token(tb testing.TB, m *Main, i int) string {
	tb.Helper()
	a := w.Accounts[i]
	st, body := call(tb, "POST", m.URL()+"/api/auth/token",
		fmt.Sprintf(`{"clientId":%q,"clientSecret":%q}`, a["clientId"], a["clientSecret"]),
		map[string]string{"Content-Type": "application/json", "X-SSL-Client-Cert": pix.EncodeCertHeader([]byte(a["certificate"].(string)))})
	if st != http.StatusCreated {
		tb.Fatalf("workspace %s token: %d %v", w.ID, st, body)
	}
	return body["access_token"].(string)
}

func (w testWorkspace) url(m *Main, path string) string {
	return m.URL() + "/_sandbox/workspaces/" + w.ID + strings.TrimPrefix(path, "/_sandbox")
}

func bearerH(tok string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
}

// The first acceptance of workspaces: advancing A by 90 days moves nothing
// of B (its clock, tokens, pending charges, refund window), and closes A's
// refund window.
func TestWorkspaces_ClocksApart(t *testing.T) {
	m := MustRunMain(t, nil)
	a := createWorkspace(t, m, `{"name":"A"}`, nil)
	b := createWorkspace(t, m, `{"name":"B"}`, nil)
	if a.Accounts[0]["clientId"] == b.Accounts[0]["clientId"] {
		t.Fatal("two workspaces seeded the fixture accounts with one client id")
	}
	_, clockBefore := call(t, "GET", m.URL()+"/_sandbox/clock", "", nil)

	type world struct {
		w           testWorkspace
		tok, e2e    string
		cobTxid     string
		clockBefore string
	}
	var ws []*world
	for i, w := range []testWorkspace{a, b} {
		x := &world{w: w, tok: w.token(t, m, 0)}
		key := w.Accounts[0]["pixKeys"].([]any)[1].(map[string]any)["key"].(string)
		st, paid := call(t, "POST", w.url(m, "/_sandbox/pix-in"), `{"key":"`+key+`","amount":50}`, nil)
		if st != http.StatusCreated {
			t.Fatalf("pix-in: %d %v", st, paid)
		}
		x.e2e = paid["endToEndId"].(string)
		x.cobTxid = fmt.Sprintf("workspacecob%014d", i)
		st, cob := call(t, "PUT", m.URL()+"/cob/"+x.cobTxid, `{"calendario":{"expiracao":86400},"valor":{"original":"10.00"}}`, bearerH(x.tok))
		if st != http.StatusCreated {
			t.Fatalf("cob: %d %v", st, cob)
		}
		_, c := call(t, "GET", w.url(m, "/_sandbox/clock"), "", nil)
		x.clockBefore = c["now"].(string)
		ws = append(ws, x)
	}
	wa, wb := ws[0], ws[1]

	st, adv := call(t, "POST", a.url(m, "/_sandbox/clock/advance"), `{"seconds":7776000}`, nil) // 90 days
	if st != http.StatusOK {
		t.Fatalf("advance A: %d %v", st, adv)
	}
	if _, c := call(t, "GET", b.url(m, "/_sandbox/clock"), "", nil); c["now"] != wb.clockBefore {
		t.Errorf("B's clock moved: %v, was %s", c["now"], wb.clockBefore)
	}
	if _, c := call(t, "GET", m.URL()+"/_sandbox/clock", "", nil); c["now"] != clockBefore["now"] {
		t.Errorf("the default workspace's clock moved: %v, was %v", c["now"], clockBefore["now"])
	}
	if _, c := call(t, "GET", a.url(m, "/_sandbox/clock"), "", nil); c["now"] == wa.clockBefore {
		t.Errorf("A's clock did not move")
	}
	// B: token valid, charge still ATIVA, refund accepted.
	if st, body := call(t, "GET", m.URL()+"/accounts/balances", "", bearerH(wb.tok)); st != http.StatusOK {
		t.Errorf("B's token after A's advance: %d %v", st, body)
	}
	if st, cob := call(t, "GET", m.URL()+"/cob/"+wb.cobTxid, "", bearerH(wb.tok)); st != http.StatusOK || cob["status"] != "ATIVA" {
		t.Errorf("B's cob after A's advance: %d %v", st, cob["status"])
	}
	if st, ref := call(t, "PUT", m.URL()+"/pix/"+wb.e2e+"/devolucao/d1", `{"valor":"1.00"}`, bearerH(wb.tok)); st != http.StatusCreated {
		t.Errorf("B's refund after A's advance: %d %v", st, ref)
	}
	// A: token expired, charge expired, refund window closed.
	if st, _ := call(t, "GET", m.URL()+"/accounts/balances", "", bearerH(wa.tok)); st != http.StatusUnauthorized {
		t.Errorf("A's token after 90 days: %d, want 401", st)
	}
	tokA := a.token(t, m, 0)
	if st, cob := call(t, "GET", m.URL()+"/cob/"+wa.cobTxid, "", bearerH(tokA)); st != http.StatusOK || cob["status"] == "ATIVA" {
		t.Errorf("A's cob after 90 days: %d %v, want it expired", st, cob["status"])
	}
	if st, ref := call(t, "PUT", m.URL()+"/pix/"+wa.e2e+"/devolucao/d1", `{"valor":"1.00"}`, bearerH(tokA)); st != http.StatusUnprocessableEntity {
		t.Errorf("A's refund after 90 days: %d %v, want 422", st, ref)
	}
}

// A token of one workspace never reaches another's objects, a header naming
// another workspace is a 403, and a workspace's admin token opens its own
// control routes only.
func TestWorkspaces_Isolation(t *testing.T) {
	m := MustRunMain(t, func(c *Config) { c.AdminToken = "server-secret" })
	adm := map[string]string{"X-Sandbox-Admin-Token": "server-secret"}
	a := createWorkspace(t, m, `{"accounts":1}`, adm)
	b := createWorkspace(t, m, `{"accounts":1}`, adm)
	tokA, tokB := a.token(t, m, 0), b.token(t, m, 0)

	st, cob := call(t, "PUT", m.URL()+"/cob/isolationcob0000000000000001", `{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`, bearerH(tokB))
	if st != http.StatusCreated {
		t.Fatalf("cob in B: %d %v", st, cob)
	}
	if st, _ := call(t, "GET", m.URL()+"/cob/isolationcob0000000000000001", "", bearerH(tokA)); st != http.StatusNotFound {
		t.Errorf("A's token on B's cob: %d, want 404", st)
	}
	_, balA := call(t, "GET", m.URL()+"/api/balance", "", bearerH(tokA))
	_, balB := call(t, "GET", m.URL()+"/api/balance", "", bearerH(tokB))
	if balA["netBalance"] == nil || fmt.Sprint(balA) == fmt.Sprint(balB) && a.Accounts[0]["balance"] != b.Accounts[0]["balance"] {
		t.Errorf("balances: A %v B %v", balA, balB)
	}
	if st, _ := call(t, "GET", m.URL()+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tokA, "X-Sandbox-Workspace": b.ID}); st != http.StatusForbidden {
		t.Errorf("A's token with X-Sandbox-Workspace B: %d, want 403", st)
	}
	if st, _ := call(t, "GET", m.URL()+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tokA, "X-Sandbox-Workspace": a.ID}); st != http.StatusOK {
		t.Errorf("A's token with X-Sandbox-Workspace A: %d, want 200", st)
	}
	if st, _ := call(t, "GET", m.URL()+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tokA, "X-Sandbox-Workspace": "default"}); st != http.StatusForbidden {
		t.Errorf("A's token with X-Sandbox-Workspace default: %d, want 403", st)
	}
	// Admin tokens: A's opens A's routes, not B's, not the server's.
	ownA := map[string]string{"X-Sandbox-Admin-Token": a.AdminToken}
	if st, _ := call(t, "GET", a.url(m, "/_sandbox/clock"), "", ownA); st != http.StatusOK {
		t.Errorf("A's admin token on A's clock: %d", st)
	}
	if st, _ := call(t, "GET", m.URL()+"/_sandbox/clock", "", map[string]string{"X-Sandbox-Admin-Token": a.AdminToken, "X-Sandbox-Workspace": a.ID}); st != http.StatusOK {
		t.Errorf("A's admin token with the header: %d", st)
	}
	for _, u := range []string{b.url(m, "/_sandbox/clock"), m.URL() + "/_sandbox/clock", m.URL() + "/_sandbox/workspaces"} {
		if st, _ := call(t, "GET", u, "", ownA); st != http.StatusUnauthorized {
			t.Errorf("A's admin token on %s: %d, want 401", u, st)
		}
	}
	// The workspace list and creation are the server's, whatever the header names.
	withHeaderA := map[string]string{"X-Sandbox-Admin-Token": a.AdminToken, "X-Sandbox-Workspace": a.ID}
	if st, _ := call(t, "GET", m.URL()+"/_sandbox/workspaces", "", withHeaderA); st != http.StatusUnauthorized {
		t.Errorf("A's admin token with X-Sandbox-Workspace A on the workspace list: %d, want 401", st)
	}
	if st, _ := call(t, "POST", m.URL()+"/_sandbox/workspaces", `{"accounts":"none"}`, withHeaderA); st != http.StatusUnauthorized {
		t.Errorf("A's admin token with X-Sandbox-Workspace A creating a workspace: %d, want 401", st)
	}
	if st, _ := call(t, "GET", b.url(m, "/_sandbox/clock"), "", adm); st != http.StatusOK {
		t.Errorf("the server's admin token on B: %d", st)
	}
	// Ids: malformed 400, unknown 404, header against path 403.
	if st, _ := call(t, "GET", m.URL()+"/_sandbox/workspaces/not-an-id/clock", "", adm); st != http.StatusBadRequest {
		t.Errorf("malformed id: %d, want 400", st)
	}
	if st, _ := call(t, "GET", m.URL()+"/_sandbox/workspaces/00000000-0000-4000-8000-000000000000/clock", "", adm); st != http.StatusNotFound {
		t.Errorf("unknown id: %d, want 404", st)
	}
	if st, _ := call(t, "GET", a.url(m, "/_sandbox/clock"), "", map[string]string{"X-Sandbox-Admin-Token": "server-secret", "X-Sandbox-Workspace": b.ID}); st != http.StatusForbidden {
		t.Errorf("path A, header B: %d, want 403", st)
	}
	// Listing and deletion.
	st, list := call(t, "GET", m.URL()+"/_sandbox/workspaces", "", adm)
	if st != http.StatusOK || fmt.Sprint(list["metadata"].(map[string]any)["total"]) != "2" {
		t.Errorf("list: %d %v", st, list)
	}
	if st, _ := call(t, "DELETE", m.URL()+"/_sandbox/workspaces/"+a.ID, "", ownA); st != http.StatusOK {
		t.Errorf("delete A with its own admin token: %d", st)
	}
	if st, _ := call(t, "GET", m.URL()+"/api/balance", "", bearerH(tokA)); st != http.StatusUnauthorized {
		t.Errorf("a deleted workspace's token: %d, want 401", st)
	}
	if st, _ := call(t, "GET", a.url(m, "/_sandbox/clock"), "", adm); st != http.StatusNotFound {
		t.Errorf("a deleted workspace's routes: %d, want 404", st)
	}
	if st, _ := call(t, "GET", m.URL()+"/api/balance", "", bearerH(tokB)); st != http.StatusOK {
		t.Errorf("B after A's deletion: %d", st)
	}
}

// Workspaces survive a restart: their clocks, accounts and tokens.
func TestWorkspaces_Restart(t *testing.T) {
	dir := t.TempDir()
	m := MustRunMain(t, func(c *Config) { c.InMemory, c.DataDir = false, dir })
	a := createWorkspace(t, m, `{"accounts":2,"seed":9}`, nil)
	tok := a.token(t, m, 1)
	if st, _ := call(t, "POST", a.url(m, "/_sandbox/clock/advance"), `{"seconds":600}`, nil); st != http.StatusOK {
		t.Fatal(st)
	}
	_, c1 := call(t, "GET", a.url(m, "/_sandbox/clock"), "", nil)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = MustRunMain(t, func(c *Config) { c.InMemory, c.DataDir = false, dir })
	if _, c2 := call(t, "GET", a.url(m, "/_sandbox/clock"), "", nil); c2["now"] != c1["now"] {
		t.Errorf("A's clock after a restart: %v, was %v", c2["now"], c1["now"])
	}
	if st, body := call(t, "GET", m.URL()+"/api/balance", "", bearerH(tok)); st != http.StatusOK {
		t.Errorf("A's token after a restart: %d %v", st, body)
	}
	a.token(t, m, 0) // its client ids still name it
	st, accts := call(t, "GET", a.url(m, "/_sandbox/accounts"), "", nil)
	if n := len(accts["accounts"].([]any)); st != http.StatusOK || n != 2 {
		t.Errorf("A's accounts after a restart: %d, %d", st, n)
	}
}

// Bad creations are 400s naming the field, and create nothing.
func TestWorkspaces_BadCreate(t *testing.T) {
	m := MustRunMain(t, func(c *Config) { c.MaxAccounts = 5 })
	for body, field := range map[string]string{
		`{"accounts":{}}`:     "accounts",
		`{"accounts":"many"}`: "accounts",
		`{"accounts":6}`:      "accounts",
		`{"accounts":-1}`:     "accounts",
		`{"clock":"solar"}`:   "clock",
		`{"ttl":"soon"}`:      "ttl",
		`{"seed":-3}`:         "seed",
		`{"clockStart":"x"}`:  "clockStart",
		`{"name":` + strings.Repeat(`"n`, 1) + strings.Repeat("n", 100) + `"}`: "name",
		`[]`: "body",
	} {
		st, out := call(t, "POST", m.URL()+"/_sandbox/workspaces", body, nil)
		msg, _ := json.Marshal(out["message"])
		if st != http.StatusBadRequest || !strings.Contains(string(msg), field) {
			t.Errorf("%s: %d %s, want 400 naming %s", body, st, msg, field)
		}
	}
	if st, list := call(t, "GET", m.URL()+"/_sandbox/workspaces", "", nil); st != http.StatusOK || len(list["data"].([]any)) != 0 {
		t.Errorf("after bad creations: %d %v", st, list)
	}
	// An empty body takes every default.
	w := createWorkspace(t, m, ``, nil)
	if len(w.Accounts) != 3 {
		t.Errorf("default accounts: %d, want the 3 fixture accounts", len(w.Accounts))
	}
}

// Snapshot round trip: export a workspace with activity of every kind,
// delete it, create a workspace from the export, and every route answers as
// before, with the same credentials; the new workspace goes on from there.
func TestWorkspaces_SnapshotRoundTrip(t *testing.T) {
	m := MustRunMain(t, nil)
	a := createWorkspace(t, m, `{"name":"saved","seed":11,"ttl":"0"}`, nil)
	tok := a.token(t, m, 0)
	key := a.Accounts[0]["pixKeys"].([]any)[1].(map[string]any)["key"].(string)

	// Activity: a PIX received and partly refunded, a settled cash-out, a
	// pending cash-out, a cob, a MED, a scheduled marker job.
	st, paid := call(t, "POST", a.url(m, "/_sandbox/pix-in"), `{"key":"`+key+`","amount":120}`, nil)
	if st != http.StatusCreated {
		t.Fatalf("pix-in: %d %v", st, paid)
	}
	e2e := paid["endToEndId"].(string)
	if st, b := call(t, "PUT", m.URL()+"/pix/"+e2e+"/devolucao/r1", `{"valor":"20.00"}`, bearerH(tok)); st != http.StatusCreated {
		t.Fatalf("refund: %d %v", st, b)
	}
	cashOut := func(ext string) {
		body := `{"value":12.34,"externalId":"` + ext + `","details":{"key":"52998224725","keyType":"DOCUMENT","name":"Maria","document":"52998224725"}}`
		if st, b := call(t, "POST", m.URL()+"/api/pix/cash-out", body, bearerH(tok)); st != http.StatusCreated {
			t.Fatalf("cash-out: %d %v", st, b)
		}
	}
	cashOut("settled-1")
	if st, _ := call(t, "POST", a.url(m, "/_sandbox/clock/advance"), `{"seconds":10}`, nil); st != http.StatusOK {
		t.Fatal(st)
	}
	cashOut("pending-1")
	if st, b := call(t, "PUT", m.URL()+"/cob/snapshotcob000000000000001", `{"calendario":{"expiracao":86400},"valor":{"original":"10.00"}}`, bearerH(tok)); st != http.StatusCreated {
		t.Fatalf("cob: %d %v", st, b)
	}
	if st, b := call(t, "POST", a.url(m, "/_sandbox/med"), `{"accountId":1,"endToEndId":"`+e2e+`","cause":"UNAUTHORIZED_TRANSACTION"}`, nil); st != http.StatusCreated {
		t.Fatalf("med: %d %v", st, b)
	}

	_, clock := call(t, "GET", a.url(m, "/_sandbox/clock"), "", nil)
	day := clock["now"].(string)[:10]
	public := []string{"/api/balance", "/accounts/balances", "/api/transactions?startDate=" + day + "&endDate=" + day,
		"/api/pix/transactions/pix-key/" + key + "?startDate=" + day + "&endDate=" + day, "/cob/snapshotcob000000000000001",
		"/pix/" + e2e + "/devolucao/r1", "/api/med"}
	control := []string{"/_sandbox/clock", "/_sandbox/accounts", "/_sandbox/accounts/1", "/_sandbox/accounts/1/settings",
		"/_sandbox/jobs", "/_sandbox/webhook-targets?accountId=1", "/_sandbox/invariants", "/_sandbox/dict/keys/" + key,
		"/_sandbox/transactions/" + paid["transactionId"].(string)}
	answers := func(w testWorkspace, tok string) map[string]string {
		out := map[string]string{}
		for _, p := range public {
			st, body := rawCall(t, "GET", m.URL()+p, "", bearerH(tok))
			out[p] = fmt.Sprint(st, " ", body)
		}
		for _, p := range control {
			st, body := rawCall(t, "GET", w.url(m, p), "", nil)
			out[p] = fmt.Sprint(st, " ", body)
		}
		return out
	}
	before := answers(a, tok)
	for p, ans := range before {
		if !strings.HasPrefix(ans, "200 ") {
			t.Fatalf("before: GET %s: %s", p, ans)
		}
	}
	for p, want := range map[string]string{public[2]: "pending-1", public[3]: e2e, control[4]: "pixout.settle", public[6]: "UNAUTHORIZED_TRANSACTION"} {
		if !strings.Contains(before[p], want) {
			t.Fatalf("before: GET %s does not show %s: %s", p, want, before[p])
		}
	}

	st, snap := rawCall(t, "GET", a.url(m, "/_sandbox/snapshot"), "", nil)
	if st != http.StatusOK {
		t.Fatalf("snapshot: %d %s", st, snap)
	}
	if st, _ := call(t, "DELETE", m.URL()+"/_sandbox/workspaces/"+a.ID, "", nil); st != http.StatusOK {
		t.Fatal("delete", st)
	}
	st, body := rawCall(t, "POST", m.URL()+"/_sandbox/workspaces", `{"name":"restored","snapshot":`+snap+`}`, nil)
	if st != http.StatusCreated {
		t.Fatalf("create from the snapshot: %d %s", st, body)
	}
	var created map[string]any
	_ = json.Unmarshal([]byte(body), &created)
	b := testWorkspace{ID: created["id"].(string), Accounts: a.Accounts}
	if b.ID == a.ID {
		t.Fatal("the restored workspace has the exported one's id")
	}
	tokB := b.token(t, m, 0) // the same credentials
	after := answers(b, tokB)
	for _, p := range append(public, control...) {
		if before[p] != after[p] {
			t.Errorf("GET %s differs after the round trip:\nbefore %s\nafter  %s", p, before[p], after[p])
		}
	}
	// The restored workspace goes on: the pending cash-out settles.
	if st, _ := call(t, "POST", b.url(m, "/_sandbox/clock/advance"), `{"seconds":10}`, nil); st != http.StatusOK {
		t.Fatal(st)
	}
	_, list := call(t, "GET", m.URL()+"/api/transactions?externalId=pending-1&startDate="+day+"&endDate="+day, "", bearerH(tokB))
	if items := list["data"].([]any); len(items) != 1 || items[0].(map[string]any)["status"] != "Confirmado" {
		t.Errorf("the pending cash-out after the restored workspace's advance: %v", list["data"])
	}
	if st, inv := call(t, "GET", b.url(m, "/_sandbox/invariants"), "", nil); st != http.StatusOK || inv["ok"] != true {
		t.Errorf("invariants of the restored workspace: %d %v", st, inv)
	}
}

// A bad snapshot is a 400 naming the first wrong path, and creates nothing.
func TestWorkspaces_BadSnapshot(t *testing.T) {
	m := MustRunMain(t, nil)
	a := createWorkspace(t, m, `{"accounts":1}`, nil)
	_, good := rawCall(t, "GET", a.url(m, "/_sandbox/snapshot"), "", nil)
	var doc map[string]any
	if err := json.Unmarshal([]byte(good), &doc); err != nil {
		t.Fatal(err)
	}
	records := doc["records"].([]any)
	acct := -1
	for i, r := range records {
		if strings.HasPrefix(r.(map[string]any)["k"].(string), "acct/") {
			acct = i
		}
	}
	edit := func(f func(d map[string]any)) string {
		var d map[string]any
		_ = json.Unmarshal([]byte(good), &d)
		f(d)
		b, _ := json.Marshal(d)
		return string(b)
	}
	rec := func(d map[string]any, i int) map[string]any { return d["records"].([]any)[i].(map[string]any) }
	for name, c := range map[string]struct {
		snap, path string
	}{
		"format":        {edit(func(d map[string]any) { d["format"] = "other" }), "snapshot.format"},
		"version":       {edit(func(d map[string]any) { d["version"] = 2 }), "snapshot.version"},
		"clock mode":    {edit(func(d map[string]any) { d["workspace"].(map[string]any)["clock"].(map[string]any)["mode"] = "solar" }), "snapshot.workspace.clock.mode"},
		"foreign key":   {edit(func(d map[string]any) { rec(d, 0)["k"] = "w/x/acct/1" }), "snapshot.records[0]"},
		"unknown key":   {edit(func(d map[string]any) { rec(d, 0)["k"] = "nothing/1" }), "snapshot.records[0]"},
		"bad value":     {edit(func(d map[string]any) { rec(d, acct)["v"] = map[string]any{"id": "one"} }), fmt.Sprintf("snapshot.records[%d]", acct)},
		"bad base64":    {edit(func(d map[string]any) { delete(rec(d, acct), "v"); rec(d, acct)["b"] = "%%%" }), fmt.Sprintf("snapshot.records[%d].b", acct)},
		"repeated key":  {edit(func(d map[string]any) { d["records"] = append(d["records"].([]any), rec(d, acct)) }), fmt.Sprintf("snapshot.records[%d].k", len(records))},
		"no clock":      {edit(func(d map[string]any) { d["records"] = []any{rec(d, acct)} }), "snapshot.records"},
		"not an object": {`"snapshot"`, "snapshot"},
	} {
		st, body := rawCall(t, "POST", m.URL()+"/_sandbox/workspaces", `{"snapshot":`+c.snap+`}`, nil)
		if st != http.StatusBadRequest || !strings.Contains(body, c.path) {
			t.Errorf("%s: %d %s, want 400 naming %s", name, st, body, c.path)
		}
	}
	if st, body := rawCall(t, "POST", m.URL()+"/_sandbox/workspaces", `{"seed":1,"snapshot":`+good+`}`, nil); st != http.StatusBadRequest {
		t.Errorf("a seed beside a snapshot: %d %s", st, body)
	}
	if _, list := call(t, "GET", m.URL()+"/_sandbox/workspaces", "", nil); fmt.Sprint(list["metadata"].(map[string]any)["total"]) != "1" {
		t.Errorf("bad snapshots created workspaces: %v", list["metadata"])
	}
	// Two copies of one snapshot share client ids: a token request names one.
	for range 2 {
		if st, body := rawCall(t, "POST", m.URL()+"/_sandbox/workspaces", `{"snapshot":`+good+`}`, nil); st != http.StatusCreated {
			t.Fatalf("a copy: %d %s", st, body)
		}
	}
	acc := a.Accounts[0]
	tokenBody := fmt.Sprintf(`{"clientId":%q,"clientSecret":%q}`, acc["clientId"], acc["clientSecret"])
	h := map[string]string{"Content-Type": "application/json", "X-SSL-Client-Cert": pix.EncodeCertHeader([]byte(acc["certificate"].(string)))}
	if st, body := rawCall(t, "POST", m.URL()+"/api/auth/token", tokenBody, h); st != http.StatusUnauthorized || !strings.Contains(body, "X-Sandbox-Workspace") {
		t.Errorf("a client id of three workspaces without the header: %d %s", st, body)
	}
	h["X-Sandbox-Workspace"] = a.ID
	if st, body := rawCall(t, "POST", m.URL()+"/api/auth/token", tokenBody, h); st != http.StatusCreated {
		t.Errorf("with the header: %d %s", st, body)
	}
}

// A token of workspace A walks every public route that names an object, with
// the identifiers of workspace B's objects: each is a 404 (or an empty
// listing), creating with B's identifiers is no conflict, and B's objects
// are as they were.
func TestWorkspaces_TokenWalk(t *testing.T) {
	m := MustRunMain(t, nil)
	b := createWorkspace(t, m, `{"accounts":1,"seed":5}`, nil)
	a := createWorkspace(t, m, `{"accounts":1,"seed":6}`, nil)
	tokB, tokA := b.token(t, m, 0), a.token(t, m, 0)
	keyB := b.Accounts[0]["pixKeys"].([]any)[0].(map[string]any)["key"].(string)

	// B's objects: a cob, a PIX received (refunded once, under MED), a cash-out.
	cob := "walkcob00000000000000000001"
	if st, out := call(t, "PUT", m.URL()+"/cob/"+cob, `{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`, bearerH(tokB)); st != http.StatusCreated {
		t.Fatalf("cob: %d %v", st, out)
	}
	st, paid := call(t, "POST", b.url(m, "/_sandbox/pix-in"), `{"key":"`+keyB+`","amount":50}`, nil)
	if st != http.StatusCreated {
		t.Fatalf("pix-in: %d %v", st, paid)
	}
	e2e, txID := paid["endToEndId"].(string), paid["transactionId"].(string)
	if st, out := call(t, "PUT", m.URL()+"/pix/"+e2e+"/devolucao/r1", `{"valor":"1.00"}`, bearerH(tokB)); st != http.StatusCreated {
		t.Fatalf("refund: %d %v", st, out)
	}
	if st, out := call(t, "POST", b.url(m, "/_sandbox/med"), fmt.Sprintf(`{"accountId":%v,"endToEndId":%q}`, b.Accounts[0]["id"], e2e), nil); st != http.StatusCreated {
		t.Fatalf("med: %d %v", st, out)
	}
	cashOut := `{"value":2.00,"externalId":"b-ext","details":{"key":"52998224725","keyType":"DOCUMENT","name":"Maria","document":"52998224725"}}`
	if st, out := call(t, "POST", m.URL()+"/api/pix/cash-out", cashOut, bearerH(tokB)); st != http.StatusCreated {
		t.Fatalf("cash-out: %d %v", st, out)
	}
	_, bBefore := rawCall(t, "GET", m.URL()+"/api/transactions", "", bearerH(tokB))

	for _, c := range []struct{ method, path, body string }{
		{"GET", "/cob/" + cob, ""},
		{"PATCH", "/cob/" + cob, `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`},
		{"GET", "/pix/" + e2e + "/devolucao/r1", ""},
		{"PUT", "/pix/" + e2e + "/devolucao/r2", `{"valor":"1.00"}`},
		{"POST", "/api/pix/refund-in/" + txID, `{"refundValue":1.00}`},
		{"POST", "/api/resend-webhook/" + txID, `{"url":"https://example.com/h"}`},
		{"POST", "/api/resend-webhook/b-ext", `{"url":"https://example.com/h"}`},
		{"POST", "/api/resend-webhook/" + e2e, `{"url":"https://example.com/h"}`},
	} {
		if st, body := rawCall(t, c.method, m.URL()+c.path, c.body, bearerH(tokA)); st != http.StatusNotFound {
			t.Errorf("A's token: %s %s = %d %s, want 404", c.method, c.path, st, body)
		}
	}
	for _, p := range []string{"/api/transactions?externalId=b-ext", "/api/transactions?endToEndId=" + e2e, "/api/med",
		"/api/pix/transactions/pix-key/" + keyB} {
		st, out := call(t, "GET", m.URL()+p, "", bearerH(tokA))
		if st == http.StatusOK && len(out["data"].([]any)) != 0 || st != http.StatusOK && st != http.StatusNotFound {
			t.Errorf("A's token: GET %s = %d %v, want nothing of B's", p, st, out)
		}
	}
	// Creating with B's identifiers is no conflict in A; a transfer to B's key
	// finds no such key in A's DICT.
	if st, out := call(t, "PUT", m.URL()+"/cob/"+cob, `{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`, bearerH(tokA)); st != http.StatusCreated {
		t.Errorf("A's cob with B's txid: %d %v", st, out)
	}
	if st, out := call(t, "POST", m.URL()+"/api/pix/cash-out", cashOut, bearerH(tokA)); st != http.StatusCreated {
		t.Errorf("A's cash-out with B's externalId: %d %v", st, out)
	}
	transfer := map[string]string{"Authorization": "Bearer " + tokA, "Content-Type": "application/json", "x-idempotency-key": "0b8c5a2e-7f1d-4c3b-9a6e-2d4f8e1c7b90"}
	if st, out := call(t, "POST", m.URL()+"/dict/pix", `{"pixKey":"`+keyB+`","payment":{"currency":"BRL","amount":1.00}}`, transfer); st != http.StatusUnprocessableEntity {
		t.Errorf("A's transfer to B's key: %d %v, want 422 (not in A's DICT)", st, out)
	}
	if _, bAfter := rawCall(t, "GET", m.URL()+"/api/transactions", "", bearerH(tokB)); bAfter != bBefore {
		t.Errorf("B's transactions changed:\nbefore %s\nafter  %s", bBefore, bAfter)
	}
	if st, out := call(t, "GET", m.URL()+"/cob/"+cob, "", bearerH(tokB)); st != http.StatusOK || out["status"] != "ATIVA" {
		t.Errorf("B's cob after A's walk: %d %v", st, out["status"])
	}
}

// Deleting a workspace while its clients write and its jobs run leaves none
// of it: its requests end (as for an unknown workspace), its keys all go,
// and another workspace under the same load is whole.
func TestWorkspaces_DeleteUnderLoad(t *testing.T) {
	m := MustRunMain(t, nil)
	a := createWorkspace(t, m, `{"accounts":2}`, nil)
	b := createWorkspace(t, m, `{"accounts":2}`, nil)
	load := func(w testWorkspace, stop <-chan struct{}, done *sync.WaitGroup) {
		defer done.Done()
		tok := w.token(t, m, 0)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			body := fmt.Sprintf(`{"value":0.01,"externalId":"load-%d","details":{"key":"52998224725","keyType":"DOCUMENT","name":"Maria","document":"52998224725"}}`, i)
			rawCall(t, "POST", m.URL()+"/api/pix/cash-out", body, bearerH(tok))
			if i%10 == 0 {
				rawCall(t, "POST", w.url(m, "/_sandbox/clock/advance"), `{"seconds":5}`, nil)
			}
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range []testWorkspace{a, a, b} {
		wg.Add(1)
		go load(w, stop, &wg)
	}
	time.Sleep(300 * time.Millisecond)
	if st, out := call(t, "DELETE", m.URL()+"/_sandbox/workspaces/"+a.ID, "", nil); st != http.StatusOK {
		t.Fatalf("delete under load: %d %v", st, out)
	}
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.spaces.WaitDropped(ctx); err != nil {
		t.Fatal(err)
	}
	ids, err := m.store.Spaces()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids, a.ID) {
		t.Errorf("keys of the deleted workspace are left: %v", ids)
	}
	if !slices.Contains(ids, b.ID) {
		t.Errorf("the other workspace's keys are gone: %v", ids)
	}
	if st, inv := call(t, "GET", b.url(m, "/_sandbox/invariants"), "", nil); st != http.StatusOK || inv["ok"] != true {
		t.Errorf("the other workspace's invariants: %d %v", st, inv)
	}
}
