package framework

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

func resp(status int, method, path, body string) *apiclient.Response {
	return &apiclient.Response{Status: status, Method: method, Path: path, Body: []byte(body)}
}

const tokenErrBody = `{"statusCode":400,"timestamp":"2025-01-01T12:00:00.123Z","path":"/api/auth/token","method":"POST",
"code":"PUB_CERT_HEADER_MISSING","message":"header X-SSL-Client-Cert is missing","userMessage":"Send your certificate.",
"details":{"hint":"send the PEM URL-encoded","violations":[]},"errorId":"req-1"}`

const minimalBody = `{"statusCode":401,"message":"Unauthorized","error":"Unauthorized"}`

const extendedBody = `{"statusCode":401,"timestamp":"2025-01-01T12:00:00Z","path":"/public/api/pix/cash-out","method":"POST",
"code":"HTTP_ERROR","message":"Unauthorized","userMessage":"Log in again.","errorId":"e-1","error":"Unauthorized"}`

// check runs m against actual and reports whether it matched, failing the
// test on a matcher error unless wantErr.
func check(t *testing.T, m types.GomegaMatcher, actual any) bool {
	t.Helper()
	ok, err := m.Match(actual)
	if err != nil {
		t.Fatalf("Match(%v) error: %v", actual, err)
	}
	return ok
}

