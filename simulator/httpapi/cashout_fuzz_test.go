package httpapi_test

import (
	"testing"
)

// FuzzCashOutRequest fuzzes the POST /api/pix/cash-out decoder and validation.
func FuzzCashOutRequest(f *testing.F) {
	fuzzRoute(f, "/api/pix/cash-out", true, []string{
		`{"value":10.5,"externalId":"e1","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`,
		`{"value":"10","details":null}`, `{"value":1e400}`, `{"value":-0.0,"externalId":"","details":{}}`, `[]`, `{`,
		`{"value":0.001,"externalId":"x","details":{"key":"a","keyType":"RANDOM","name":"n","document":"12345678901234"}}`,
	}, scenarioHeader)
}
