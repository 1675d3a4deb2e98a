package sandboxapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
)

// handleReset answers POST /_sandbox/reset: every record dropped, the
// fixtures seeded again, the workspace's network fault rules cleared. The
// route is exclusive: it runs once the requests in flight are done, and
// requests that arrive meanwhile wait for it.
func (cp *ControlPlane) handleReset(r *http.Request) (any, error) {
	if err := cp.sb(r.Context()).Reset(r.Context()); err != nil {
		return nil, err
	}
	cp.srv.Faults().Clear(httpapi.WorkspaceOf(r))
	return map[string]string{"status": "reset"}, nil
}
