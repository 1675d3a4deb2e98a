package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzMEDListQuery fuzzes the GET /api/med query: every invalid parameter is a
// 400 naming it.
func FuzzMEDListQuery(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	for _, q := range []string{"", "status=OPEN&isReconciled=true&startDate=2026-03-01&endDate=2026-03-02T23:00:00Z&page=2&pageSize=100",
		"status=FOO", "isReconciled=1", "startDate=yesterday", "endDate=2026-13-01", "page=0", "page=x", "pageSize=101",
		"page=99999999999999999999", "pageSize=%zz", "page=+1", "startDate=2026-03-02T00:00:00+25:00", "status=OPEN&status=FOO"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		rq := apitest.Request{Method: http.MethodGet, Path: "/api/med", Query: query, Auth: true}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "status", "isReconciled", "startDate", "endDate", "page", "pageSize")
	})
}
