package sandboxclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

const wsID = "3f2b6c1e-8d4a-4b7e-9c2d-1a2b3c4d5e6f"

func TestTypedCalls_Workspaces(t *testing.T) {
	c, got := serve(t, http.StatusOK, `{}`)
	ctx := context.Background()
	seed := uint64(0)
	calls := []typedCall{
		{func() error { _, _, err := c.CreateWorkspace(ctx, sandboxclient.NewWorkspace{}); return err }, "POST", "/_sandbox/workspaces", `{}`},
		{func() error {
			_, _, err := c.CreateWorkspace(ctx, sandboxclient.NewWorkspace{Name: "ci", Clock: "real", ClockStart: "2026-05-01T09:00:00Z",
				Seed: &seed, Accounts: 0, TTL: "2h0m0s"})
			return err
		}, "POST", "/_sandbox/workspaces", `{"name":"ci","clock":"real","clockStart":"2026-05-01T09:00:00Z","seed":0,"accounts":0,"ttl":"2h0m0s"}`},
		{func() error {
			_, _, err := c.CreateWorkspace(ctx, sandboxclient.NewWorkspace{Name: "copy", Snapshot: json.RawMessage(`{"v": [1, 2]}`)})
			return err
		}, "POST", "/_sandbox/workspaces", `{"name":"copy","snapshot":{"v":[1,2]}}`},
		{func() error { _, _, err := c.Workspaces(ctx, 0, 0); return err }, "GET", "/_sandbox/workspaces", ""},
		{func() error { _, _, err := c.Workspaces(ctx, 2, 10); return err }, "GET", "/_sandbox/workspaces?page=2&size=10", ""},
		{func() error { _, _, err := c.Workspace(ctx, wsID); return err }, "GET", "/_sandbox/workspaces/" + wsID, ""},
		{func() error { _, err := c.DeleteWorkspace(ctx, wsID); return err }, "DELETE", "/_sandbox/workspaces/" + wsID, ""},
		{func() error { _, err := c.Snapshot(ctx, "a/b"); return err }, "GET", "/_sandbox/workspaces/a%2Fb/snapshot", ""},
	}
	checkCalls(t, got, calls)

	// No id: no request, an error.
	if _, _, err := c.Workspace(ctx, ""); err == nil {
		t.Error("Workspace without an id")
	}
	if _, err := c.DeleteWorkspace(ctx, ""); err == nil {
		t.Error("DeleteWorkspace without an id")
	}
	if _, err := c.Snapshot(ctx, ""); err == nil {
		t.Error("Snapshot without an id")
	}
	select {
	case r := <-got:
		t.Errorf("a call without an id sent %s %s", r.method, r.path)
	default:
	}
}

func TestWorkspaceCalls_Decoding(t *testing.T) {
	ctx := context.Background()
	c, _ := serve(t, http.StatusCreated, `{"id":"`+wsID+`","name":"ci","clock":{"mode":"virtual","now":"2026-03-02T12:00:00.000Z"},
		"accountCount":1,"ttl":"24h0m0s","createdAt":"2026-01-01T00:00:00.000Z","lastUsedAt":"2026-01-01T00:00:00.000Z","expiresAt":"2026-01-02T00:00:00.000Z",
		"accounts":[{"id":1000,"name":"Ana","pixKeys":[{"type":"EVP","key":"k"}],"clientId":"cid","clientSecret":"cs","certificate":"C","privateKey":"P","balance":10.50}],
		"adminToken":"wst_1"}`)
	w, r, err := c.CreateWorkspace(ctx, sandboxclient.NewWorkspace{})
	if err != nil || r.Status != http.StatusCreated {
		t.Fatal(err)
	}
	a := w.Accounts
	if w.ID != wsID || w.Clock.Mode != "virtual" || w.AccountCount != 1 || w.ExpiresAt == nil || w.AdminToken != "wst_1" ||
		len(a) != 1 || a[0].ID.String() != "1000" || a[0].ClientSecret != "cs" || a[0].Balance.String() != "10.50" || a[0].PixKeys[0].Key != "k" {
		t.Errorf("decoded %+v", w)
	}

	l, _ := serve(t, http.StatusOK, `{"data":[{"id":"`+wsID+`","expiresAt":null}],"metadata":{"page":1,"size":50,"total":1,"totalPages":1,"hasNext":false,"hasPrevious":false}}`)
	page, _, err := l.Workspaces(ctx, 0, 0)
	if err != nil || len(page.Data) != 1 || page.Data[0].ExpiresAt != nil || page.Metadata.Total != 1 || page.Metadata.TotalPages != 1 {
		t.Errorf("list decoded %+v (%v)", page, err)
	}

	bad, _ := serve(t, http.StatusOK, `<html>`)
	if _, err := bad.Snapshot(ctx, wsID); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("a snapshot that is not JSON: %v", err)
	}
}

