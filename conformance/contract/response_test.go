package contract_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// Bodies of the answers only these tests use.
var (
	resendOK = `{"message":"sent","webhookLogId":3,"sentAt":"2026-03-02T12:00:00Z","statusCode":200}`
	tokenErr = `{"statusCode":401,"timestamp":"2026-03-02T12:00:00Z","path":"/api/auth/token","method":"POST","code":"PUB_INVALID_CREDENTIALS","message":"m","userMessage":"u","details":{"hint":"h","violations":[]},"errorId":"id1"}`
)

// validExchanges is a valid exchange of every route: each judges clean, and
// each case below breaks one rule of one of them.
func validExchanges() map[string]*contract.Exchange {
	return map[string]*contract.Exchange{
		"token":         exch("POST /api/auth/token", tokenReq, 201, tokenOK, header("X-SSL-Client-Cert", "pem"), header("Authorization", "")),
		"token error":   exch("POST /api/auth/token", tokenReq, 401, tokenErr, header("X-SSL-Client-Cert", "pem"), header("Authorization", "")),
		"balance":       exch("GET /accounts/balances", "", 200, balanceOK),
		"std balance":   exch("GET /api/balance", "", 200, stdBalOK),
		"std blocked":   exch("GET /balance", "", 200, mut(mut(stdBalOK, "blockedBalance", "10.00"), "grossBalance", "110.50")),
		"transfer":      exch("POST /dict/pix", transferReq, 200, transferOK, idem),
		"transfer 422":  exch("POST /dict/pix", transferReq, 422, strings.Replace(minimalErr, "400", "422", 1), idem),
		"cash-out":      exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK),
		"cash-out 400":  exch("POST /api/pix/cash-out", cashOutReq, 400, extErr),
		"cash-in":       exch("POST /api/pix/cash-in", cashInReq, 201, cashInOK),
		"cob":           exch("PUT "+cobPath, cobReq, 201, cobOK),
		"cob read":      exch("GET "+cobPath, "", 200, cobOK),
		"cob 409":       exch("PUT "+cobPath, cobReq, 409, strings.Replace(minimalErr, "400", "409", 1)),
		"refund":        exch("PUT "+refundPath, refundReq, 201, refundOK),
		"refund-in":     exch("POST /api/pix/refund-in/5", `{"refundValue":5.00,"externalId":"r2"}`, 201, refundInOK),
		"listing":       exch("GET /api/transactions?page=1&size=20", "", 200, listingOK),
		"listing 400":   exch("GET /api/transactions?startDate=2020-01-01", "", 400, minimalErr),
		"med":           exch("GET /api/med?status=OPEN", "", 200, medOK),
		"resend":        exch("POST /api/resend-webhook/5", `{"url":"https://example.com"}`, 200, resendOK),
		"webhooks":      exch("POST /api/webhooks", `{"url":"https://example.com","eventType":"cash_in"}`, 200, `{"success":false,"message":"disabled"}`),
		"webhooks list": exch("GET /api/webhooks", "", 200, `{"accountId":1,"webhooks":[],"total":0}`),
	}
}

// TestJudge_ValidExchanges: the valid exchange of every route raises no finding.
func TestJudge_ValidExchanges(t *testing.T) {
	for name, ex := range validExchanges() {
		t.Run(name, func(t *testing.T) {
			if fs := contract.Judge(ex); len(fs) > 0 {
				t.Fatalf("findings on a valid exchange:%s", describe(fs))
			}
		})
	}
}

