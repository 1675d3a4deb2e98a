package contract_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// TestJudge_RequestRules: each case breaks one request rule (the client's
// mistake) and gets a request finding of it, whatever the upstream answered.
func TestJudge_RequestRules(t *testing.T) {
	noAuth := header("Authorization", "")
	tests := []struct {
		name, rule, field string
		ex                *contract.Exchange
	}{
		{"no bearer token", "req.authorization-missing", "Authorization", exch("GET /api/med", "", 401, `{}`, noAuth)},
		{"Basic instead of Bearer", "req.authorization-missing", "Authorization", exch("GET /api/med", "", 401, `{}`, header("Authorization", "Basic dXNlcjpwYXNz"))},
		{"token request without a certificate", "req.cert-header-missing", "X-SSL-Client-Cert", exch("POST /api/auth/token", tokenReq, 400, `{}`, noAuth)},
		{"transfer without an idempotency key", "req.idempotency-key-missing", "x-idempotency-key", exch("POST /dict/pix", transferReq, 400, `{}`)},
		{"idempotency key not a UUID v4", "req.idempotency-key-format", "x-idempotency-key", exch("POST /dict/pix", transferReq, 200, transferOK, header("X-Idempotency-Key", "abc"))},
		{"idempotency key a UUID v1", "req.idempotency-key-format", "x-idempotency-key", exch("POST /dict/pix", transferReq, 200, transferOK, header("X-Idempotency-Key", "6f1c1f3e-1b7a-1c1e-9d2a-0c5b8e7f6a10"))},
		{"body as text/plain", "req.content-type", "Content-Type", exch("POST /api/pix/cash-out", cashOutReq, 400, `{}`, header("Content-Type", "text/plain"))},
		{"body not JSON", "req.body-json", "body", exch("PUT "+refundPath, `valor=10`, 400, `{}`)},
		{"no body where one is needed", "req.body-json", "body", exch("PUT "+cobPath, "", 400, `{}`)},
		{"body an array", "req.field-type", "body", exch("POST /api/pix/cash-out", `[1]`, 400, `{}`)},
		{"required field missing", "req.field-missing", "details.document", exch("POST /api/pix/cash-out", mut(cashOutReq, "details.document", ""), 400, `{}`)},
		{"field of another type", "req.field-type", "transaction.value", exch("POST /api/pix/cash-in", mut(cashInReq, "transaction.value", `"25.00"`), 400, `{}`)},
		{"amount with 3 decimals", "req.money-format", "value", exch("POST /api/pix/cash-out", mut(cashOutReq, "value", "10.505"), 400, `{}`)},
		{"valor without 2 decimals", "req.money-format", "valor.original", exch("PUT "+cobPath, mut(cobReq, "valor.original", `"15"`), 400, `{}`)},
		{"amount below 0.01", "req.value-allowed", "payment.amount", exch("POST /dict/pix", mut(transferReq, "payment.amount", "0"), 400, `{}`, idem)},
		{"natureza MED_FRAUDE sent", "req.value-allowed", "natureza", exch("PUT "+refundPath, mut(refundReq, "natureza", `"MED_FRAUDE"`), 400, `{}`)},
		{"keyType outside the enumeration", "req.value-allowed", "details.keyType", exch("POST /api/pix/cash-out", mut(cashOutReq, "details.keyType", `"CPF"`), 400, `{}`)},
		{"description over 140", "req.value-allowed", "description", exch("POST /api/pix/cash-out", mut(cashOutReq, "description", `"`+strings.Repeat("d", 141)+`"`), 400, `{}`)},
		{"expirationTime below 30", "req.value-allowed", "transaction.expirationTime", exch("POST /api/pix/cash-in", mut(cashInReq, "transaction.expirationTime", "29"), 400, `{}`)},
		{"clientId not a UUID v4", "req.value-allowed", "clientId", exch("POST /api/auth/token", mut(tokenReq, "clientId", `"client-1"`), 400, `{}`, header("X-SSL-Client-Cert", "pem"), noAuth)},
		{"document of 12 digits", "req.value-allowed", "payer.document", exch("POST /api/pix/cash-in", mut(cashInReq, "payer.document", `"123456789012"`), 400, `{}`)},
		{"webhook URL over http", "req.value-allowed", "url", exch("POST /api/webhooks", `{"url":"http://example.com","eventType":"cash_in"}`, 200, `{"success":false,"message":"m"}`)},
		{"more than 10 splits", "req.value-allowed", "splits", exch("POST /api/pix/cash-in", mut(cashInReq, "splits", `[`+strings.TrimSuffix(strings.Repeat(`{"pixKey":"k","pixKeyType":"CPF","name":"n","document":"52998224725","type":"FIXED","value":1},`, 11), ",")+`]`), 400, `{}`)},
		{"txid of 25 characters", "req.path-format", "{txid}", exch("PUT /cob/proxytxid000000000000000x", cobReq, 400, `{}`)},
		{"txid with a hyphen", "req.path-format", "{txid}", exch("PUT /cob/proxytxid-000000000000000000001", cobReq, 400, `{}`)},
		{"e2eid of 31 characters", "req.path-format", "{e2eid}", exch("PUT /pix/"+e2e[:31]+"/devolucao/r1", refundReq, 400, `{}`)},
		{"refund id of 36 characters", "req.path-format", "{id}", exch("PUT /pix/"+e2e+"/devolucao/"+strings.Repeat("r", 36), refundReq, 400, `{}`)},
		{"MED status outside the enumeration", "req.query-value", "?status", exch("GET /api/med?status=open", "", 400, `{}`)},
		{"pageSize 0", "req.query-value", "?pageSize", exch("GET /api/med?pageSize=0", "", 400, `{}`)},
		{"page not a number", "req.query-value", "?page", exch("GET /api/transactions?page=first", "", 400, `{}`)},
		{"key listing size over 1000", "req.query-value", "?size", exch("GET /api/pix/transactions/pix-key/k?size=1001", "", 400, `{}`)},
		{"startDate not ISO 8601", "req.query-value", "?startDate", exch("GET /api/transactions?startDate=02/03/2026", "", 400, `{}`)},
		{"body over the limit", "req.body-unjudged", "body", exch("POST /api/pix/cash-out", "", 413, `{}`, func(ex *contract.Exchange) { ex.ReqUnjudged = "the body is over 1 MiB" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := ofKind(contract.Judge(tt.ex), contract.KindRequest)
			if !hasFinding(fs, tt.rule, tt.field) {
				t.Fatalf("no %s finding on %q; request findings:%s", tt.rule, tt.field, describe(fs))
			}
		})
	}
}

// TestJudge_RequestAllowed: requests the contract allows raise no request finding.
func TestJudge_RequestAllowed(t *testing.T) {
	tests := []struct {
		name string
		ex   *contract.Exchange
	}{
		{"JSON with a charset", exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK, header("Content-Type", "application/json; charset=utf-8"))},
		{"a +json type", exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK, header("Content-Type", "application/vnd.pix+json"))},
		{"no Content-Type", exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK, header("Content-Type", ""))},
		{"resend without a body", exch("POST /api/resend-webhook/5", "", 200, resendOK)},
		{"unknown fields", exch("POST /api/pix/cash-out", mut(cashOutReq, "extra", "1"), 201, cashOutOK)},
		{"a date-time startDate", exch("GET /api/transactions?startDate=2026-03-01T00:00:00Z&endDate=2026-03-02", "", 200, listingOK)},
		{"a phone key with +", exch("GET /api/pix/transactions/pix-key/+5511987654321?size=1000", "", 200, listingOK)},
		{"refund id of 35 characters", exch("PUT /pix/"+e2e+"/devolucao/"+strings.Repeat("r", 35), refundReq, 201, mut(refundOK, "id", `"`+strings.Repeat("r", 35)+`"`))},
		{"a dict transfer with every field", exch("POST /dict/pix", `{"pixKey":"k","creditorDocument":"52998224725","priority":"HIGH","description":"d","expiration":10800,"payment":{"currency":"BRL","amount":0.01},"ispbDeny":["1"]}`, 200, mut(transferOK, "payment.amount", "0.01"), idem)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if fs := ofKind(contract.Judge(tt.ex), contract.KindRequest); len(fs) > 0 {
				t.Fatalf("request findings:%s", describe(fs))
			}
		})
	}
}
