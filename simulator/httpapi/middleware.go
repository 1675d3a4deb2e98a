package httpapi

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/simulator/netfault"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxAccount
	ctxHeaders // http.Header the handler may add response headers to
)

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

// accountOf returns the authenticated account of a protected request.
func accountOf(r *http.Request) pix.AccountID {
	id, _ := r.Context().Value(ctxAccount).(pix.AccountID)
	return id
}

// statusRecorder remembers the status written and, for the request journal,
// copies the body into capture when set.
type statusRecorder struct {
	http.ResponseWriter
	status  int
	capture io.Writer
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.capture != nil {
		_, _ = s.capture.Write(b)
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Unwrap is the writer under the recorder (http.ResponseController finds
// the connection's deadlines through it).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// wrap runs a route with, in order: a request id (also the errorId of error
// bodies), panic recovery, metrics and an access log, the admin token on
// /_sandbox, the bearer token on protected routes, the network fault the
// request gets (netfault.go), then the handler; it writes the success body
// with the route's status or the error in the route's shape.
func (s *Server) wrap(rt *Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now() // wall time: request latency metric only
		reqID := uuid.NewString()
		ctx := context.WithValue(r.Context(), ctxRequestID, reqID)
		ctx = context.WithValue(ctx, ctxHeaders, w.Header())
		if rt.Path == unmatchedRoute {
			ctx = context.WithValue(ctx, ctxNearMiss, &nearMissMemo{})
		}
		r = r.WithContext(ctx)
		w.Header().Set("X-Request-Id", reqID)
		rec := &statusRecorder{ResponseWriter: w}
		r.Body = http.MaxBytesReader(rec, r.Body, max(rt.BodyLimit, maxBody)+1)
		jr := s.startJournal(rt, r, rec, start)

		var fault *netfault.Applied
		defer func() {
			p := recover()
			if p != nil && p != http.ErrAbortHandler {
				if h, ok := rec.ResponseWriter.(*netfault.Held); ok {
					rec.ResponseWriter, rec.status = h.Writer(), 0 // nothing held was sent: the 500 is
				}
				if rec.status == 0 {
					s.writeError(rec, r, rt, &pix.Error{Kind: pix.KindInternal, Code: pix.CodeInternal, Err: fmt.Errorf("panic: %v", p)})
				} else {
					s.log.Error("panic after response started", "request_id", reqID, "panic", p)
				}
			}
			d := time.Since(start)
			s.metrics.Observe(rt.Path, r.Method, rec.status, d)
			s.log.Info("request", "request_id", reqID, "method", r.Method, "route", rt.Path,
				"status", rec.status, "duration_ms", float64(d.Microseconds())/1000, "account", int64(accountOf(r)))
			s.finishJournal(jr, rt, r, rec, d, fault)
			if p == http.ErrAbortHandler {
				panic(p) // net/http closes the connection without an answer
			}
		}()

		rel := &releases{}
		defer rel.run()
		r = r.WithContext(context.WithValue(r.Context(), ctxReleases, rel))
		var err error
		if r, err = s.scope(rt, r); err != nil {
			s.writeError(rec, r, rt, err)
			return
		}
		if jr != nil && pix.WorkspaceOf(r.Context()) != "" {
			jr.workspace, jr.at = pix.WorkspaceOf(r.Context()), s.nowOf(r)
		}
		if err := s.guard(rt, r); err != nil {
			s.writeError(rec, r, rt, err)
			return
		}
		if fault = s.serve(rec, &r, rt); fault != nil && !s.applyFault(rec, r, fault) {
			panic(http.ErrAbortHandler)
		}
	})
}

// serve runs a route under the server's request lock: the bearer token, the
// network fault, the handler. It sets *rp to the request as authenticated
// (before the handler runs, so that the wrapper logs the account of a
// request whose handler panics) and returns the fault still to apply once
// the lock is released: an in-place fault (the handler did not run), or one
// that acts on the answer, which the handler then wrote to a netfault.Held
// under rec.
func (s *Server) serve(rec *statusRecorder, rp **http.Request, rt *Route) *netfault.Applied {
	r := *rp
	if rt.Exclusive {
		s.resetMu.Lock()
		defer s.resetMu.Unlock()
	} else {
		s.resetMu.RLock()
		defer s.resetMu.RUnlock()
	}
	if !rt.Public {
		id, err := s.authenticate(r)
		if err != nil {
			s.writeError(rec, r, rt, err)
			return nil
		}
		r = r.WithContext(context.WithValue(r.Context(), ctxAccount, id))
		*rp = r
	}
	if rt.Handle == nil {
		s.writeError(rec, r, rt, pix.Errorf(pix.KindNotImplemented, pix.CodeNotImplemented,
			"%s %s is part of the spec but not served by this version of pixsandbox yet", rt.Method, rt.Path))
		return nil
	}
	fault, err := s.faultOf(rt, r)
	switch {
	case err != nil:
		s.writeError(rec, r, rt, err)
		return nil
	case fault != nil && fault.Fault.InPlace():
		return fault
	case fault != nil:
		rec.ResponseWriter = netfault.Hold(rec.ResponseWriter)
	}
	body, err := rt.Handle(r)
	if err != nil {
		s.writeError(rec, r, rt, err)
		return fault
	}
	writeJSON(rec, rt.Success, body)
	return fault
}

// guard checks the admin token on the control plane when one is configured.
func (s *Server) guard(rt *Route, r *http.Request) error {
	if !rt.Admin && !((rt.Name == "notfound" || rt.Name == "methodnotallowed") && isSandboxPath(r.URL.Path)) {
		return nil
	}
	if s.adminToken == "" {
		return nil
	}
	got := r.Header.Get("X-Sandbox-Admin-Token")
	if id := pix.WorkspaceOf(r.Context()); id != "" && s.ws != nil && got != "" && !rt.ServerWide {
		// A workspace's own admin token opens that workspace's routes.
		if own := s.ws.AdminToken(id); own != "" && subtle.ConstantTimeCompare([]byte(got), []byte(own)) == 1 {
			return nil
		}
	}
	if !s.isAdminToken(got) {
		return pix.Errorf(pix.KindUnauthorized, pix.CodeAdminTokenRequired,
			"the control plane needs the header X-Sandbox-Admin-Token with the server's --admin-token")
	}
	return nil
}

// isAdminToken reports whether got is the server's admin token (compared in
// constant time).
func (s *Server) isAdminToken(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.adminToken)) == 1
}

