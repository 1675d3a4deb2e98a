package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// mustCreateWorkspace creates a workspace through the CLI (args after
// create) and returns its answer.
func mustCreateWorkspace(t *testing.T, srv *simulatortest.Env, args ...string) sandboxclient.CreatedWorkspace {
	t.Helper()
	r := cliRun(t, "workspace", append([]string{"create", "--url", srv.URL, "--json"}, args...)...).must(t, 0)
	var w sandboxclient.CreatedWorkspace
	if err := sandboxclient.DecodeJSON([]byte(r.stdout), &w); err != nil || !cliWorkspaceID.MatchString(w.ID) {
		t.Fatalf("workspace create --json: %v %q", err, r.stdout)
	}
	return w
}

// clockNow reads a clock through the CLI: the default workspace's, or ws's.
func clockNow(t *testing.T, srv *simulatortest.Env, ws string) string {
	t.Helper()
	args := []string{"show", "--url", srv.URL, "--json"}
	if ws != "" {
		args = append(args, "--workspace", ws)
	}
	var c sandboxclient.Clock
	r := cliRun(t, "clock", args...).must(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("clock show --json: %v %q", err, r.stdout)
	}
	return c.Now
}

// TestCLI_WorkspaceCreate: create prints the id, the admin token and every
// account's credentials, and --quiet the id alone; --json has the whole
// answer.
func TestCLI_WorkspaceCreate(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL

	r := cliRun(t, "workspace", "create", "--url", u, "--name", "ci-4711", "--accounts", "2", "--seed", "7", "--ttl", "2h",
		"--clock-start", "2026-05-01T09:00:00Z").must(t, 0)
	id := strings.TrimPrefix(strings.SplitN(r.stdout, "\n", 2)[0], "created workspace ")
	w, _, err := sandboxclient.New(u, "").Workspace(context.Background(), id)
	if err != nil {
		t.Fatalf("the printed id %q: %v\n%s", id, err, r.stdout)
	}
	if w.Name != "ci-4711" || w.AccountCount != 2 || w.TTL != "2h0m0s" || w.Clock.Mode != "virtual" || w.Clock.Now != "2026-05-01T09:00:00.000Z" {
		t.Errorf("the workspace made: %+v", w)
	}
	for _, want := range []string{"name         ci-4711", "admin token  wst_", "clientId ", "clientSecret ", "export PIXSANDBOX_WORKSPACE=" + id,
		"after 2h without a request"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the summary lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Count(r.stdout, "clientSecret ") != 2 || strings.Contains(r.stdout, "PRIVATE KEY") {
		t.Errorf("want both accounts' credentials and no private key:\n%s", r.stdout)
	}

	full := mustCreateWorkspace(t, srv, "--accounts", "fixtures", "--clock", "real", "--ttl", "0")
	if len(full.Accounts) != 3 || full.Clock.Mode != "real" || full.ExpiresAt != nil || full.AdminToken == "" ||
		!strings.Contains(full.Accounts[0].PrivateKey, "PRIVATE KEY") || full.Accounts[0].ClientSecret == "" {
		t.Errorf("create --json: %+v", full)
	}
	none := mustCreateWorkspace(t, srv, "--accounts", "none")
	if len(none.Accounts) != 0 || none.AccountCount != 0 {
		t.Errorf("--accounts none: %+v", none)
	}

	q := cliRun(t, "workspace", "create", "--url", u, "--quiet").must(t, 0)
	if !cliWorkspaceID.MatchString(strings.TrimSuffix(q.stdout, "\n")) {
		t.Errorf("--quiet: %q", q.stdout)
	}

	// The create flags read PIXSANDBOX_WORKSPACE_<FLAG>, not the variables
	// of serve (PIXSANDBOX_CLOCK) or listen (PIXSANDBOX_TTL).
	env := map[string]string{"PIXSANDBOX_URL": u, "PIXSANDBOX_JSON": "true", "PIXSANDBOX_TTL": "30s", "PIXSANDBOX_CLOCK": "real",
		"PIXSANDBOX_WORKSPACE_NAME": "from-env", "PIXSANDBOX_WORKSPACE_ACCOUNTS": "none"}
	var fromEnv sandboxclient.CreatedWorkspace
	r = cliRunEnv(t, cliOpts{env: env}, "workspace", "create").must(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &fromEnv); err != nil || fromEnv.Name != "from-env" || fromEnv.AccountCount != 0 ||
		fromEnv.TTL != "24h0m0s" || fromEnv.Clock.Mode != "virtual" {
		t.Errorf("created with variables: %v %+v", err, fromEnv.Workspace)
	}
	if r := cliRunEnv(t, cliOpts{env: env}, "workspace", "create", "--quiet").must(t, 0); !cliWorkspaceID.MatchString(strings.TrimSpace(r.stdout)) {
		t.Errorf("--quiet must win over PIXSANDBOX_JSON: %q", r.stdout)
	}
}

// TestCLI_WorkspaceScoped: --workspace (and PIXSANDBOX_WORKSPACE) makes the
// driving commands act in the workspace: its clock moves and the default's
// does not, its tokens, reset, trigger and journal are its own.
func TestCLI_WorkspaceScoped(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	ws := mustCreateWorkspace(t, srv).ID
	start := clockNow(t, srv, "")

	r := cliRun(t, "clock", "advance", "1h", "--url", u, "--workspace", ws).must(t, 0)
	if !strings.Contains(r.stdout, "now 2026-03-02T13:00:00.000Z") {
		t.Fatalf("clock advance 1h in the workspace: %q", r.stdout)
	}
	if now := clockNow(t, srv, ""); now != start {
		t.Fatalf("the default workspace's clock moved from %s to %s", start, now)
	}
	if now := clockNow(t, srv, ws); now != "2026-03-02T13:00:00Z" {
		t.Fatalf("the workspace's clock: %s", now)
	}
	if now := clockNow(t, srv, "default"); now != start {
		t.Fatalf("--workspace default: %s", now)
	}

	t.Run("environment", func(t *testing.T) {
		env := map[string]string{"PIXSANDBOX_URL": u, "PIXSANDBOX_WORKSPACE": strings.ToUpper(ws)}
		r := cliRunEnv(t, cliOpts{env: env}, "clock", "show").must(t, 0)
		if !strings.Contains(r.stdout, "2026-03-02T13:00:00.000Z") {
			t.Fatalf("PIXSANDBOX_WORKSPACE: %q", r.stdout)
		}
		r = cliRunEnv(t, cliOpts{env: env}, "clock", "show", "--workspace", "default").must(t, 0)
		if strings.Contains(r.stdout, "13:00:00") {
			t.Fatalf("--workspace default must win over PIXSANDBOX_WORKSPACE: %q", r.stdout)
		}
		r = cliRunEnv(t, cliOpts{env: env}, "workspace", "show").must(t, 0)
		if !strings.Contains(r.stdout, "id           "+ws) {
			t.Fatalf("workspace show without ID takes PIXSANDBOX_WORKSPACE: %q", r.stdout)
		}
		cliRunEnv(t, cliOpts{env: map[string]string{"PIXSANDBOX_WORKSPACE": "nope"}}, "clock", "show").must(t, 2, "--workspace")
	})

	t.Run("token", func(t *testing.T) {
		created := mustCreateWorkspace(t, srv, "--accounts", "1")
		acct := created.Accounts[0].ID.String()
		tok := strings.TrimSpace(cliRun(t, "token", "--url", u, "--workspace", created.ID, "--account", acct).must(t, 0).stdout)
		st, body := call(t, "GET", u+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tok})
		if st != 200 || body["netBalance"].(json.Number).String() != created.Accounts[0].Balance.String() {
			t.Fatalf("balance with the workspace's token: %d %v (account %+v)", st, body, created.Accounts[0])
		}
		st, _ = call(t, "GET", u+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tok, sandboxclient.WorkspaceHeader: "default"})
		if st != 403 {
			t.Fatalf("the workspace's token sent to the default workspace: %d, want 403", st)
		}
		cliRun(t, "token", "--url", u, "--account", acct).must(t, 1, "404")
	})

	t.Run("trigger and requests", func(t *testing.T) {
		r := cliRun(t, "trigger", "TAX_ID_MISMATCH", "--url", u, "--workspace", ws).must(t, 0)
		if !strings.Contains(r.stdout, u+"/_sandbox/workspaces/"+ws+"/transactions/") || !strings.Contains(r.stdout, "--workspace "+ws) {
			t.Fatalf("trigger's hints must name the workspace:\n%s", r.stdout)
		}
		req := cliRun(t, "requests", "--url", u, "--workspace", ws, "--path", "/api/pix/cash-out").must(t, 0)
		if !strings.Contains(req.stdout, "POST   /api/pix/cash-out  201") {
			t.Fatalf("the workspace's journal: %q", req.stdout)
		}
		req = cliRun(t, "requests", "--url", u, "--path", "/api/pix/cash-out").must(t, 0)
		if req.stdout != "no requests match\n" {
			t.Fatalf("the default workspace's journal has the workspace's cash-out: %q", req.stdout)
		}
	})

	t.Run("reset", func(t *testing.T) {
		c := sandboxclient.New(u, "")
		c.WorkspaceID = ws
		var acct struct {
			ID json.Number `json:"id"`
		}
		if _, err := c.CallJSON(context.Background(), http.MethodPost, "/_sandbox/accounts", map[string]any{}, nil, &acct, http.StatusCreated); err != nil {
			t.Fatal(err)
		}
		r := cliRun(t, "reset", "--url", u, "--workspace", ws, "--yes").must(t, 0)
		if !strings.Contains(r.stdout, "workspace "+ws) {
			t.Fatalf("reset summary: %q", r.stdout)
		}
		if st, _ := call(t, "GET", u+"/_sandbox/workspaces/"+ws+"/accounts/"+acct.ID.String(), "", nil); st != 404 {
			t.Fatalf("the workspace's account survived its reset: %d", st)
		}
		if now := clockNow(t, srv, ws); now != "2026-03-02T13:00:00Z" {
			t.Fatalf("the reset moved the workspace's clock: %s", now)
		}
	})
}

