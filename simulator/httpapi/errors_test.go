package httpapi

import (
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
