package httpapi_test

import (
	"testing"
)

// FuzzTransferRequest fuzzes the POST /dict/pix decoder and validation.
func FuzzTransferRequest(f *testing.F) {
	fuzzRoute(f, "/dict/pix", false, []string{
		`{"pixKey":"pix@bcb.gov.br","payment":{"currency":"BRL","amount":1}}`,
		`{"pixKey":"+5511987654321","priority":"HIGH","expiration":0,"payment":{"amount":"1"}}`,
		`{"ispbDeny":[1,2],"payment":[]}`, `{"expiration":1e9}`, `null`,
	}, func(h string) map[string]string {
		if h == "" {
			h = "2b28bc5f-714d-4515-9a30-06854d5df38c"
		}
		return map[string]string{"x-idempotency-key": h}
	})
}