// TestWorkspaceHeader: a client with a workspace names it on the /_sandbox
// routes outside /_sandbox/workspaces (whose paths name theirs), not on the
// PIX API; SandboxURL gives the scoped path for curl.
func TestWorkspaceHeader(t *testing.T) {
	c, got := serve(t, http.StatusOK, `{}`)
	c.WorkspaceID = wsID
	ctx := context.Background()
	for _, tc := range []struct {
		path   string
		header bool
	}{
		{"/_sandbox/clock", true}, {"/_sandbox/listeners/lst_1/renew", true}, {"/_sandbox/requests?limit=5", true},
		{"/api/balance", false}, {"/_sandbox/workspaces", false}, {"/_sandbox/workspaces?page=2", false},
		{"/_sandbox/workspaces/" + wsID + "/snapshot", false},
	} {
		if _, err := c.Call(ctx, http.MethodGet, tc.path, nil, nil, http.StatusOK); err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if r := <-got; (r.header.Get(sandboxclient.WorkspaceHeader) == wsID) != tc.header {
			t.Errorf("%s: %s %q, want it sent %v", tc.path, sandboxclient.WorkspaceHeader, r.header.Get(sandboxclient.WorkspaceHeader), tc.header)
		}
	}

	for path, want := range map[string]string{
		"/_sandbox/transactions/7":  c.Base + "/_sandbox/workspaces/" + wsID + "/transactions/7",
		"/api/med":                  c.Base + "/api/med",
		"/_sandbox/workspaces/x/yz": c.Base + "/_sandbox/workspaces/x/yz",
	} {
		if got := c.SandboxURL(path); got != want {
			t.Errorf("SandboxURL(%q) = %q, want %q", path, got, want)
		}
	}
	c.WorkspaceID = ""
	if got := c.SandboxURL("/_sandbox/transactions/7"); got != c.Base+"/_sandbox/transactions/7" {
		t.Errorf("SandboxURL without a workspace: %q", got)
	}
}

func TestWorkspaceHints(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, body, hint string
		status           int
		workspace        string
		call             func(c *sandboxclient.Client) error
	}{
		{name: "unknown workspace", status: 404, body: `{"message":"workspace ` + wsID + ` not found"}`, workspace: wsID,
			call: func(c *sandboxclient.Client) error { _, _, err := c.Clock(ctx); return err }, hint: "No workspace has the id given with --workspace"},
		{name: "no snapshot route", status: 404, body: `{"message":"no route GET /_sandbox/workspaces/x/snapshot"}`,
			call: func(c *sandboxclient.Client) error { _, err := c.Snapshot(ctx, "x"); return err }, hint: "older than GET /_sandbox/workspaces/{id}/snapshot"},
		{name: "admin token of another workspace", status: 401, body: `{"message":"admin token required"}`, workspace: wsID,
			call: func(c *sandboxclient.Client) error { _, _, err := c.Clock(ctx); return err }, hint: "nor the workspace's own adminToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serve(t, tc.status, tc.body)
			c.WorkspaceID = tc.workspace
			err := tc.call(c)
			var he *sandboxclient.HTTPError
			if !errors.As(err, &he) || !strings.Contains(he.Hint, tc.hint) {
				t.Errorf("error %v, want the hint %q", err, tc.hint)
			}
		})
	}
}
