package sandboxapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// TestSandboxSettings_CashInWebhook: the account setting takes RECEIVE,
// CashIn and default, and refuses anything else naming the field.
func TestSandboxSettings_CashInWebhook(t *testing.T) {
	fs := apitest.NewFuzzServer(t)
	path := fmt.Sprintf("/_sandbox/accounts/%d/settings", fs.Env.Fixtures.Accounts[0].ID)
	for _, v := range []string{"CashIn", "RECEIVE", "default"} {
		a := fs.Serve(t, apitest.Request{Method: "PUT", Path: path, Body: `{"cashInWebhook":"` + v + `"}`})
		if a.Status != http.StatusOK || a.Body["cashInWebhook"] != v {
			t.Fatalf("%s: %d %s", v, a.Status, a.Raw)
		}
	}
	a := fs.Serve(t, apitest.Request{Method: "PUT", Path: path, Body: `{"cashInWebhook":"receive"}`})
	if msg, _ := a.Body["message"].(string); a.Status != http.StatusBadRequest || !strings.HasPrefix(msg, "cashInWebhook must be") {
		t.Fatalf("bad value: %d %s", a.Status, a.Raw)
	}
	a = fs.Serve(t, apitest.Request{Method: "GET", Path: path})
	if a.Body["cashInWebhook"] != "default" || a.Body["minExpirationTime"] != float64(30) {
		t.Fatalf("defaults: %s", a.Raw)
	}
}
