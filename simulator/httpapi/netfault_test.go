package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
)

// panicPlane mounts one public route outside the control plane (so network
// faults apply to it) whose handler panics.
type panicPlane struct{}

func (panicPlane) Mount(*httpapi.Server) ([]*httpapi.Route, []httpapi.Page) {
	return []*httpapi.Route{{Name: "test.panic", Method: http.MethodGet, Path: "/test/panic", Success: http.StatusOK, Public: true,
		Handle: func(*http.Request) (any, error) { panic("boom") }}}, nil
}

// TestNetFault_PanicUnderHeldAnswer: a route that panics while a fault holds
// its answer (delay, trickle) still answers its 500, at once; a fault that
// drops the answer (reset-after) drops it.
func TestNetFault_PanicUnderHeldAnswer(t *testing.T) {
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Config{ControlPlane: panicPlane{}}))
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for _, fault := range []string{"", "delay=1h", "trickle=1"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/test/panic", nil)
		req.Header.Set("X-Sandbox-Fault", fault)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("X-Sandbox-Fault %q: %v", fault, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(b), `"statusCode":500`) {
			t.Errorf("X-Sandbox-Fault %q: %d %s", fault, resp.StatusCode, b)
		}
	}
}
