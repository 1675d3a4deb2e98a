package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// listingFields are the query parameters of both transaction listings.
var listingFields = []string{"page", "size", "status", "type", "startDate", "endDate"}

// listingSeeds are queries of both transaction listings.
var listingSeeds = []string{"", "page=1&size=10", "status=CONFIRMED&type=CASH_OUT", "startDate=2026-03-01&endDate=2026-03-02",
	"startDate=2026-01-01", "endDate=2020-01-01", "startDate=2026-03-02T12:00:00Z&endDate=2026-03-01", "size=0", "size=1001",
	"page=-1", "page=9223372036854775807&size=100", "endDate=0001-01-01", "startDate=9999-12-31T23:59:59Z", "externalId=x&endToEndId=y",
	"status=%ff", "type=", "endDate=2026-03-02T10:00:00-03:00"}

// FuzzTransactionsListQuery fuzzes the GET /api/transactions query.
func FuzzTransactionsListQuery(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	for _, q := range listingSeeds {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		rq := apitest.Request{Method: http.MethodGet, Path: "/api/transactions", Query: query, Auth: true}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, listingFields...)
	})
}

// FuzzTransactionsByKeyRequest fuzzes GET /api/pix/transactions/pix-key/{pixKey}:
// the path key and the query.
func FuzzTransactionsByKeyRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	keys := []string{"52998224725", "+5511987654321", "pix@bcb.gov.br", "123e4567-e89b-12d3-a456-426614174000", "", "x", "a/b", "%2B5511987654321"}
	for i, q := range listingSeeds {
		f.Add(keys[i%len(keys)], q)
	}
	f.Fuzz(func(t *testing.T, key, query string) {
		rq := apitest.Request{Method: http.MethodGet, Path: "/api/pix/transactions/pix-key/" + key, Query: query, Auth: true}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, append([]string{"pixKey"}, listingFields...)...)
	})
}
