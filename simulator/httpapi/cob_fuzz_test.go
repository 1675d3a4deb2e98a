package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
)

// FuzzCobPathRequest fuzzes the {txid} of GET and PATCH /cob/{txid} and the
// PATCH body; the 201 of PUT is covered by FuzzCobRequest. A cob is created
// first so that the fuzzer also reaches a real removal.
func FuzzCobPathRequest(f *testing.F) {
	fs := newFuzzServer(f)
	const txid = "abcdefghijklmnopqrstuvwxyz0123"
	put := fuzzRequest{method: http.MethodPut, path: "/cob/" + txid, body: `{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`, auth: true}
	f.Add(false, txid, "")
	f.Add(true, txid, `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`)
	f.Add(true, txid, `{"status":"ATIVA","valor":{"original":"1.00"}}`)
	f.Add(true, "short", `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`)
	f.Add(false, "abcdefghijklmnopqrstuvwxyz0123456789", "")
	f.Add(false, "abcdefghijklmnopqrstuvwxyz-12", "")
	f.Add(true, txid, `{"status":null}`)
	f.Add(true, txid, `[]`)
	f.Fuzz(func(t *testing.T, patch bool, id, body string) {
		if a := fs.serve(t, put); a.status >= 500 {
			t.Fatalf("PUT %s = %d %s", put.path, a.status, a.raw)
		}
		rq := fuzzRequest{method: http.MethodGet, path: "/cob/" + id, auth: true}
		if patch {
			rq.method, rq.body = http.MethodPatch, body
		}
		fields := []string{"txid", "status"}
		var keys map[string]any
		if json.Unmarshal([]byte(body), &keys) == nil {
			for k := range keys { // PATCH names each key it cannot revise
				fields = append(fields, k, strconv.Quote(k))
			}
		}
		fs.serve(t, rq).check(t, rq, minimalErrors, fields...)
	})
}
