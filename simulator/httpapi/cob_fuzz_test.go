package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// FuzzCobPathRequest fuzzes the {txid} of GET and PATCH /cob/{txid} and the
// PATCH body; the 201 of PUT is covered by FuzzCobRequest. A cob is created
// first so that the fuzzer also reaches a real removal.
func FuzzCobPathRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	const txid = "abcdefghijklmnopqrstuvwxyz0123"
	put := apitest.Request{Method: http.MethodPut, Path: "/cob/" + txid, Body: `{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`, Auth: true}
	f.Add(false, txid, "")
	f.Add(true, txid, `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`)
	f.Add(true, txid, `{"status":"ATIVA","valor":{"original":"1.00"}}`)
	f.Add(true, "short", `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`)
	f.Add(false, "abcdefghijklmnopqrstuvwxyz0123456789", "")
	f.Add(false, "abcdefghijklmnopqrstuvwxyz-12", "")
	f.Add(true, txid, `{"status":null}`)
	f.Add(true, txid, `[]`)
	f.Fuzz(func(t *testing.T, patch bool, id, body string) {
		if a := fs.Serve(t, put); a.Status >= 500 {
			t.Fatalf("PUT %s = %d %s", put.Path, a.Status, a.Raw)
		}
		rq := apitest.Request{Method: http.MethodGet, Path: "/cob/" + id, Auth: true}
		if patch {
			rq.Method, rq.Body = http.MethodPatch, body
		}
		fields := []string{"txid", "status"}
		var keys map[string]any
		if json.Unmarshal([]byte(body), &keys) == nil {
			for k := range keys { // PATCH names each key it cannot revise
				fields = append(fields, k, strconv.Quote(k))
			}
		}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, fields...)
	})
}

// FuzzCobRequest fuzzes the PUT /cob/{txid} decoder and validation.
func FuzzCobRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add("abcdefghijklmnopqrstuvwxyz0", `{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`)
	f.Add("short", `{}`)
	f.Add("abcdefghijklmnopqrstuvwxyz1", `{"calendario":{},"devedor":{"cpf":"1"},"valor":{"original":10},"infoAdicionais":[{"nome":1}]}`)
	f.Fuzz(func(t *testing.T, txid, body string) {
		rq := apitest.Request{Method: http.MethodPut, Path: "/cob/" + txid, Body: body, Auth: true}
		a := fs.Serve(t, rq)
		a.Check(t, rq, apitest.Minimal)
		if a.Status == http.StatusCreated && !pix.ValidTxID(txid) {
			t.Fatalf("201 for txid %q", txid)
		}
	})
}
