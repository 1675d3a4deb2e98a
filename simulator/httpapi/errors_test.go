package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// TestErrorTables: every code has a user message and every kind a status, so a
// new code or kind cannot reach a client without its wording and status.
func TestErrorTables(t *testing.T) {
	for _, c := range pix.AllCodes {
		if userMessages[c] == "" {
			t.Errorf("code %s has no default userMessage", c)
		}
	}
	for k := pix.KindInternal; k <= pix.KindUnavailableProvider; k++ {
		if kindStatus[k] == 0 {
			t.Errorf("kind %d has no status", k)
		}
	}
}

// TestWriteError_ClientClosed: a request abandoned by its client is recorded
// as 499 and logged at info, not as an internal error; a cancellation while the
// client is still there stays a 500.
func TestWriteError_ClientClosed(t *testing.T) {
	var logged bytes.Buffer
	s := &Server{log: slog.New(slog.NewTextHandler(&logged, nil))}
	rt := &Route{Path: "/api/balance"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequest(http.MethodGet, "/api/balance", nil).WithContext(ctx)
	if got := s.writeError(httptest.NewRecorder(), r, rt, fmt.Errorf("read: %w", context.Canceled)); got != statusClientClosed {
		t.Fatalf("abandoned request: status %d", got)
	}
	if strings.Contains(logged.String(), "level=ERROR") {
		t.Fatalf("abandoned request logged as an error: %s", logged.String())
	}
	live := httptest.NewRequest(http.MethodGet, "/api/balance", nil)
	if got := s.writeError(httptest.NewRecorder(), live, rt, context.Canceled); got != http.StatusInternalServerError {
		t.Fatalf("cancellation with the client present: status %d", got)
	}
}
