package sandboxclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// The workspace routes (docs/workspaces.md): POST and GET /_sandbox/workspaces,
// GET and DELETE /_sandbox/workspaces/{id}, GET .../{id}/snapshot.

// workspacesPath is the collection of workspaces.
const workspacesPath = "/_sandbox/workspaces"

// workspacePath is the path of workspace id's routes.
func workspacePath(id string) string { return workspacesPath + "/" + url.PathEscape(id) }

// errNoWorkspace refuses a call without a workspace id (the path would name
// the collection instead).
var errNoWorkspace = errors.New("a workspace id is required")

// NewWorkspace is the body of POST /_sandbox/workspaces; a zero field takes
// the server's default.
type NewWorkspace struct {
	Name       string  `json:"name,omitempty"`
	Clock      string  `json:"clock,omitempty"`      // virtual or real
	ClockStart string  `json:"clockStart,omitempty"` // RFC 3339
	Seed       *uint64 `json:"seed,omitempty"`
	// Accounts is a number of new accounts (an integer or a json.Number),
	// "fixtures" or "none".
	Accounts any    `json:"accounts,omitempty"`
	TTL      string `json:"ttl,omitempty"` // a Go duration; "0" never expires
	// Snapshot is a document of GET /_sandbox/workspaces/{id}/snapshot, sent
	// as read: the new workspace is a copy of that one.
	Snapshot json.RawMessage `json:"snapshot,omitempty"`
}

// WorkspaceClock is a workspace's clock.
type WorkspaceClock struct {
	Mode string `json:"mode"`
	Now  string `json:"now"`
}

// Workspace is what the server tells of a workspace.
type Workspace struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Clock        WorkspaceClock `json:"clock"`
	AccountCount int            `json:"accountCount"`
	TTL          string         `json:"ttl"` // a Go duration; "0s" never expires
	CreatedAt    string         `json:"createdAt"`
	LastUsedAt   string         `json:"lastUsedAt"`
	ExpiresAt    *string        `json:"expiresAt"` // nil: never
}

// WorkspaceAccount is an account of a new workspace, with its credentials
// (returned once).
type WorkspaceAccount struct {
	ID            json.Number `json:"id"`
	Name          string      `json:"name"`
	Document      string      `json:"document"`
	Branch        string      `json:"branch"`
	AccountNumber string      `json:"accountNumber"`
	PixKeys       []struct {
		Type string `json:"type"`
		Key  string `json:"key"`
	} `json:"pixKeys"`
	ClientID     string      `json:"clientId"`
	ClientSecret string      `json:"clientSecret"`
	Certificate  string      `json:"certificate"` // PEM
	PrivateKey   string      `json:"privateKey"`  // PEM
	Balance      json.Number `json:"balance"`
}

// CreatedWorkspace is the answer of POST /_sandbox/workspaces.
type CreatedWorkspace struct {
	Workspace
	Accounts   []WorkspaceAccount `json:"accounts"`
	AdminToken string             `json:"adminToken"`
}

// PageMetadata is the metadata of a paged list.
type PageMetadata struct {
	Page        int  `json:"page"`
	Size        int  `json:"size"`
	Total       int  `json:"total"`
	TotalPages  int  `json:"totalPages"`
	HasNext     bool `json:"hasNext"`
	HasPrevious bool `json:"hasPrevious"`
}

// WorkspacePage is a page of GET /_sandbox/workspaces, oldest first.
type WorkspacePage struct {
	Data     []Workspace  `json:"data"`
	Metadata PageMetadata `json:"metadata"`
}

// CreateWorkspace creates a workspace (POST /_sandbox/workspaces).
func (c *Client) CreateWorkspace(ctx context.Context, in NewWorkspace) (CreatedWorkspace, *Response, error) {
	var out CreatedWorkspace
	r, err := c.CallJSON(ctx, http.MethodPost, workspacesPath, in, nil, &out, http.StatusCreated)
	return out, r, err
}

// Workspaces lists a page of the workspaces (GET /_sandbox/workspaces); page
// and size 0 take the server's defaults.
func (c *Client) Workspaces(ctx context.Context, page, size int) (WorkspacePage, *Response, error) {
	q := url.Values{}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if size > 0 {
		q.Set("size", strconv.Itoa(size))
	}
	p := workspacesPath
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var out WorkspacePage
	r, err := c.CallJSON(ctx, http.MethodGet, p, nil, nil, &out, http.StatusOK)
	return out, r, err
}

// Workspace reads a workspace (GET /_sandbox/workspaces/{id}).
func (c *Client) Workspace(ctx context.Context, id string) (Workspace, *Response, error) {
	var out Workspace
	if id == "" {
		return out, nil, errNoWorkspace
	}
	r, err := c.CallJSON(ctx, http.MethodGet, workspacePath(id), nil, nil, &out, http.StatusOK)
	return out, r, err
}

// DeleteWorkspace deletes a workspace and everything in it (DELETE
// /_sandbox/workspaces/{id}).
func (c *Client) DeleteWorkspace(ctx context.Context, id string) (*Response, error) {
	if id == "" {
		return nil, errNoWorkspace
	}
	return c.Call(ctx, http.MethodDelete, workspacePath(id), nil, nil, http.StatusOK)
}

// Snapshot reads a workspace as one JSON document (GET
// /_sandbox/workspaces/{id}/snapshot), the Response's Body, which
// NewWorkspace.Snapshot takes back.
func (c *Client) Snapshot(ctx context.Context, id string) (*Response, error) {
	if id == "" {
		return nil, errNoWorkspace
	}
	r, err := c.Call(ctx, http.MethodGet, workspacePath(id)+"/snapshot", nil, nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	if !json.Valid(r.Body) {
		return nil, fmt.Errorf("%s %s answered %d with a body that is not JSON: %s", r.Method, r.Path, r.Status, Excerpt(r.Body))
	}
	return r, nil
}
