package sandboxapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// Workspaces (docs/workspaces.md): POST and GET /_sandbox/workspaces, GET and
// DELETE /_sandbox/workspaces/{workspace}; every other control route also
// answers under /_sandbox/workspaces/{workspace}/ (scopedRoutes).

// workspacePrefix is the path of a workspace's control routes.
const workspacePrefix = "/_sandbox/workspaces/{workspace}"

// workspaceRoutes are the workspace routes, and a copy of every other
// control route under workspacePrefix.
func (cp *ControlPlane) workspaceRoutes(rts []*httpapi.Route) []*httpapi.Route {
	out := []*httpapi.Route{
		{Name: "sandbox.workspaces.create", Method: http.MethodPost, Path: "/_sandbox/workspaces", Success: http.StatusCreated, ServerWide: true, Handle: cp.handleWorkspaceCreate, BodyLimit: cp.snapshotLimit()},
		{Name: "sandbox.workspaces.snapshot", Method: http.MethodGet, Path: "/_sandbox/workspaces/{workspace}/snapshot", Success: http.StatusOK, Handle: cp.handleWorkspaceSnapshot},
		{Name: "sandbox.workspaces.list", Method: http.MethodGet, Path: "/_sandbox/workspaces", Success: http.StatusOK, ServerWide: true, Handle: cp.handleWorkspaceList},
		{Name: "sandbox.workspaces.get", Method: http.MethodGet, Path: "/_sandbox/workspaces/{workspace}", Success: http.StatusOK, Handle: cp.handleWorkspaceGet},
		{Name: "sandbox.workspaces.delete", Method: http.MethodDelete, Path: "/_sandbox/workspaces/{workspace}", Success: http.StatusOK, Handle: cp.handleWorkspaceDelete},
	}
	for _, rt := range rts {
		c := *rt
		c.Name = strings.Replace(rt.Name, "sandbox.", "sandbox.workspace.", 1)
		c.Path = workspacePrefix + strings.TrimPrefix(rt.Path, "/_sandbox")
		out = append(out, &c)
	}
	return out
}

// ScopedPath reports whether path is a control route's copy under a
// workspace, and the unscoped route's path (the OpenAPI document lists the
// unscoped routes once, with the workspace routes: openapi_test.go).
func ScopedPath(path string) (unscoped string, ok bool) {
	rest, ok := strings.CutPrefix(path, workspacePrefix+"/")
	if !ok {
		return "", false
	}
	return "/_sandbox/" + rest, true
}

type workspaceClockDTO struct {
	Mode string `json:"mode"`
	Now  string `json:"now"`
}

type workspaceDTO struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Clock      workspaceClockDTO `json:"clock"`
	Accounts   int               `json:"accountCount"`
	TTL        string            `json:"ttl"`
	CreatedAt  string            `json:"createdAt"`
	LastUsedAt string            `json:"lastUsedAt"`
	ExpiresAt  *string           `json:"expiresAt"`
}

type createdWorkspaceDTO struct {
	workspaceDTO
	Accounts   []createdAccountDTO `json:"accounts"`
	AdminToken string              `json:"adminToken"`
}

func newWorkspaceDTO(w pix.WorkspaceInfo) workspaceDTO {
	d := workspaceDTO{ID: w.ID, Name: w.Name, Clock: workspaceClockDTO{Mode: w.ClockMode, Now: wire.Time(w.Now)},
		Accounts: w.Accounts, TTL: w.TTL.String(), CreatedAt: wire.Time(w.CreatedAt), LastUsedAt: wire.Time(w.LastUsedAt)}
	if !w.ExpiresAt.IsZero() {
		s := wire.Time(w.ExpiresAt)
		d.ExpiresAt = &s
	}
	return d
}

// DefaultSnapshotLimit is the largest body of a creation when SnapshotLimit
// is not set.
const DefaultSnapshotLimit = 64 << 20

func (cp *ControlPlane) snapshotLimit() int64 {
	if cp.SnapshotLimit > 0 {
		return cp.SnapshotLimit
	}
	return DefaultSnapshotLimit
}

// workspaceRequest is a creation's body but its snapshot.
type workspaceRequest struct {
	Name       *string            `json:"name"`
	Clock      *string            `json:"clock"`
	ClockStart *string            `json:"clockStart"`
	Seed       *strictjson.Number `json:"seed"`
	Accounts   any                `json:"accounts"`
	TTL        *string            `json:"ttl"`
}

// readWorkspaceRequest reads a creation's body (up to the snapshot limit):
// its fields strictly, its snapshot as raw JSON for the workspace package.
func (cp *ControlPlane) readWorkspaceRequest(r *http.Request) (workspaceRequest, json.RawMessage, error) {
	var req workspaceRequest
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return req, nil, &pix.Error{Kind: pix.KindTooLarge, Code: pix.CodeInvalidRequest,
			Message:    fmt.Sprintf("request body exceeds %d bytes (--max-snapshot-bytes)", cp.snapshotLimit()),
			Violations: []pix.Violation{{Field: "body", Message: "too large"}}}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return req, nil, nil // every default
	}
	var top map[string]json.RawMessage
	var snapshot json.RawMessage
	if json.Unmarshal(data, &top) == nil {
		if s, ok := top["snapshot"]; ok && string(s) != "null" {
			snapshot = s
			delete(top, "snapshot")
			data, _ = json.Marshal(top)
		}
	}
	if vs := strictjson.Decode(data, &req); len(vs) > 0 {
		return req, nil, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return req, snapshot, nil
}