// TestJudge_ResponseRules: each case breaks one response rule and gets a
// finding of it, on the field named.
func TestJudge_ResponseRules(t *testing.T) {
	tests := []struct {
		name, rule, field string
		ex                *contract.Exchange
	}{
		{"success status not the route's", "resp.status-allowed", "status", exch("POST /api/pix/cash-out", cashOutReq, 200, cashOutOK)},
		{"error status not listed", "resp.status-allowed", "status", exch("GET /accounts/balances", "", 404, strings.Replace(minimalErr, "400", "404", 1))},
		{"500 on cash-out", "resp.status-allowed", "status", exch("POST /api/pix/cash-out", cashOutReq, 500, strings.NewReplacer("400", "500", "PIX_INVALID_AMOUNT", "HTTP_ERROR").Replace(extErr))},
		{"body not JSON", "resp.body-json", "body", exch("POST /api/pix/cash-out", cashOutReq, 201, `created`)},
		{"JSON as text/plain", "resp.body-json", "Content-Type", exch("GET /accounts/balances", "", 200, balanceOK, respHeader("Content-Type", "text/plain"))},
		{"minimal shape without error", "resp.error-shape", "error", exch("POST /dict/pix", transferReq, 400, mut(minimalErr, "error", ""), idem)},
		{"statusCode not the status", "resp.error-shape", "statusCode", exch("PUT "+cobPath, cobReq, 409, minimalErr)},
		{"extended path without /public", "resp.error-shape", "path", exch("POST /api/pix/cash-out", cashOutReq, 400, mut(extErr, "path", `"/api/pix/cash-out"`))},
		{"extended method not the request's", "resp.error-shape", "method", exch("POST /api/pix/cash-out", cashOutReq, 400, mut(extErr, "method", `"GET"`))},
		{"token shape without details", "resp.error-shape", "details", exch("POST /api/auth/token", tokenReq, 401, mut(tokenErr, "details", ""), header("X-SSL-Client-Cert", "pem"))},
		{"error body an array", "resp.error-shape", "body", exch("GET /api/med", "", 400, `["bad"]`)},
		{"code not listed", "resp.error-code-listed", "code", exch("POST /api/pix/cash-out", cashOutReq, 400, mut(mut(extErr, "code", `"NOPE"`), "errorCode", ""))},
		{"errorCode not listed", "resp.error-code-listed", "errorCode", exch("POST /api/pix/cash-in", cashInReq, 400, mut(extErr, "errorCode", `"PIX_UNKNOWN"`))},
		{"token code not listed", "resp.error-code-listed", "code", exch("POST /api/auth/token", tokenReq, 401, mut(tokenErr, "code", `"PUB_INVALID_CERTIFICATE"`), header("X-SSL-Client-Cert", "pem"))},
		{"code with another status", "resp.error-code-status", "code", exch("POST /api/auth/token", tokenReq, 400, mut(mut(tokenErr, "statusCode", "400"), "code", `"PUB_INVALID_CREDENTIALS"`), header("X-SSL-Client-Cert", "pem"))},
		{"duplicate externalId as 409", "resp.error-code-status", "errorCode", exch("POST /api/pix/cash-in", cashInReq, 401,
			mut(mut(mut(extErr, "statusCode", "401"), "code", `"PIX_DUPLICATE_EXTERNAL_ID"`), "errorCode", `"PIX_DUPLICATE_EXTERNAL_ID"`))},
		{"field missing", "resp.field-missing", "generateTime", exch("POST /api/pix/cash-out", cashOutReq, 201, mut(cashOutOK, "generateTime", ""))},
		{"nested field missing", "resp.field-missing", "data[0].balanceAmount.blocked", exch("GET /accounts/balances", "", 200, mut(balanceOK, "data[0].balanceAmount.blocked", ""))},
		{"listing item field missing", "resp.field-missing", "data[0].counterpart.bank.bankISPB", exch("GET /api/transactions", "", 200, mut(listingOK, "data[0].counterpart.bank.bankISPB", ""))},
		{"field of another type", "resp.field-type", "id", exch("POST /dict/pix", transferReq, 200, mut(transferOK, "id", `"7"`), idem)},
		{"null where not allowed", "resp.field-type", "data[0].isReconciled", exch("GET /api/med", "", 200, mut(medOK, "data[0].isReconciled", "null"))},
		{"money number with 3 decimals", "resp.money-format", "data[0].balanceAmount.available", exch("GET /accounts/balances", "", 200, mut(balanceOK, "data[0].balanceAmount.available", "100.505"))},
		{"money number with an exponent", "resp.money-format", "refundValue", exch("POST /api/pix/refund-in/5", `{"refundValue":5.00}`, 201, mut(refundInOK, "refundValue", "5e0"))},
		{"money string with 1 decimal", "resp.money-format", "valor.original", exch("GET "+cobPath, "", 200, mut(cobOK, "valor.original", `"15.5"`))},
		{"money string as a number", "resp.field-type", "valor", exch("PUT "+refundPath, refundReq, 201, mut(refundOK, "valor", "10.00"))},
		{"date not ISO 8601", "resp.date-format", "generateTime", exch("POST /api/pix/cash-out", cashOutReq, 201, mut(cashOutOK, "generateTime", `"02/03/2026"`))},
		{"transactionId not a UUID", "resp.id-format", "transactionId", exch("POST /api/pix/cash-out", cashOutReq, 201, mut(cashOutOK, "transactionId", `"123"`))},
		{"end-to-end id of 33 characters", "resp.id-format", "data[0].endToEnd", exch("GET /api/med", "", 200, mut(medOK, "data[0].endToEnd", `"`+e2e+`x"`))},
		{"rtrId of 31 characters", "resp.id-format", "rtrId", exch("PUT "+refundPath, refundReq, 201, mut(refundOK, "rtrId", `"D1314008820260302120abcdefghijk"`))},
		{"txid of 25 characters", "resp.id-format", "txid", exch("GET "+cobPath, "", 200, mut(cobOK, "txid", `"proxytxid000000000000000x"`))},
		{"access token not a JWT", "resp.id-format", "access_token", exch("POST /api/auth/token", tokenReq, 201, mut(tokenOK, "access_token", `"opaque"`), header("X-SSL-Client-Cert", "pem"))},
		{"expires_in 1799", "resp.value-allowed", "expires_in", exch("POST /api/auth/token", tokenReq, 201, mut(tokenOK, "expires_in", "1799"), header("X-SSL-Client-Cert", "pem"))},
		{"token_type lower case", "resp.value-allowed", "token_type", exch("POST /api/auth/token", tokenReq, 201, mut(tokenOK, "token_type", `"bearer"`), header("X-SSL-Client-Cert", "pem"))},
		{"cob status outside the enumeration", "resp.value-allowed", "status", exch("GET "+cobPath, "", 200, mut(cobOK, "status", `"ACTIVE"`))},
		{"listing label untranslated", "resp.value-allowed", "data[0].status", exch("GET /api/transactions", "", 200, mut(listingOK, "data[0].status", `"CONFIRMED"`))},
		{"key listing over 1000 results", "resp.value-allowed", "metadata.total", exch("GET /api/pix/transactions/pix-key/k", "", 200, mut(listingOK, "metadata.total", "1001"))},
		{"chave over 77 characters", "resp.value-allowed", "chave", exch("GET "+cobPath, "", 200, mut(cobOK, "chave", `"`+strings.Repeat("k", 78)+`"`))},
		{"externalId not echoed", "resp.echo", "externalId", exch("POST /api/pix/cash-out", cashOutReq, 201, mut(cashOutOK, "externalId", `"e2"`))},
		{"txid not the path's", "resp.echo", "txid", exch("GET "+cobPath, "", 200, mut(cobOK, "txid", `"proxytxid0000000000000000000009"`))},
		{"refund id not the path's", "resp.echo", "id", exch("PUT "+refundPath, refundReq, 201, mut(refundOK, "id", `"r9"`))},
		{"refund valor not the request's", "resp.echo", "valor", exch("PUT "+refundPath, refundReq, 201, mut(refundOK, "valor", `"11.00"`))},
		{"transfer amount not the request's", "resp.echo", "payment.amount", exch("POST /dict/pix", transferReq, 200, mut(transferOK, "payment.amount", "12.3"), idem)},
		{"location not loc.location", "resp.consistent", "location", exch("GET "+cobPath, "", 200, mut(cobOK, "location", `"other"`))},
		{"revisao 1 at creation", "resp.consistent", "revisao", exch("PUT "+cobPath, cobReq, 201, mut(cobOK, "revisao", "1"))},
		{"two balance items", "resp.consistent", "data", exch("GET /accounts/balances", "", 200, `{"data":[`+strings.Repeat(`{"eventDate":"2026-03-02T12:00:00Z","balanceAmount":{"available":1,"blocked":0,"overdraft":0}},`, 1)+`{"eventDate":"2026-03-02T12:00:00Z","balanceAmount":{"available":1,"blocked":0,"overdraft":0}}]}`)},
		{"grossBalance without blocked", "resp.consistent", "grossBalance", exch("GET /balance", "", 200, mut(stdBalOK, "blockedBalance", "10.00"))},
		{"grossBalance net plus blocked, on /api/balance", "resp.consistent", "grossBalance", exch("GET /api/balance", "", 200, mut(stdBalOK, "grossBalance", "100.00"))},
		{"Pix in as a debit", "resp.consistent", "data[0].movementType", exch("GET /api/transactions", "", 200, mut(listingOK, "data[0].movementType", `"DEBIT"`))},
		{"qrCodeImage missing", "resp.consistent", "qrCodeImage", exch("POST /api/pix/cash-in", cashInReq, 201, mut(cashInOK, "qrCodeImage", ""))},
		{"qrCodeImage not asked for", "resp.consistent", "qrCodeImage", exch("POST /api/pix/cash-in", mut(cashInReq, "transaction.generateQrCode", "false"), 201, cashInOK)},
		{"pixCode not a BR Code", "resp.brcode", "pixCode", exch("POST /api/pix/cash-in", cashInReq, 201, mut(cashInOK, "pixCode", `"0002012636"`))},
		{"BR Code with a wrong CRC", "resp.brcode", "loc.location", exch("GET "+cobPath, "", 200, mut(mut(cobOK, "loc.location", `"`+brCode[:len(brCode)-4]+`0000"`), "location", `"`+brCode[:len(brCode)-4]+`0000"`))},
		{"body over the limit", "resp.body-unjudged", "body", exch("GET /api/transactions", "", 200, "", func(ex *contract.Exchange) { ex.RespUnjudged = "the body is over 1 MiB" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := contract.Judge(tt.ex)
			if !hasFinding(fs, tt.rule, tt.field) {
				t.Fatalf("no %s finding on %q; findings:%s", tt.rule, tt.field, describe(fs))
			}
			for _, f := range fs {
				if f.Section == "" || f.Message == "" || f.Exchange != tt.ex.Seq || f.Route == "" {
					t.Errorf("finding without its evidence: %+v", f)
				}
			}
		})
	}
}

// TestJudge_NotJudged: what the contract leaves open raises nothing.
func TestJudge_NotJudged(t *testing.T) {
	tests := []struct {
		name string
		ex   *contract.Exchange
	}{
		{"a route off the contract", exch("GET /_sandbox/clock", "", 500, `oops`)},
		{"an unknown path", exch("GET /api/nothing", "", 404, `{}`)},
		{"a 2xx where the success status is not shown", exch("PUT "+cobPath, cobReq, 200, cobOK)},
		{"a reference route's 404", exch("GET "+cobPath, "", 404, strings.Replace(minimalErr, "400", "404", 1))},
		{"a scenario's status and code", exch("POST /api/pix/cash-out", cashOutReq, 400, mut(mut(extErr, "code", `"SANDBOX_UNKNOWN_SCENARIO"`), "errorCode", `"SANDBOX_UNKNOWN_SCENARIO"`), header("X-Sandbox-Scenario", "NOPE"))},
		{"401 on a protected route", exch("GET /api/med", "", 401, strings.NewReplacer("400", "401", "Bad Request", "Unauthorized").Replace(minimalErr))},
		{"a message array in the minimal shape", exch("POST /dict/pix", transferReq, 400, mut(minimalErr, "message", `["a","b"]`), idem)},
		{"a nullable field null", exch("GET /api/med", "", 200, mut(medOK, "data[0].cause", "null"))},
		{"an optional field absent", exch("PUT "+refundPath, refundReq, 201, mut(refundOK, "descricao", ""))},
		{"a HEAD answer without a body", exch("HEAD /api/med", "", 200, "")},
		{"the minimal shape of a listing error", exch("GET /api/pix/transactions/pix-key/k", "", 400, minimalErr)},
		{"an answer never received", exch("POST /api/pix/cash-out", cashOutReq, 0, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if fs := ofKind(contract.Judge(tt.ex), contract.KindResponse); len(fs) > 0 {
				t.Fatalf("response findings:%s", describe(fs))
			}
		})
	}
}
