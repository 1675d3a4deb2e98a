package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// BenchmarkTokenIssue measures POST /api/auth/token through the handler: header
// decoding, certificate parsing, the store lookups and JWT signing.
func BenchmarkTokenIssue(b *testing.B) {
	env := simulatortest.New(b, simulatortest.Options{})
	a := env.Fixtures.Accounts[0]
	pemBytes, _ := env.Fixtures.ReadFile(a.Certificate)
	cert := pix.EncodeCertHeader(pemBytes)
	body := `{"clientId":"` + a.ClientID + `","clientSecret":"` + a.ClientSecret + `"}`
	h := env.Server.Config.Handler
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/api/auth/token", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-SSL-Client-Cert", cert)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkBalanceRead measures GET /accounts/balances: token verification, one
// store read and rendering, with the request journal on as `pixsandbox serve`
// keeps it (1,000 requests).
func BenchmarkBalanceRead(b *testing.B) {
	env := simulatortest.New(b, simulatortest.Options{JournalSize: 1000})
	tok := apitest.TokenFor(b, env, 0)
	h := env.Server.Config.Handler
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodGet, "/accounts/balances", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
}
