package proxy_test

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// perRequest are the answer headers that differ from one request to the
// next whatever the proxy does.
var perRequest = []string{"Date", "X-Request-Id"}

// errorID masks the request id an extended or token error carries.
var errorID = regexp.MustCompile(`"errorId":"[^"]*"`)

// TestProxy_ByteIdenticalWithSimulator: 1,000 mixed exchanges sent to the
// simulator directly and through the proxy, each pair one after the other
// (the virtual clock does not move): statuses and headers are the same
// (Date and X-Request-Id aside) and, for the requests whose answer is
// deterministic (reads, refusals), the bodies are byte for byte the same
// (the extended shape's errorId, the request id, aside). Requests that
// create something compare status and headers. The proxy raises no
// response or state finding on any of them.
func TestProxy_ByteIdenticalWithSimulator(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	u, findings, stop, err := proxy.Start(env.URL, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	direct, through := newClient(t, env.URL), newClient(t, u)
	tok := tokenFor(t, direct, env.Fixtures, 0)
	direct.token, through.token = tok, tok
	evp := keyOf(t, env.Fixtures, 0, "EVP")
	cob := `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"` + evp + `"}`
	expect(t, direct.do("PUT", "/cob/identicaltxid00000000000000001", cob), 201, "cob")

	type req struct {
		method, path, body string
		headers            []string
		deterministic      bool
	}
	reads := []req{
		{"GET", "/accounts/balances", "", nil, true},
		{"GET", "/balance", "", nil, true},
		{"GET", "/api/balance", "", nil, true},
		{"GET", "/cob/identicaltxid00000000000000001", "", nil, true},
		{"GET", "/api/transactions?size=5", "", nil, true},
		{"GET", "/api/med", "", nil, true},
		{"GET", "/api/webhooks", "", nil, true},
		{"GET", "/accounts/balances", "", []string{"Authorization: "}, true},
		{"PUT", "/cob/short", cob, nil, true},
		{"POST", "/dict/pix", `{"pixKey":"53992810232","payment":{"currency":"BRL","amount":1.00}}`, nil, true},
		{"GET", "/api/med?pageSize=0", "", nil, true},
		{"POST", "/api/pix/cash-out", `{}`, nil, true},
		{"POST", "/api/auth/token", `{}`, []string{"Authorization: "}, true},
		{"GET", "/cob/identicaltxid00000000000000009", "", nil, true},
	}
	n := 0
	for i := 0; n < 1000; i++ {
		var r req
		if i%5 == 4 { // one request in five creates something
			switch (i / 5) % 3 {
			case 0:
				r = req{"PUT", fmt.Sprintf("/cob/identicaltxid%016d", 100000+n), cob, nil, false}
			case 1:
				r = req{"POST", "/dict/pix", `{"pixKey":"53992810232","payment":{"currency":"BRL","amount":0.01}}`,
					[]string{fmt.Sprintf("X-Idempotency-Key: 6f1c1f3e-1b7a-4c1e-9d2a-%012d", n)}, false}
			case 2:
				r = req{"POST", "/api/pix/cash-out", fmt.Sprintf(`{"value":0.01,"externalId":"identical-%d","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane Powell","document":"53992810232"}}`, n), nil, false}
			}
		} else {
			r = reads[i%len(reads)]
		}
		if !r.deterministic && r.method == "PUT" {
			// The same txid cannot be created twice: the direct request takes
			// one, the proxied one the next.
			a := direct.do(r.method, r.path, r.body, r.headers...)
			b := through.do(r.method, r.path+"x", r.body, r.headers...)
			comparePair(t, r.method+" "+r.path, a, b, false)
		} else {
			a := direct.do(r.method, r.path, r.body, r.headers...)
			if !r.deterministic {
				r.body, r.headers = variant(r.body, r.headers)
			}
			b := through.do(r.method, r.path, r.body, r.headers...)
			comparePair(t, r.method+" "+r.path, a, b, r.deterministic)
		}
		n += 2
	}
	got := byKind(findings())
	for _, k := range []string{"response", "state", "upstream", "notice"} {
		if len(got[k]) > 0 {
			t.Errorf("%d %s findings:%s", len(got[k]), k, lines(got[k]))
		}
	}
}

// variant makes a creating request new (another idempotency key or externalId).
func variant(body string, headers []string) (string, []string) {
	out := slices.Clone(headers)
	for i, h := range out {
		out[i] = h[:len(h)-1] + "f"
	}
	return regexp.MustCompile(`identical-(\d+)`).ReplaceAllString(body, "identical-proxied-$1"), out
}

func comparePair(t *testing.T, what string, a, b answer, sameBody bool) {
	t.Helper()
	if a.Status != b.Status {
		t.Fatalf("%s: %d directly, %d through the proxy: %s / %s", what, a.Status, b.Status, a.Body, b.Body)
	}
	if diff := headerDiff(a.Header, b.Header, append(perRequest, "Content-Length")...); diff != "" {
		t.Fatalf("%s: headers differ:%s", what, diff)
	}
	if !sameBody {
		return
	}
	if a.Header.Get("Content-Length") != b.Header.Get("Content-Length") {
		t.Fatalf("%s: Content-Length %s directly, %s through the proxy", what, a.Header.Get("Content-Length"), b.Header.Get("Content-Length"))
	}
	ab, bb := errorID.ReplaceAll(a.Body, []byte(`"errorId":""`)), errorID.ReplaceAll(b.Body, []byte(`"errorId":""`))
	if !bytes.Equal(ab, bb) {
		t.Fatalf("%s: bodies differ:\n direct  %s\n proxied %s", what, a.Body, b.Body)
	}
}
