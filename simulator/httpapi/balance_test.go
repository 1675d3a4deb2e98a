package httpapi_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

func TestBalanceRoutes(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	tok := apitest.TokenFor(t, env, 0)
	h := map[string]string{"Authorization": "Bearer " + tok}
	r := apitest.Do(t, "GET", env.URL+"/accounts/balances", nil, h)
	want := `{"data":[{"eventDate":"2026-03-02T12:00:00.000Z","balanceAmount":{"available":10000.00,"blocked":0.00,"overdraft":0.00}}]}`
	if r.Status != 200 || strings.TrimSpace(string(r.Raw)) != want {
		t.Fatalf("GET /accounts/balances = %d %s\nwant %s", r.Status, r.Raw, want)
	}
	for _, p := range []string{"/balance", "/api/balance"} {
		r := apitest.Do(t, "GET", env.URL+p, nil, h)
		want := `{"grossBalance":10000.00,"blockedBalance":0.00,"netBalance":10000.00,"consultedAt":"2026-03-02T12:00:00.000Z"}`
		if r.Status != 200 || strings.TrimSpace(string(r.Raw)) != want {
			t.Fatalf("GET %s = %d %s", p, r.Status, r.Raw)
		}
	}
}