func TestMatchers(t *testing.T) {
	tests := []struct {
		name    string
		matcher types.GomegaMatcher
		actual  any
		want    bool
		// failIncludes must appear in the failure message when want is false.
		failIncludes []string
	}{
		{name: "HaveStatus OK", matcher: HaveStatus(201), actual: resp(201, "POST", "/x", `{}`), want: true},
		{name: "HaveStatus shows body", matcher: HaveStatus(201), actual: resp(400, "POST", "/api/auth/token", `{"code":"X_BODY"}`),
			failIncludes: []string{"status is 400", "X_BODY", "POST /api/auth/token"}},
		{name: "HaveStatus value Response", matcher: HaveStatus(200), actual: apiclient.Response{Status: 200}, want: true},
		{name: "HaveSuccessStatus 204", matcher: HaveSuccessStatus(), actual: resp(204, "GET", "/", ""), want: true},
		{name: "HaveSuccessStatus 302", matcher: HaveSuccessStatus(), actual: resp(302, "GET", "/", ""), failIncludes: []string{"status is 302"}},

		{name: "HaveJSONField string", matcher: HaveJSONField("token_type", "Bearer"), actual: resp(201, "", "", `{"token_type":"Bearer"}`), want: true},
		{name: "HaveJSONField number vs int", matcher: HaveJSONField("expires_in", 1800), actual: resp(201, "", "", `{"expires_in":1800}`), want: true},
		{name: "HaveJSONField number text 1800.0", matcher: HaveJSONField("expires_in", 1800), actual: resp(201, "", "", `{"expires_in":1800.0}`), want: true},
		{name: "HaveJSONField number as string", matcher: HaveJSONField("expires_in", 1800), actual: resp(201, "", "", `{"expires_in":"1800"}`),
			failIncludes: []string{"want the number 1800"}},
		{name: "HaveJSONField nested index", matcher: HaveJSONField("data[0].balanceAmount.overdraft", 0),
			actual: resp(200, "", "", `{"data":[{"balanceAmount":{"overdraft":0}}]}`), want: true},
		{name: "HaveJSONField absent", matcher: HaveJSONField("data[1].x", 0), actual: resp(200, "", "", `{"data":[{}]}`),
			failIncludes: []string{"data[1].x is absent"}},
		{name: "HaveJSONField matcher", matcher: HaveJSONField("data", gomega.HaveLen(1)), actual: resp(200, "", "", `{"data":[1]}`), want: true},
		{name: "HaveJSONField null", matcher: HaveJSONField("txId", nil), actual: resp(200, "", "", `{"txId":null}`), want: true},
		{name: "HaveJSONField not JSON", matcher: HaveJSONField("a", 1), actual: resp(500, "", "", `<html>`), failIncludes: []string{"not JSON"}},
		{name: "HaveJSONField on delivery", matcher: HaveJSONField("type", "TRANSFER"), actual: Delivery{Body: []byte(`{"type":"TRANSFER"}`)}, want: true},
		{name: "HaveJSONField on decoded map", matcher: HaveJSONField("a.b", "c"), actual: map[string]any{"a": map[string]any{"b": "c"}}, want: true},

		{name: "HaveJSONNumber", matcher: HaveJSONNumber("n"), actual: resp(200, "", "", `{"n":1.5}`), want: true},
		{name: "HaveJSONNumber string", matcher: HaveJSONNumber("n"), actual: resp(200, "", "", `{"n":"1.5"}`), failIncludes: []string{"not a number"}},

		{name: "HaveErrorCode code", matcher: HaveErrorCode("HTTP_ERROR"), actual: resp(400, "", "", `{"code":"HTTP_ERROR"}`), want: true},
		{name: "HaveErrorCode errorCode first", matcher: HaveErrorCode("PIX_INSUFFICIENT_BALANCE"),
			actual: resp(400, "", "", `{"code":"HTTP_ERROR","errorCode":"PIX_INSUFFICIENT_BALANCE"}`), want: true},
		{name: "HaveErrorCode mismatch", matcher: HaveErrorCode("PIX_INVALID_AMOUNT"),
			actual:       resp(400, "", "", `{"code":"HTTP_ERROR","errorCode":"PIX_INSUFFICIENT_BALANCE"}`),
			failIncludes: []string{"errorCode is", "PIX_INSUFFICIENT_BALANCE", "HTTP_ERROR"}},
		{name: "HaveErrorCode none", matcher: HaveErrorCode("X"), actual: resp(400, "", "", `{}`), failIncludes: []string{"neither errorCode nor code"}},
		{name: "HaveErrorCode with the contract's status", matcher: HaveErrorCode("PIX_DUPLICATE_EXTERNAL_ID"),
			actual: resp(400, "POST", "/api/pix/cash-out", `{"code":"PIX_DUPLICATE_EXTERNAL_ID"}`), want: true},
		{name: "HaveErrorCode with another status", matcher: HaveErrorCode("PIX_DUPLICATE_EXTERNAL_ID"),
			actual:       resp(409, "POST", "/api/pix/cash-out", `{"code":"PIX_DUPLICATE_EXTERNAL_ID"}`),
			failIncludes: []string{"the contract gives PIX_DUPLICATE_EXTERNAL_ID on POST /api/pix/cash-out the status 400, not 409"}},
		{name: "HaveErrorCode token code with another status", matcher: HaveErrorCode("PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT"),
			actual:       resp(401, "POST", "/api/auth/token?x=1", `{"code":"PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT"}`),
			failIncludes: []string{"the status 403, not 401"}},
		{name: "HaveErrorCode a code the route does not list", matcher: HaveErrorCode("SANDBOX_UNKNOWN_SCENARIO"),
			actual: resp(400, "POST", "/api/pix/cash-out", `{"code":"SANDBOX_UNKNOWN_SCENARIO"}`), want: true},
		{name: "HaveErrorCode off the route table", matcher: HaveErrorCode("PIX_DUPLICATE_EXTERNAL_ID"),
			actual: resp(409, "POST", "/_sandbox/x", `{"code":"PIX_DUPLICATE_EXTERNAL_ID"}`), want: true},

		{name: "HaveTokenErrorShape OK", matcher: HaveTokenErrorShape(), actual: resp(400, "POST", "/api/auth/token", tokenErrBody), want: true},
		{name: "HaveTokenErrorShape status mismatch", matcher: HaveTokenErrorShape(), actual: resp(401, "POST", "/api/auth/token", tokenErrBody),
			failIncludes: []string{"statusCode is", "want the number 401"}},
		{name: "HaveTokenErrorShape method mismatch", matcher: HaveTokenErrorShape(), actual: resp(400, "PUT", "/api/auth/token", tokenErrBody),
			failIncludes: []string{`method is "POST", want the request method "PUT"`}},
		{name: "HaveTokenErrorShape minimal body", matcher: HaveTokenErrorShape(), actual: resp(401, "POST", "/api/auth/token", minimalBody),
			failIncludes: []string{"timestamp is absent", "details is absent", "errorId is absent", "userMessage is absent", "code is absent"}},
		{name: "HaveTokenErrorShape bad timestamp", matcher: HaveTokenErrorShape(),
			actual:       resp(400, "POST", "/api/auth/token", strings.Replace(tokenErrBody, "2025-01-01T12:00:00.123Z", "yesterday", 1)),
			failIncludes: []string{`timestamp is "yesterday", want an ISO 8601`}},
		{name: "HaveTokenErrorShape details not object", matcher: HaveTokenErrorShape(),
			actual:       resp(400, "POST", "/api/auth/token", strings.Replace(tokenErrBody, `{"hint":"send the PEM URL-encoded","violations":[]}`, `"x"`, 1)),
			failIncludes: []string{`details is "x", want an object`}},
		{name: "HaveTokenErrorShape not JSON", matcher: HaveTokenErrorShape(), actual: resp(502, "POST", "/", "Bad Gateway"),
			failIncludes: []string{"body is not JSON", "Bad Gateway"}},

		{name: "HaveMinimalErrorShape OK", matcher: HaveMinimalErrorShape(), actual: resp(401, "GET", "/balance", minimalBody), want: true},
		{name: "HaveMinimalErrorShape message array", matcher: HaveMinimalErrorShape(),
			actual: resp(400, "GET", "/x", `{"statusCode":400,"message":["a","b"],"error":"Bad Request"}`), want: true},
		{name: "HaveMinimalErrorShape message array of numbers", matcher: HaveMinimalErrorShape(),
			actual: resp(400, "GET", "/x", `{"statusCode":400,"message":[1],"error":"Bad Request"}`), failIncludes: []string{"message[0]"}},
		{name: "HaveMinimalErrorShape statusCode string", matcher: HaveMinimalErrorShape(),
			actual: resp(401, "GET", "/x", `{"statusCode":"401","message":"m","error":"e"}`), failIncludes: []string{"statusCode is"}},
		{name: "HaveMinimalErrorShape no error", matcher: HaveMinimalErrorShape(),
			actual: resp(401, "GET", "/x", `{"statusCode":401,"message":"m"}`), failIncludes: []string{"error is absent"}},

		{name: "HaveExtendedErrorShape OK", matcher: HaveExtendedErrorShape(), actual: resp(401, "POST", "/api/pix/cash-out", extendedBody), want: true},
		{name: "HaveExtendedErrorShape path without /public", matcher: HaveExtendedErrorShape(),
			actual:       resp(401, "POST", "/api/pix/cash-out", strings.Replace(extendedBody, "/public/api", "/api", 1)),
			failIncludes: []string{`path is "/api/pix/cash-out", want the /public/`}},
		{name: "HaveExtendedErrorShape minimal body", matcher: HaveExtendedErrorShape(), actual: resp(401, "POST", "/api/pix/cash-out", minimalBody),
			failIncludes: []string{"timestamp is absent", "errorId is absent"}},

		{name: "BeISO8601 RFC3339 nano", matcher: BeISO8601(), actual: "2025-01-01T12:00:00.123456789Z", want: true},
		{name: "BeISO8601 offset", matcher: BeISO8601(), actual: "2025-01-01T09:00:00-03:00", want: true},
		{name: "BeISO8601 offset without colon", matcher: BeISO8601(), actual: "2025-01-01T09:00:00-0300", want: true},
		{name: "BeISO8601 date", matcher: BeISO8601(), actual: "2025-01-01", want: true},
		{name: "BeISO8601 space", matcher: BeISO8601(), actual: "2025-01-01 12:00:00", failIncludes: []string{"not an ISO 8601"}},
		{name: "BeISO8601 month 13", matcher: BeISO8601(), actual: "2025-13-01T00:00:00Z", failIncludes: []string{"not an ISO 8601"}},
		{name: "BeISO8601 number", matcher: BeISO8601(), actual: json.Number("1735732800"), failIncludes: []string{"not a string"}},

		{name: "BeDecimal2Number two places", matcher: BeDecimal2Number(), actual: json.Number("1234.50"), want: true},
		{name: "BeDecimal2Number integer", matcher: BeDecimal2Number(), actual: json.Number("10"), want: true},
		{name: "BeDecimal2Number one place", matcher: BeDecimal2Number(), actual: json.Number("0.1"), want: true},
		{name: "BeDecimal2Number three places", matcher: BeDecimal2Number(), actual: json.Number("10.005"), failIncludes: []string{"more than 2 decimal places"}},
		{name: "BeDecimal2Number exponent", matcher: BeDecimal2Number(), actual: json.Number("1e3"), failIncludes: []string{"more than 2 decimal places"}},
		{name: "BeDecimal2Number string", matcher: BeDecimal2Number(), actual: "10.00", failIncludes: []string{"not a JSON number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(t, tt.matcher, tt.actual)
			if got != tt.want {
				t.Fatalf("Match = %v, want %v; failure message:\n%s", got, tt.want, tt.matcher.FailureMessage(tt.actual))
			}
			if tt.want {
				if msg := tt.matcher.NegatedFailureMessage(tt.actual); !strings.Contains(msg, "not to") {
					t.Errorf("NegatedFailureMessage = %q, want a 'not to' sentence", msg)
				}
				return
			}
			msg := tt.matcher.FailureMessage(tt.actual)
			for _, s := range tt.failIncludes {
				if !strings.Contains(msg, s) {
					t.Errorf("FailureMessage does not contain %q:\n%s", s, msg)
				}
			}
		})
	}
}

