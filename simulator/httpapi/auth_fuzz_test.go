package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// tokenCodes are the codes the token route may answer with, by status.
var tokenCodes = map[string]int{
	"PUB_CERT_HEADER_MISSING": 400, "PUB_CERT_MALFORMED_PEM": 400, "PUB_REQUEST_BODY_INVALID": 400,
	"PUB_CERT_NOT_YET_VALID": 401, "PUB_CERT_EXPIRED": 401, "PUB_CERT_NOT_REGISTERED": 401,
	"PUB_INVALID_CREDENTIALS": 401, "PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT": 403,
}

// FuzzTokenRequest sends arbitrary bodies, certificate headers and content types
// to POST /api/auth/token: it never answers 5xx, always in the token error shape
// with a documented code and status, and 201 only with a well-formed token.
func FuzzTokenRequest(f *testing.F) {
	env := simulatortest.New(f, simulatortest.Options{})
	a := env.Fixtures.Accounts[0]
	pemBytes, _ := env.Fixtures.ReadFile(a.Certificate)
	good := pix.EncodeCertHeader(pemBytes)
	f.Add(`{"clientId":"`+a.ClientID+`","clientSecret":"`+a.ClientSecret+`"}`, good, "application/json")
	f.Add(`{"clientId":123}`, good, "application/json")
	f.Add(`{"clientId":"`+a.ClientID, good, "")
	f.Add(`[]`, "", "text/plain")
	f.Add(`{"clientId":"x","clientSecret":"y"}`, "%zz", "application/json; charset=utf-8")
	f.Add("\x00\xff", "-----BEGIN CERTIFICATE-----", "application/problem+json")
	f.Fuzz(func(t *testing.T, body, cert, contentType string) {
		req := httptest.NewRequest(http.MethodPost, "/api/auth/token", bytes.NewBufferString(body))
		if cert != "" {
			req.Header.Set("X-SSL-Client-Cert", cert)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		env.Server.Config.Handler.ServeHTTP(rec, req)
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("status %d, body not JSON: %q", rec.Code, rec.Body.String())
		}
		if rec.Code == http.StatusCreated {
			if got["token_type"] != "Bearer" || got["access_token"] == "" {
				t.Fatalf("bad 201 body: %v", got)
			}
			return
		}
		code, _ := got["code"].(string)
		want, ok := tokenCodes[code]
		if !ok || want != rec.Code && !(rec.Code == 413 && code == "PUB_REQUEST_BODY_INVALID") {
			t.Fatalf("status %d with code %q: %v", rec.Code, code, got)
		}
	})
}
