// Package wiring connects a server's workspaces (simulator/workspace) to its
// store (simulator/badgerstore), its transport (simulator/httpapi) and its
// control plane (simulator/sandboxapi): the adapters `pixsandbox serve` and
// the embeddable sandbox (simulator/sandboxtest) assemble a server with.
package wiring

import (
	"context"
	"encoding/json"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxapi"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/workspace"
)

// SpaceEngine is the store's side of workspaces for workspace.Manager: the
// badgerstore of the server, each workspace a slice of it.
type SpaceEngine struct{ *badgerstore.Store }

func (e SpaceEngine) Space(id string) storage.Store { return e.Store.Space(id) }

func (SpaceEngine) CheckRecord(key string, val []byte) error {
	return badgerstore.CheckRecord(key, val)
}

// Workspaces serves the transport (httpapi.Workspaces) and the control plane
// (sandboxapi.Workspaces) from a workspace.Manager.
type Workspaces struct{ M *workspace.Manager }

var (
	_ httpapi.Workspaces    = Workspaces{}
	_ sandboxapi.Workspaces = Workspaces{}
)

func (w Workspaces) Acquire(id string) (httpapi.Services, func(), bool) {
	sim, release, ok := w.M.Acquire(id)
	if !ok {
		return nil, nil, false
	}
	return sim, release, true
}

func (w Workspaces) Sandbox(id string) (sandboxapi.Sandbox, bool) {
	sim, ok := w.M.Simulator(id)
	if !ok {
		return nil, false
	}
	return sim, true
}

func (w Workspaces) TokenWorkspace(token string) string { return w.M.TokenWorkspace(token) }
func (w Workspaces) ClientWorkspaces(ctx context.Context, clientID string) []string {
	return w.M.ClientWorkspaces(ctx, clientID)
}
func (w Workspaces) AdminToken(id string) string { return w.M.AdminToken(id) }
func (w Workspaces) CreateWorkspace(ctx context.Context, in pix.NewWorkspace) (pix.CreatedWorkspace, error) {
	return w.M.Create(ctx, in)
}
func (w Workspaces) Workspace(ctx context.Context, id string) (pix.WorkspaceInfo, error) {
	return w.M.Info(ctx, id)
}
func (w Workspaces) Workspaces(ctx context.Context, page, size int) ([]pix.WorkspaceInfo, int) {
	return w.M.List(ctx, page, size)
}
func (w Workspaces) DeleteWorkspace(ctx context.Context, id string) error { return w.M.Delete(ctx, id) }
func (w Workspaces) Snapshot(ctx context.Context, id string) (any, error) {
	return w.M.Snapshot(ctx, id)
}
func (w Workspaces) CreateFromSnapshot(ctx context.Context, in pix.NewWorkspace, snapshot []byte) (pix.CreatedWorkspace, error) {
	var s workspace.Snapshot
	if err := json.Unmarshal(snapshot, &s); err != nil {
		return pix.CreatedWorkspace{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "snapshot", Message: "is not a snapshot document: " + err.Error()})
	}
	return w.M.CreateFromSnapshot(ctx, in, s)
}