// TestCLI_WorkspaceAdminToken: a workspace's own admin token opens its
// routes (through --workspace or its id in the path), not the default
// workspace's nor the workspace list.
func TestCLI_WorkspaceAdminToken(t *testing.T) {
	srv := startServer(t, func(o *simulatortest.Options) { o.AdminToken = "s3cret" })
	u := srv.URL
	w := mustCreateWorkspace(t, srv, "--admin-token", "s3cret")
	cliRun(t, "clock", "advance", "1m", "--url", u, "--workspace", w.ID, "--admin-token", w.AdminToken).must(t, 0)
	cliRun(t, "workspace", "show", w.ID, "--url", u, "--admin-token", w.AdminToken).must(t, 0)
	cliRun(t, "clock", "show", "--url", u, "--admin-token", w.AdminToken).must(t, 1, "401")
	cliRun(t, "workspace", "list", "--url", u, "--admin-token", w.AdminToken).must(t, 1, "401", "is not the server's --admin-token")
	cliRun(t, "workspace", "delete", w.ID, "--yes", "--url", u, "--admin-token", "nope").must(t, 1, "401", "nor the workspace's own adminToken")
	cliRun(t, "workspace", "list", "--url", u).must(t, 1, "401", "The server runs with --admin-token")
}

// TestCLI_WorkspaceListen: listen --workspace registers its targets in the
// workspace and renews its lease there (a renewal in another workspace would
// not find it), and forwards the workspace's events only.
func TestCLI_WorkspaceListen(t *testing.T) {
	srv := startServer(t, nil)
	ws := mustCreateWorkspace(t, srv).ID
	rec := &hookRecorder{}
	localURL := newLocalServer(t, rec)

	l := startListen(t, srv, "--workspace", ws, "--forward-to", localURL+"/hook", "--events", "cash_in", "--interval", "20ms")
	if !strings.Contains(l.errb.String(), "of workspace "+ws) || targetsAt(t, srv, localURL) != 0 {
		t.Fatalf("listen in the workspace: %s (default targets %d)", l.errb.String(), targetsAt(t, srv, localURL))
	}
	c := sandboxclient.New(srv.URL, "")
	ctx := context.Background()
	key := func(c *sandboxclient.Client) string {
		var a struct {
			PixKeys []struct {
				Key string `json:"key"`
			} `json:"pixKeys"`
		}
		if err := c.Account(ctx, 1, &a); err != nil || len(a.PixKeys) == 0 {
			t.Fatalf("account 1: %v %+v", err, a)
		}
		return a.PixKeys[0].Key
	}
	other, err := c.PixIn(ctx, map[string]any{"key": key(c), "amount": 3})
	if err != nil {
		t.Fatal(err)
	}
	cliAdvance(t, srv, "10s")
	c.WorkspaceID = ws
	in, err := c.PixIn(ctx, map[string]any{"key": key(c), "amount": 5})
	if err != nil {
		t.Fatal(err)
	}
	cliRun(t, "clock", "advance", "10s", "--url", srv.URL, "--workspace", ws).must(t, 0)
	apitest.WaitFor(t, "the workspace's CashIn delivery", func() bool {
		for _, h := range rec.hooks() {
			if strings.Contains(string(h.body), in.EndToEndID) {
				return true
			}
		}
		return false
	})
	apitest.WaitFor(t, "listen to print it", func() bool { return strings.Contains(l.out.String(), "cash_in") })
	for _, h := range rec.hooks() {
		if strings.Contains(string(h.body), other.EndToEndID) {
			t.Fatalf("listen in the workspace forwarded the default workspace's event: %s", h.body)
		}
	}
	l.stop(t)
	if !strings.Contains(l.errb.String(), "Stopped: 1 target removed.") {
		t.Errorf("stderr after the interrupt: %s", l.errb.String())
	}
}