// requireAdminToken serves h only to requests with the server's admin token
// in X-Sandbox-Admin-Token (/metrics: a scrape shows every account's
// activity); others get the control plane's 401.
func (s *Server) requireAdminToken(h http.Handler) http.Handler {
	rt := &Route{Name: "metrics", Path: "/metrics", Admin: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.isAdminToken(r.Header.Get("X-Sandbox-Admin-Token")) {
			s.writeError(w, r, rt, pix.Errorf(pix.KindUnauthorized, pix.CodeAdminTokenRequired,
				"/metrics needs the header X-Sandbox-Admin-Token with the server's --admin-token (or serve with --metrics-public)"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authenticate reads "Authorization: Bearer <token>" (scheme case-insensitive).
func (s *Server) authenticate(r *http.Request) (pix.AccountID, error) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	_, token, ok := cutBearer(h)
	if h == "" {
		return 0, pix.Errorf(pix.KindUnauthorized, pix.CodeUnauthorized, "missing Authorization: Bearer <access_token> header")
	}
	if !ok || token == "" {
		return 0, pix.Errorf(pix.KindUnauthorized, pix.CodeUnauthorized, "the Authorization header must be Bearer <access_token>")
	}
	return s.svcOf(r).Authenticate(r.Context(), strings.TrimSpace(token))
}

// cutBearer splits an Authorization header into its scheme and token, and
// reports whether the scheme is Bearer.
func cutBearer(h string) (scheme, token string, ok bool) {
	scheme, token, ok = strings.Cut(strings.TrimSpace(h), " ")
	return scheme, strings.TrimSpace(token), ok && strings.EqualFold(scheme, "Bearer")
}

// setHeader sets a response header from a handler; the wrapper applies it.
func setHeader(r *http.Request, k, v string) {
	if h, ok := r.Context().Value(ctxHeaders).(http.Header); ok {
		h.Set(k, v)
	}
}

func isSandboxPath(p string) bool { return p == "/_sandbox" || strings.HasPrefix(p, "/_sandbox/") }