func (cp *ControlPlane) handleWorkspaceCreate(r *http.Request) (any, error) {
	req, snapshot, err := cp.readWorkspaceRequest(r)
	if err != nil {
		return nil, err
	}
	in := pix.NewWorkspace{Name: text(req.Name), Clock: text(req.Clock)}
	if req.ClockStart != nil {
		t, err := parseTime(*req.ClockStart, "clockStart")
		if err != nil {
			return nil, err
		}
		in.ClockStart = t
	}
	if req.Seed != nil {
		n, err := strconv.ParseUint(req.Seed.String(), 10, 64)
		if err != nil {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "seed", Message: "must be a whole number from 0 to 18446744073709551615"})
		}
		in.Seed, in.HasSeed = n, true
	}
	switch v := req.Accounts.(type) {
	case nil:
	case string:
		in.Accounts = v
	case json.Number:
		n, err := strconv.Atoi(v.String())
		if err != nil {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "accounts", Message: `must be a whole number, "fixtures" or "none"`})
		}
		in.AccountCount = n
		if n == 0 {
			in.Accounts = "none"
		}
	default:
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "accounts", Message: `must be a whole number, "fixtures" or "none"`})
	}
	if req.TTL != nil {
		d, err := time.ParseDuration(*req.TTL)
		if err != nil || d < 0 {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "ttl", Message: `must be a duration such as "24h", "90m" or "0" (never expires)`})
		}
		in.TTL, in.HasTTL = d, true
	}
	var out pix.CreatedWorkspace
	if snapshot != nil {
		if req.Clock != nil || req.ClockStart != nil || req.Seed != nil || req.Accounts != nil {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "snapshot",
				Message: "brings its own clock, seed and accounts: send only name and ttl beside it"})
		}
		out, err = cp.spaces.CreateFromSnapshot(r.Context(), in, snapshot)
	} else {
		out, err = cp.spaces.CreateWorkspace(r.Context(), in)
	}
	if err != nil {
		return nil, err
	}
	d := createdWorkspaceDTO{workspaceDTO: newWorkspaceDTO(out.Info), AdminToken: out.AdminToken, Accounts: []createdAccountDTO{}}
	for _, a := range out.Accounts {
		d.Accounts = append(d.Accounts, createdAccountDTO{
			accountDTO: newAccountDTO(a.Account), ClientID: a.ClientID, ClientSecret: a.ClientSecret,
			Certificate: string(a.Certificate.CertificatePEM), PrivateKey: string(a.Certificate.PrivateKeyPEM),
			Balance: wire.Money(a.Balance),
		})
	}
	return d, nil
}

// handleWorkspaceSnapshot serves GET /_sandbox/workspaces/{workspace}/snapshot:
// the workspace as one document ("default" exports the default workspace).
func (cp *ControlPlane) handleWorkspaceSnapshot(r *http.Request) (any, error) {
	return cp.spaces.Snapshot(r.Context(), pix.WorkspaceOf(r.Context()))
}

func (cp *ControlPlane) handleWorkspaceList(r *http.Request) (any, error) {
	q := r.URL.Query()
	page, size := 1, 50
	var vs []pix.Violation
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			vs = append(vs, pix.Violation{Field: "page", Message: "must be a whole number from 1"})
		}
		page = n
	}
	if v := q.Get("size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			vs = append(vs, pix.Violation{Field: "size", Message: "must be a whole number from 1 to 500"})
		}
		size = n
	}
	if len(vs) > 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	list, total := cp.spaces.Workspaces(r.Context(), page, size)
	data := make([]workspaceDTO, 0, len(list))
	for _, w := range list {
		data = append(data, newWorkspaceDTO(w))
	}
	pages := (total + size - 1) / size
	return map[string]any{"data": data, "metadata": map[string]any{"page": page, "size": size, "total": total,
		"totalPages": pages, "hasNext": page < pages, "hasPrevious": page > 1}}, nil
}

// scopedWorkspace returns the workspace a /_sandbox/workspaces/{workspace}
// route names; the default workspace is not one of the listed ones.
func scopedWorkspace(r *http.Request) (string, error) {
	id := pix.WorkspaceOf(r.Context())
	if id == "" {
		return "", pix.Errorf(pix.KindInvalid, pix.CodeInvalidRequest,
			"the default workspace cannot be read or deleted as a workspace: use the unscoped /_sandbox routes (POST /_sandbox/reset)")
	}
	return id, nil
}

func (cp *ControlPlane) handleWorkspaceGet(r *http.Request) (any, error) {
	id, err := scopedWorkspace(r)
	if err != nil {
		return nil, err
	}
	w, err := cp.spaces.Workspace(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return newWorkspaceDTO(w), nil
}

func (cp *ControlPlane) handleWorkspaceDelete(r *http.Request) (any, error) {
	id, err := scopedWorkspace(r)
	if err != nil {
		return nil, err
	}
	if err := cp.spaces.DeleteWorkspace(r.Context(), id); err != nil {
		return nil, err
	}
	cp.dropWorkspaceListeners(id)
	return map[string]any{"id": id, "deleted": true}, nil
}

// dropWorkspaceListeners ends the listeners of a deleted workspace (their
// targets went with it).
func (cp *ControlPlane) dropWorkspaceListeners(id string) {
	ls := cp.listeners
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for lid, l := range ls.byID {
		if l.workspace == id {
			l.timer.Stop()
			delete(ls.byID, lid)
		}
	}
}