// TestCLI_WorkspaceListShowDelete: list prints a table of the workspaces,
// show one; delete asks on a terminal, refuses without one, and deletes with
// --yes.
func TestCLI_WorkspaceListShowDelete(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	r := cliRun(t, "workspace", "list", "--url", u).must(t, 0)
	if !strings.HasPrefix(r.stdout, "no workspaces") {
		t.Fatalf("list of none: %q", r.stdout)
	}
	a := mustCreateWorkspace(t, srv, "--name", "alpha").ID
	b := mustCreateWorkspace(t, srv, "--name", "beta", "--clock", "real").ID

	r = cliRun(t, "workspace", "list", "--url", u).must(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID ") || !strings.HasPrefix(lines[1], a+"  alpha") || !strings.HasPrefix(lines[2], b+"  beta") ||
		!strings.Contains(lines[2], "real ") {
		t.Fatalf("list:\n%s", r.stdout)
	}
	r = cliRun(t, "workspace", "list", "--url", u, "--size", "1", "--page", "2").must(t, 0)
	if !strings.Contains(r.stdout, b) || strings.Contains(r.stdout, a) || !strings.Contains(r.stdout, "page 2 of 2, 2 workspaces") {
		t.Fatalf("list --size 1 --page 2:\n%s", r.stdout)
	}
	var page sandboxclient.WorkspacePage
	r = cliRun(t, "workspace", "list", "--url", u, "--json").must(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &page); err != nil || page.Metadata.Total != 2 || len(page.Data) != 2 {
		t.Fatalf("list --json: %v %q", err, r.stdout)
	}

	r = cliRun(t, "workspace", "show", a, "--url", u).must(t, 0)
	for _, want := range []string{"id           " + a, "name         alpha", "clock        virtual, now 2026-03-02T12:00:00.000Z", "accounts     3", "(after 24h without a request)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, r.stdout)
		}
	}

	cliRun(t, "workspace", "delete", a, "--url", u).must(t, 2, "not a terminal", "--yes")
	cliRunEnv(t, cliOpts{terminal: true, stdin: "no\n"}, "workspace", "delete", a, "--url", u).must(t, 1, "Type yes", "nothing was changed")
	cliRun(t, "workspace", "show", a, "--url", u).must(t, 0)
	cliRunEnv(t, cliOpts{terminal: true, stdin: "yes\n"}, "workspace", "delete", a, "--url", u).must(t, 0)
	r = cliRun(t, "workspace", "delete", b, "--url", u, "--yes", "--json").must(t, 0)
	if !strings.Contains(r.stdout, `"deleted":true`) {
		t.Fatalf("delete --json: %q", r.stdout)
	}
	for _, id := range []string{a, b} {
		cliRun(t, "workspace", "show", id, "--url", u).must(t, 1, "404", "workspace "+id+" not found")
		cliRun(t, "workspace", "delete", id, "--url", u, "--yes").must(t, 1, "404", "not found")
		cliRun(t, "clock", "show", "--url", u, "--workspace", id).must(t, 1, "404", "workspace "+id+" not found", "pixsandbox workspace list")
	}
	cliRun(t, "workspace", "show", "default", "--url", u).must(t, 1, "400", "default workspace")
}

