package httpapi_test

import (
	"testing"
)

// FuzzCashInRequest fuzzes the POST /api/pix/cash-in decoder and validation.
func FuzzCashInRequest(f *testing.F) {
	fuzzRoute(f, "/api/pix/cash-in", true, []string{
		`{"transaction":{"value":10,"description":"d","externalId":"e"},"payer":{"fullName":"P","document":"52998224725"}}`,
		`{"transaction":{"value":10,"description":"d","externalId":"e2","generateQrCode":true},"payer":{"fullName":"P","document":"52998224725"},"additionalInfo":{"a":"b"},"splits":[{"pixKey":"a@b.com","pixKeyType":"EMAIL","name":"n","document":"52998224725","type":"PERCENTAGE","value":10,"immediate":true}]}`,
		`{"transaction":{"value":"10"},"additionalInfo":{"a":1}}`, `{"splits":{}}`,
	}, scenarioHeader)
}
