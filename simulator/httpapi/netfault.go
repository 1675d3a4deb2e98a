package httpapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/netfault"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Network faults on demand (package netfault, docs/faults.md): the wrapper
// asks the server's rules which fault a request of a contract route gets
// once its account is known, under the request lock, and applies it once the
// lock is released, so that a held request never keeps POST /_sandbox/reset
// (or any request queued behind it) waiting. The control plane, /healthz,
// /metrics and unmatched requests are never faulted.

// initFaults takes the server's fault rules (a new set when cfg has none)
// and tells them the routes they may name: the contract's, not /healthz.
func (s *Server) initFaults(rules *netfault.Rules) {
	if rules == nil {
		rules = netfault.NewRules()
	}
	s.faults = rules
	var routes []netfault.Route
	for _, rt := range s.routes {
		rt.faultable = !rt.Admin && rt.Path != "/healthz"
		if rt.faultable {
			routes = append(routes, netfault.Route{Method: rt.Method, Path: rt.Path})
		}
	}
	rules.SetRoutes(routes)
}

// Faults are the server's network fault rules, which the control plane
// manages (GET, POST and DELETE /_sandbox/faults).
func (s *Server) Faults() *netfault.Rules { return s.faults }

// Close ends the holds of network faults at once: a delayed or trickled
// answer is sent whole, a timeout's connection closed. Call it when the HTTP
// server shuts down (http.Server.RegisterOnShutdown; before
// httptest.Server.Close), which otherwise waits for the clients of held
// requests to give up.
func (s *Server) Close() { s.faults.Stop() }

// faultOf returns the network fault a request of rt gets, nil for none: its
// X-Sandbox-Fault header's (400 naming the header when it is not a fault),
// else the first rule of its workspace that matches and fires. r carries its
// account once authenticated.
// Without the header and with no rule in any workspace it costs a map
// lookup and an atomic load.
func (s *Server) faultOf(rt *Route, r *http.Request) (*netfault.Applied, error) {
	header := r.Header[netfault.Header]
	if !rt.faultable || len(header) == 0 && s.faults.Empty() {
		return nil, nil
	}
	a, ok, err := s.faults.For(header, pix.WorkspaceOf(r.Context()), r.Method, rt.Path, int64(accountOf(r)))
	if err != nil || !ok {
		return nil, err
	}
	return &a, nil
}

// applyFault applies fa once the request lock is released: an in-place
// fault instead of the route, another to the answer the route left in the
// Held that serve put under rec. false: close the connection without an
// answer (the wrapper records the request first).
func (s *Server) applyFault(rec *statusRecorder, r *http.Request, fa *netfault.Applied) bool {
	if fa.Fault.InPlace() {
		return netfault.Answer(fa.Fault, rec, r, s.faults.Stopping())
	}
	held, ok := rec.ResponseWriter.(*netfault.Held)
	return ok && held.Release(fa.Fault, r, s.faults.Stopping())
}