// TestCLI_WorkspaceUsage: malformed flags and arguments are exit code 2 with
// one line and a hint.
func TestCLI_WorkspaceUsage(t *testing.T) {
	id := "3f2b6c1e-8d4a-4b7e-9c2d-1a2b3c4d5e6f"
	for _, args := range [][]string{
		{},
		{"frob"},
		{"create", "extra"},
		{"create", "--clock", "sideways"},
		{"create", "--clock-start", "yesterday"},
		{"create", "--accounts", "many"},
		{"create", "--accounts", "-1"},
		{"create", "--seed", "-3"},
		{"create", "--ttl", "forever"},
		{"create", "--quiet", "--json"},
		{"create", "--from-snapshot", "x.json", "--seed", "1"},
		{"create", "--from-snapshot", "x.json", "--accounts", "2"},
		{"list", "--name", "x"},
		{"list", "--page", "0"},
		{"list", "--size", "501"},
		{"list", "extra"},
		{"show"},
		{"show", "nope"},
		{"show", id, id},
		{"delete"},
		{"delete", id, "--out", "f"},
		{"snapshot", "--yes"},
	} {
		usageLine(t, "workspace", args...)
	}
	usageLine(t, "clock", "show", "--workspace", "x")
	usageLine(t, "token", "--workspace", "default2")

	// A variable of create's flag is not a misplaced flag of list.
	cliRunEnv(t, cliOpts{env: map[string]string{"PIXSANDBOX_WORKSPACE_CLOCK": "virtual", "PIXSANDBOX_URL": "http://127.0.0.1:1"}}, "workspace", "list").
		must(t, 1, "cannot reach")
	cliRunEnv(t, cliOpts{env: map[string]string{"PIXSANDBOX_WORKSPACE_SEED": "x"}}, "workspace", "list").must(t, 2, "PIXSANDBOX_WORKSPACE_SEED")
}

