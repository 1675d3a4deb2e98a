package main

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

// spaceEngine is the store's side of workspaces for workspace.Manager.
type spaceEngine struct{ *badgerstore.Store }

func (e spaceEngine) Space(id string) storage.Store { return e.Store.Space(id) }

func (spaceEngine) CheckRecord(key string, val []byte) error {
	return badgerstore.CheckRecord(key, val)
}

// workspaces serves the transport and the control plane from a
// workspace.Manager.
type workspaces struct{ m *workspace.Manager }

var (
	_ httpapi.Workspaces    = workspaces{}
	_ sandboxapi.Workspaces = workspaces{}
)

func (w workspaces) Acquire(id string) (httpapi.Services, func(), bool) {
	sim, release, ok := w.m.Acquire(id)
	if !ok {
		return nil, nil, false
	}
	return sim, release, true
}

func (w workspaces) Sandbox(id string) (sandboxapi.Sandbox, bool) {
	sim, ok := w.m.Simulator(id)
	if !ok {
		return nil, false
	}
	return sim, true
}

func (w workspaces) TokenWorkspace(token string) string { return w.m.TokenWorkspace(token) }
func (w workspaces) ClientWorkspaces(ctx context.Context, clientID string) []string {
	return w.m.ClientWorkspaces(ctx, clientID)
}
func (w workspaces) AdminToken(id string) string { return w.m.AdminToken(id) }
func (w workspaces) CreateWorkspace(ctx context.Context, in pix.NewWorkspace) (pix.CreatedWorkspace, error) {
	return w.m.Create(ctx, in)
}
func (w workspaces) Workspace(ctx context.Context, id string) (pix.WorkspaceInfo, error) {
	return w.m.Info(ctx, id)
}
func (w workspaces) Workspaces(ctx context.Context, page, size int) ([]pix.WorkspaceInfo, int) {
	return w.m.List(ctx, page, size)
}
func (w workspaces) DeleteWorkspace(ctx context.Context, id string) error { return w.m.Delete(ctx, id) }
func (w workspaces) Snapshot(ctx context.Context, id string) (any, error) {
	return w.m.Snapshot(ctx, id)
}
func (w workspaces) CreateFromSnapshot(ctx context.Context, in pix.NewWorkspace, snapshot []byte) (pix.CreatedWorkspace, error) {
	var s workspace.Snapshot
	if err := json.Unmarshal(snapshot, &s); err != nil {
		return pix.CreatedWorkspace{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "snapshot", Message: "is not a snapshot document: " + err.Error()})
	}
	return w.m.CreateFromSnapshot(ctx, in, s)
}
