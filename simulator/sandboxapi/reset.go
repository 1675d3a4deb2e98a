package sandboxapi

import "net/http"

// handleReset answers POST /_sandbox/reset: every record dropped, the
// fixtures seeded again. The route is exclusive: it runs once the requests in
// flight are done, and requests that arrive meanwhile wait for it.
func (cp *ControlPlane) handleReset(r *http.Request) (any, error) {
	if err := cp.sb(r.Context()).Reset(r.Context()); err != nil {
		return nil, err
	}
	return map[string]string{"status": "reset"}, nil
}