// usageLine runs a command that must end with exit code 2, the problem on one
// line and a hint.
func usageLine(t *testing.T, cmd string, args ...string) {
	t.Helper()
	r := cliRun(t, cmd, args...)
	if r.code != 2 || !strings.HasPrefix(r.stderr, "pixsandbox "+cmd) || !strings.HasSuffix(r.stderr, "Run 'pixsandbox "+cmd+" -h' for usage.\n") ||
		strings.Count(r.stderr, "\n") != 2 {
		t.Errorf("%s %v: exit %d, want 2 with one line and a hint; stderr:\n%s", cmd, args, r.code, r.stderr)
	}
}

// snapshotServer is a fake simulator with the snapshot routes: GET
// .../{id}/snapshot answers doc, POST /_sandbox/workspaces keeps its body.
func snapshotServer(t *testing.T, doc string) (url string, posted chan []byte) {
	t.Helper()
	posted = make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/snapshot"):
			io.WriteString(w, doc)
		case r.Method == http.MethodPost && r.URL.Path == "/_sandbox/workspaces":
			b, _ := io.ReadAll(r.Body)
			posted <- b
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":"3f2b6c1e-8d4a-4b7e-9c2d-1a2b3c4d5e6f","name":"copy","clock":{"mode":"virtual","now":"2026-03-02T12:00:00.000Z"},"accountCount":0,"accounts":[],"adminToken":"wst_x"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, posted
}