func TestMatchers_WrongActualIsAnError(t *testing.T) {
	for name, m := range map[string]types.GomegaMatcher{
		"HaveStatus":            HaveStatus(200),
		"HaveTokenErrorShape":   HaveTokenErrorShape(),
		"HaveMinimalErrorShape": HaveMinimalErrorShape(),
		"HaveJSONField":         HaveJSONField("a", 1),
		"BeDecimal2Number":      BeDecimal2Number(),
	} {
		t.Run(name, func(t *testing.T) {
			var actual any = 42
			if name == "BeDecimal2Number" {
				actual = 1.5 // a float means the JSON was not decoded with UseNumber
			}
			if _, err := m.Match(actual); err == nil {
				t.Fatalf("Match(%v) = nil error, want one", actual)
			}
		})
	}
	var nilResp *apiclient.Response
	if _, err := HaveStatus(200).Match(nilResp); err == nil {
		t.Fatal("HaveStatus on a nil *Response: want an error")
	}
}

func TestMatchers_WithGomega(t *testing.T) {
	g := gomega.NewWithT(t)
	r := resp(401, "GET", "/balance", minimalBody)
	g.Expect(r).To(HaveStatus(401))
	g.Expect(r).To(HaveMinimalErrorShape())
	g.Expect(r).NotTo(HaveExtendedErrorShape())
	g.Expect(r).To(HaveJSONField("statusCode", 401))
}

func TestBeValidBRCode(t *testing.T) {
	// The worked example of a static code with a key (codec's tests hold the rules).
	const valid = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
	if ok, err := BeValidBRCode().Match(valid); err != nil || !ok {
		t.Errorf("BeValidBRCode rejected %s", valid)
	}
	if ok, err := BeValidBRCode().Match(42); err != nil || ok {
		t.Errorf("BeValidBRCode accepted a number (err %v)", err)
	}
	lowerCRC := valid[:len(valid)-4] + "1d3d"
	m := BeValidBRCode()
	if ok, err := m.Match(lowerCRC); err != nil || ok {
		t.Fatalf("BeValidBRCode accepted %s (err %v)", lowerCRC, err)
	}
	if msg := m.FailureMessage(lowerCRC); !strings.Contains(msg, "not uppercase") {
		t.Errorf("failure message does not mention the lowercase CRC:\n%s", msg)
	}
}
