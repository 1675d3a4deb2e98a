package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// WorkspaceHeader names the workspace an unscoped control-plane route (or a
// PIX API request, as a check) acts on.
const WorkspaceHeader = "X-Sandbox-Workspace"

// Workspaces lets one server serve many workspaces (package workspace's
// Manager): each request acts on one, named by the control plane's path
// (/_sandbox/workspaces/{workspace}/...) or WorkspaceHeader, by the token of
// a PIX API request, or by the client id of a token request. nil in
// Config.Workspaces: the one world of Config.Services.
type Workspaces interface {
	// Acquire returns workspace id's services ("" for the default), held
	// until release is called (a held workspace stays loaded).
	Acquire(id string) (svc Services, release func(), ok bool)
	// TokenWorkspace returns the workspace a bearer token names ("" for the default).
	TokenWorkspace(token string) string
	// ClientWorkspaces returns the workspaces whose accounts have a client
	// id ("" for the default): none, one, or each copy of a snapshot.
	ClientWorkspaces(ctx context.Context, clientID string) []string
	// AdminToken returns workspace id's own admin token ("" when none).
	AdminToken(id string) string
}

// ctxServices holds the Services of the request's workspace, ctxClock its
// simulation clock.
const (
	ctxServices ctxKey = 100 + iota
	ctxClock
	ctxReleases // *releases
)

// releases are what a request acquired (Workspaces.Acquire), released when
// it ends (wrap).
type releases struct{ fns []func() }

func (r *releases) run() {
	for _, f := range r.fns {
		f()
	}
}

// acquire holds workspace id's services for the rest of the request.
func (s *Server) acquire(r *http.Request, id string) (Services, bool) {
	svc, release, ok := s.ws.Acquire(id)
	if !ok {
		return nil, false
	}
	if rel, _ := r.Context().Value(ctxReleases).(*releases); rel != nil {
		rel.fns = append(rel.fns, release)
	} else {
		release()
	}
	return svc, true
}

// svcOf returns the services of the request's workspace.
func (s *Server) svcOf(r *http.Request) Services {
	if v, ok := r.Context().Value(ctxServices).(Services); ok {
		return v
	}
	return s.svc
}

// clocked is what a workspace's Services are besides: the holder of its
// simulation clock.
type clocked interface{ Clock() clock.Clock }

// nowOf is the simulation time of the request's workspace.
func (s *Server) nowOf(r *http.Request) time.Time {
	if c, ok := r.Context().Value(ctxClock).(clock.Clock); ok {
		return c.Now()
	}
	if s.clock == nil {
		return time.Time{}
	}
	return s.clock.Now()
}

// WorkspaceOf returns the workspace a routed request acts on ("" for the
// default).
func WorkspaceOf(r *http.Request) string { return pix.WorkspaceOf(r.Context()) }

// normalizeWorkspace reads a workspace id as sent: "" and "default" name the
// default workspace (""); anything else must be a UUID.
func normalizeWorkspace(id, field string) (string, error) {
	if id == "" || id == pix.DefaultWorkspace {
		return "", nil
	}
	if u, err := uuid.Parse(id); err != nil || u.String() != id {
		return "", pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field,
			Message: `must be a workspace id (a lowercase UUID) or "default"`})
	}
	return id, nil
}

// scope resolves the workspace a request acts on and puts it, with its
// services, in the request's context. A token route's workspace is its client
// id's (handleAuthToken), known only once its body is read.
func (s *Server) scope(rt *Route, r *http.Request) (*http.Request, error) {
	header, err := normalizeWorkspace(r.Header.Get(WorkspaceHeader), WorkspaceHeader)
	if err != nil {
		return r, err
	}
	id := header
	if v, ok := mux.Vars(r)["workspace"]; ok {
		if id, err = normalizeWorkspace(v, "workspace"); err != nil {
			return r, err
		}
		if r.Header.Get(WorkspaceHeader) != "" && header != id {
			return r, pix.Errorf(pix.KindForbidden, pix.CodeInvalidRequest, "%s names another workspace than the path", WorkspaceHeader)
		}
	}
	if !rt.Public && s.ws != nil {
		if tok := bearer(r); tok != "" {
			// A token that names a workspace acts there (with a header naming
			// another: 403); one that names none acts in the header's
			// workspace, which verifies it.
			tokenWS := s.ws.TokenWorkspace(tok)
			sent := r.Header.Get(WorkspaceHeader) != ""
			switch {
			case sent && tokenWS != "" && header != tokenWS:
				return r, pix.Errorf(pix.KindForbidden, pix.CodeInvalidRequest,
					"the access token belongs to another workspace than %s names", WorkspaceHeader)
			case !sent:
				id = tokenWS
			}
		}
	}
	ctx := pix.WithWorkspace(r.Context(), id)
	if id != "" {
		var svc Services
		ok := s.ws != nil
		if ok {
			svc, ok = s.acquire(r, id)
		}
		switch {
		case !ok && !rt.Public:
			return r, pix.Errorf(pix.KindUnauthorized, pix.CodeUnauthorized, "invalid token: its workspace no longer exists")
		case !ok:
			return r, pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "workspace %s not found", id)
		}
		if c, ok := svc.(clocked); ok {
			ctx = context.WithValue(ctx, ctxClock, c.Clock())
		}
		if s.wrapSvc != nil {
			svc = s.wrapSvc(svc)
		}
		ctx = context.WithValue(ctx, ctxServices, svc)
	}
	return r.WithContext(ctx), nil
}

// bearer returns the token of "Authorization: Bearer <token>", or "".
func bearer(r *http.Request) string {
	scheme, token, ok := cutBearer(r.Header.Get("Authorization"))
	if !ok || scheme == "" {
		return ""
	}
	return token
}

// tokenServices returns the services of a token request's client id: the
// workspace WorkspaceHeader names when sent (which refuses a client id it
// does not have, as any unknown one), else the one workspace that has it.
func (s *Server) tokenServices(r *http.Request, clientID string) (Services, error) {
	if s.ws == nil || clientID == "" || r.Header.Get(WorkspaceHeader) != "" {
		return s.svcOf(r), nil
	}
	ids := s.ws.ClientWorkspaces(r.Context(), clientID)
	switch {
	case len(ids) == 0:
		return s.svc, nil // the default refuses it as any unknown client id
	case len(ids) > 1:
		return nil, pix.Errorf(pix.KindUnauthorized, pix.CodePubInvalidCredentials,
			"the clientId is in %d workspaces (created from one snapshot): send %s naming one", len(ids), WorkspaceHeader)
	}
	id := ids[0]
	if id == "" {
		return s.svc, nil
	}
	if svc, ok := s.acquire(r, id); ok {
		if s.wrapSvc != nil {
			svc = s.wrapSvc(svc)
		}
		return svc, nil
	}
	return s.svc, nil
}