// TestCLI_WorkspaceSnapshot: snapshot writes the document as received to
// --out (owner only) or standard output, and create --from-snapshot posts it
// back as {"snapshot": document, "name": ...}. A fake server answers: the
// real one checks its own side.
func TestCLI_WorkspaceSnapshot(t *testing.T) {
	doc := `{"version":1,"workspace":{"name":"orig"},"accounts":[{"id":1}]}`
	u, posted := snapshotServer(t, doc)
	id := "3f2b6c1e-8d4a-4b7e-9c2d-1a2b3c4d5e6f"

	r := cliRun(t, "workspace", "snapshot", id, "--url", u).must(t, 0)
	if r.stdout != doc+"\n" {
		t.Fatalf("snapshot to stdout: %q", r.stdout)
	}
	file := filepath.Join(t.TempDir(), "ws.json")
	r = cliRun(t, "workspace", "snapshot", id, "--url", u, "--out", file).must(t, 0)
	got, err := os.ReadFile(file)
	if err != nil || string(got) != doc {
		t.Fatalf("--out: %v %q", err, got)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("the snapshot file's mode is %v, want 0600", st.Mode().Perm())
	}
	if !strings.Contains(r.stdout, "--from-snapshot "+file) {
		t.Errorf("snapshot --out summary: %q", r.stdout)
	}
	// PIXSANDBOX_WORKSPACE names the workspace when ID is left out.
	cliRunEnv(t, cliOpts{env: map[string]string{"PIXSANDBOX_URL": u, "PIXSANDBOX_WORKSPACE": id}}, "workspace", "snapshot").must(t, 0)

	r = cliRun(t, "workspace", "create", "--url", u, "--from-snapshot", file, "--name", "copy", "--ttl", "1h").must(t, 0)
	var body map[string]json.RawMessage
	if err := json.Unmarshal(<-posted, &body); err != nil || string(body["snapshot"]) != doc || string(body["name"]) != `"copy"` ||
		string(body["ttl"]) != `"1h0m0s"` || len(body) != 3 {
		t.Fatalf("create --from-snapshot posted %v (%v)", body, err)
	}
	if !strings.HasPrefix(r.stdout, "created workspace "+id) {
		t.Errorf("create --from-snapshot: %q", r.stdout)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o600)
	cliRun(t, "workspace", "create", "--url", u, "--from-snapshot", bad).must(t, 1, "not a JSON document")
	cliRun(t, "workspace", "create", "--url", u, "--from-snapshot", filepath.Join(t.TempDir(), "none.json")).must(t, 1, "read the snapshot")
	cliRun(t, "workspace", "snapshot", id, "--url", u, "--out", filepath.Join(t.TempDir(), "no", "dir.json")).must(t, 1, "write the snapshot")

	notJSON, _ := snapshotServer(t, "<html>")
	cliRun(t, "workspace", "snapshot", id, "--url", notJSON).must(t, 1, "not JSON")
}

// TestCLI_WorkspaceSnapshotRoundTrip: against the real server, a snapshot
// made into a new workspace keeps its clock. Skipped while the server has no
// snapshot route.
func TestCLI_WorkspaceSnapshotRoundTrip(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	ws := mustCreateWorkspace(t, srv).ID
	cliRun(t, "clock", "advance", "3h", "--url", u, "--workspace", ws).must(t, 0)
	file := filepath.Join(t.TempDir(), "ws.json")
	r := cliRun(t, "workspace", "snapshot", ws, "--url", u, "--out", file)
	if r.code == 1 && strings.Contains(r.stderr, "404") {
		t.Skip("this server has no GET /_sandbox/workspaces/{id}/snapshot yet (it lands separately): " + strings.SplitN(r.stderr, "\n", 2)[0])
	}
	r.must(t, 0)
	copied := strings.TrimSpace(cliRun(t, "workspace", "create", "--url", u, "--from-snapshot", file, "--quiet").must(t, 0).stdout)
	if now, want := clockNow(t, srv, copied), clockNow(t, srv, ws); now != want {
		t.Fatalf("the copy's clock is at %s, the original's at %s", now, want)
	}
}
