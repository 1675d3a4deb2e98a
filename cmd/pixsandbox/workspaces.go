package main

import (
	"context"

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

// workspaces serves the transport and the control plane from a
// workspace.Manager.
type workspaces struct{ m *workspace.Manager }

var (
	_ httpapi.Workspaces    = workspaces{}
	_ sandboxapi.Workspaces = workspaces{}
)

func (w workspaces) Services(id string) (httpapi.Services, bool) {
	sim, ok := w.m.Simulator(id)
	if !ok {
		return nil, false
	}
	return sim, true
}

func (w workspaces) Sandbox(id string) (sandboxapi.Sandbox, bool) {
	sim, ok := w.m.Simulator(id)
	if !ok {
		return nil, false
	}
	return sim, true
}

func (w workspaces) TokenWorkspace(token string) string { return w.m.TokenWorkspace(token) }
func (w workspaces) ClientWorkspace(ctx context.Context, clientID string) (string, bool) {
	return w.m.ClientWorkspace(ctx, clientID)
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
