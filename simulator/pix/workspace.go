package pix

import (
	"context"
	"time"
)

// DefaultWorkspace names the workspace a server has always had: the world of
// the unscoped routes and of tokens that name no workspace.
const DefaultWorkspace = "default"

type workspaceKey struct{}

// WithWorkspace returns ctx acting on workspace id ("" or DefaultWorkspace
// for the default).
func WithWorkspace(ctx context.Context, id string) context.Context {
	if id == DefaultWorkspace {
		id = ""
	}
	return context.WithValue(ctx, workspaceKey{}, id)
}

// WorkspaceOf returns the workspace ctx acts on ("" for the default).
func WorkspaceOf(ctx context.Context) string {
	id, _ := ctx.Value(workspaceKey{}).(string)
	return id
}

// NewWorkspace asks for a workspace (POST /_sandbox/workspaces). Zero fields
// take the defaults (docs/workspaces.md).
type NewWorkspace struct {
	Name       string
	Clock      string    // "virtual" (default) or "real"
	ClockStart time.Time // the virtual clock's first instant
	Seed       uint64
	HasSeed    bool
	// Accounts is "fixtures" (default), "none", or AccountCount new accounts.
	Accounts     string
	AccountCount int
	// TTL is how long the workspace lives without a request; 0 keeps it.
	TTL    time.Duration
	HasTTL bool
}

// WorkspaceInfo describes a workspace.
type WorkspaceInfo struct {
	ID         string
	Name       string
	ClockMode  string
	Now        time.Time
	Accounts   int
	TTL        time.Duration
	CreatedAt  time.Time // wall time
	LastUsedAt time.Time // wall time
	ExpiresAt  time.Time // wall time; zero when it never expires
}

// CreatedWorkspace is a new workspace with its accounts' credentials and the
// admin token of its control routes, all returned once.
type CreatedWorkspace struct {
	Info       WorkspaceInfo
	Accounts   []CreatedAccount
	AdminToken string
}
