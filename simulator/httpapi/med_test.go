package httpapi_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

func TestMEDList_Parameters(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	h := map[string]string{"Authorization": "Bearer " + apitest.TokenFor(t, env, 0)}
	for q, field := range map[string]string{
		"status=FOO": "status", "isReconciled=maybe": "isReconciled", "isReconciled=1": "isReconciled",
		"startDate=yesterday": "startDate", "endDate=2026-13-01": "endDate", "page=0": "page", "page=x": "page",
		"pageSize=0": "pageSize", "pageSize=101": "pageSize",
	} {
		r := apitest.Do(t, "GET", env.URL+"/api/med?"+q, nil, h)
		if r.Status != 400 || len(r.Body) != 3 || !strings.HasPrefix(r.Body["message"].(string), field) {
			t.Errorf("?%s = %d %s", q, r.Status, r.Raw)
		}
	}
	r := apitest.Do(t, "GET", env.URL+"/api/med?status=OPEN&isReconciled=true&startDate=2026-03-01&endDate=2026-03-02T23:00:00Z&page=2&pageSize=100", nil, h)
	if r.Status != 200 || !strings.Contains(string(r.Raw), `"metadata":{"page":2,"pageSize":100,"total":0,"totalPages":0}`) {
		t.Fatalf("valid query = %d %s", r.Status, r.Raw)
	}
	// The rate limit: 60 a minute by default (the query above was the first;
	// invalid requests are refused before they count), then 429 with Retry-After.
	var last apitest.Result
	for i := 0; i < 59; i++ {
		last = apitest.Do(t, "GET", env.URL+"/api/med", nil, h)
	}
	if last.Status != 200 {
		t.Fatalf("request 60 of the minute: %d", last.Status)
	}
	last = apitest.Do(t, "GET", env.URL+"/api/med", nil, h)
	if last.Status != 429 || last.Header.Get("Retry-After") == "" || last.Body["error"] != "Too Many Requests" {
		t.Fatalf("over the limit: %d %v %s", last.Status, last.Header, last.Raw)
	}
}
