package proxy_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// healthyScript drives every route of the contract through c: accepted
// requests, the refusals the contract lists, and requests without a token.
func healthyScript(t *testing.T, c *client, set *fixtures.Set) {
	t.Helper()
	evp := keyOf(t, set, 0, "EVP")
	const dictKey = "53992810232" // a key at another institution (fixtures/dict.json)

	// The token route: accepted, no certificate, wrong secret.
	c.token = tokenFor(t, c, set, 0)
	expect(t, c.do("POST", "/api/auth/token", `{"clientId":"`+set.Accounts[0].ClientID+`","clientSecret":"x"}`, "Authorization: "), 400, "token without a certificate")

	// Balances.
	for _, p := range []string{"/accounts/balances", "/balance", "/api/balance"} {
		expect(t, c.do("GET", p, ""), 200, p)
	}

	// POST /dict/pix: accepted, replayed, refused.
	key := "6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10"
	transfer := `{"pixKey":"` + dictKey + `","priority":"NORM","description":"proxy","payment":{"currency":"BRL","amount":12.34}}`
	first := expect(t, c.do("POST", "/dict/pix", transfer, "X-Idempotency-Key: "+key), 200, "transfer")
	again := expect(t, c.do("POST", "/dict/pix", transfer, "X-Idempotency-Key: "+key), 200, "transfer replayed")
	if first.str(t, "id") != again.str(t, "id") {
		t.Fatalf("the simulator answered a replay with another transfer")
	}
	expect(t, c.do("POST", "/dict/pix", transfer), 400, "transfer without a key")
	expect(t, c.do("POST", "/dict/pix", strings.Replace(transfer, "12.34", "12.35", 1), "X-Idempotency-Key: "+key), 422, "transfer with a reused key")

	// Cash-out: accepted, duplicate externalId, invalid body, a scenario.
	cashOut := `{"value":10.50,"externalId":"proxy-ext-1","description":"proxy","details":{"key":"` + dictKey + `","keyType":"DOCUMENT","name":"Dane Powell","document":"` + dictKey + `"}}`
	co := expect(t, c.do("POST", "/api/pix/cash-out", cashOut), 201, "cash-out")
	expect(t, c.do("POST", "/api/pix/cash-out", cashOut), 400, "cash-out duplicate")
	expect(t, c.do("POST", "/api/pix/cash-out", `{}`), 400, "cash-out {}")
	expect(t, c.do("POST", "/api/pix/cash-out", strings.Replace(cashOut, "proxy-ext-1", "proxy-ext-2", 1), "X-Sandbox-Scenario: PIX_INSUFFICIENT_BALANCE"), 400, "cash-out scenario")

	// Cash-in with and without a QR code image.
	expect(t, c.do("POST", "/api/pix/cash-in", `{"transaction":{"value":25.00,"description":"proxy","externalId":"proxy-cin-1","generateQrCode":true},"payer":{"fullName":"Fulano de Tal","document":"52998224725"}}`), 201, "cash-in with QR")
	expect(t, c.do("POST", "/api/pix/cash-in", `{"transaction":{"value":25.00,"description":"proxy","externalId":"proxy-cin-2"},"payer":{"fullName":"Fulano de Tal","document":"52998224725"}}`), 201, "cash-in")
	expect(t, c.do("POST", "/api/pix/cash-in", `{"transaction":{"value":0,"description":"","externalId":""}}`), 400, "cash-in invalid")

	// Cobs: created, read, removed; another paid; a duplicate and a bad txid.
	cob := `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"` + evp + `","solicitacaoPagador":"proxy"}`
	expect(t, c.do("PUT", "/cob/proxytxid0000000000000000000001", cob), 201, "cob")
	expect(t, c.do("GET", "/cob/proxytxid0000000000000000000001", ""), 200, "cob read")
	expect(t, c.do("PUT", "/cob/proxytxid0000000000000000000001", cob), 409, "cob again")
	expect(t, c.do("PUT", "/cob/short", cob), 400, "cob with a short txid")
	expect(t, c.do("PATCH", "/cob/proxytxid0000000000000000000001", `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`), 200, "cob removed")
	expect(t, c.do("GET", "/cob/proxytxid0000000000000000000001", ""), 200, "cob read after removal")
	expect(t, c.do("PUT", "/cob/proxytxid0000000000000000000002", cob), 201, "cob to pay")
	expect(t, c.do("POST", "/_sandbox/payments", `{"txid":"proxytxid0000000000000000000002"}`, "Authorization: "), 201, "cob paid")
	expect(t, c.do("GET", "/cob/proxytxid0000000000000000000002", ""), 200, "cob read after payment")

	// A PIX received, refunded by both routes, read, settled; refusals.
	in := expect(t, c.do("POST", "/_sandbox/pix-in", `{"key":"`+evp+`","amount":50.00}`, "Authorization: "), 201, "pix-in")
	e2e, txID := in.str(t, "endToEndId"), in.str(t, "transactionId")
	refund := "/pix/" + e2e + "/devolucao/proxyrefund1"
	expect(t, c.do("PUT", refund, `{"valor":"10.00","natureza":"ORIGINAL","descricao":"proxy"}`), 201, "refund")
	expect(t, c.do("PUT", refund, `{"valor":"10.00","natureza":"ORIGINAL","descricao":"proxy"}`), 201, "refund repeated")
	expect(t, c.do("GET", refund, ""), 200, "refund read")
	expect(t, c.do("PUT", "/pix/"+e2e+"/devolucao/proxyrefund2", `{"valor":"45.00"}`), 400, "refund above what is left")
	expect(t, c.do("PUT", "/pix/E00000000202601010000abcdefghijk/devolucao/x1", `{"valor":"1.00"}`), 404, "refund of an unknown PIX")
	expect(t, c.do("POST", "/api/pix/refund-in/"+txID, `{"refundValue":5.00,"externalId":"proxyrefund3","reason":"proxy"}`), 201, "refund-in")
	expect(t, c.do("POST", "/api/pix/refund-in/999999", `{"refundValue":1.00}`), 404, "refund-in of an unknown transaction")
	expect(t, c.do("POST", "/_sandbox/clock/advance", `{"seconds":60}`, "Authorization: "), 200, "clock advance")
	expect(t, c.do("GET", refund, ""), 200, "refund read after settlement")

	// Listings, MED, webhook routes, resend.
	expect(t, c.do("GET", "/api/transactions", ""), 200, "listing")
	expect(t, c.do("GET", "/api/transactions?page=1&size=5&status=CONFIRMED", ""), 200, "listing filtered")
	expect(t, c.do("GET", "/api/transactions?size=5000", ""), 400, "listing size over 100")
	expect(t, c.do("GET", "/api/pix/transactions/pix-key/"+url.PathEscape(evp), ""), 200, "listing by key")
	expect(t, c.do("GET", "/api/med", ""), 200, "MED")
	expect(t, c.do("GET", "/api/med?pageSize=500", ""), 400, "MED pageSize over 100")
	expect(t, c.do("POST", "/api/webhooks", `{"url":"https://example.com/hooks","eventType":"cash_in"}`), 200, "webhook registration")
	expect(t, c.do("GET", "/api/webhooks", ""), 200, "webhook list")
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer receiver.Close()
	expect(t, c.do("POST", "/api/resend-webhook/"+txID, `{"url":"`+receiver.URL+`"}`), 200, "resend")
	expect(t, c.do("POST", "/api/resend-webhook/999999", `{"url":"`+receiver.URL+`"}`), 404, "resend of an unknown transaction")
	_ = co

	// Every protected route without a token: 401 in its family's shape.
	for _, rt := range contract.Routes() {
		if rt.Public {
			continue
		}
		path := strings.NewReplacer("{txid}", "proxytxid0000000000000000000001", "{e2eid}", e2e, "{id}", "1",
			"{pixKey}", evp, "{transactionIdentifier}", txID).Replace(rt.Template)
		body := ""
		if rt.Method != "GET" {
			body = "{}"
		}
		expect(t, c.do(rt.Method, path, body, "Authorization: "), 401, rt.String()+" without a token")
	}
}

// TestProxy_HealthySimulator: the simulator, driven through the proxy on
// every route of the contract (accepted requests, listed refusals, missing
// tokens), raises no response and no state finding; the script's deliberate
// client mistakes come out as request findings.
func TestProxy_HealthySimulator(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	var log syncBuffer
	u, findings, stop, err := proxy.Start(env.URL, proxy.Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	healthyScript(t, c, env.Fixtures)

	got := byKind(findings())
	for _, k := range []string{"response", "state", "upstream", "notice"} {
		if len(got[k]) > 0 {
			t.Errorf("%d %s findings on a healthy simulator:%s", len(got[k]), k, lines(got[k]))
		}
	}
	want := map[string]bool{"req.authorization-missing": true, "req.cert-header-missing": true, "req.idempotency-key-missing": true,
		"req.path-format": true, "req.query-value": true, "req.field-missing": true}
	seen := map[string]bool{}
	for _, f := range got["request"] {
		seen[f.Rule] = true
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("the script's mistakes raised no %s (request findings:%s)", id, lines(got["request"]))
		}
	}
	for _, rt := range contract.Routes() {
		if !c.routes[rt.String()] {
			t.Errorf("the script never called %s", rt)
		}
	}
	if !strings.Contains(log.String(), "[request] req.authorization-missing") {
		t.Errorf("the log has no line for the request findings:\n%s", log.String())
	}
	t.Logf("%s", fmt.Sprint(len(got["request"]), " request findings"))
}

// TestProxy_ConcurrentHealthy: exchanges in flight together — reads of a
// cob while it is paid, one idempotency key and one externalId sent from
// many clients at once, balance reads among them (quiet accounts) — raise no
// state finding against the simulator, which serves them in some order the
// proxy cannot see.
func TestProxy_ConcurrentHealthy(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	u, findings, stop, err := proxy.Start(env.URL, proxy.Options{QuietAccounts: true})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	c.token = tokenFor(t, c, env.Fixtures, 0)
	evp := keyOf(t, env.Fixtures, 0, "EVP")
	cob := `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"` + evp + `"}`
	expect(t, c.do("PUT", "/cob/concurrenttxid000000000000001", cob), 201, "cob")
	transfer := `{"pixKey":"53992810232","payment":{"currency":"BRL","amount":1.00}}`
	cashOut := `{"value":1.00,"externalId":"concurrent-1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane Powell","document":"53992810232"}}`
	expect(t, c.do("GET", "/accounts/balances", ""), 200, "balance before")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 5 {
			case 4:
				c.do("GET", "/accounts/balances", "")
			case 0:
				c.do("POST", "/_sandbox/payments", `{"txid":"concurrenttxid000000000000001"}`, "Authorization: ")
			case 1:
				c.do("GET", "/cob/concurrenttxid000000000000001", "")
			case 2:
				c.do("POST", "/dict/pix", transfer, "X-Idempotency-Key: 0b8f5f0e-3c1d-4c57-9a55-6a3e1b2f9c10")
			case 3:
				c.do("POST", "/api/pix/cash-out", cashOut)
			}
		}()
	}
	wg.Wait()
	expect(t, c.do("GET", "/cob/concurrenttxid000000000000001", ""), 200, "cob read")
	expect(t, c.do("GET", "/accounts/balances", ""), 200, "balance after")
	got := byKind(findings())
	for _, k := range []string{"response", "state"} {
		if len(got[k]) > 0 {
			t.Errorf("%d %s findings:%s", len(got[k]), k, lines(got[k]))
		}
	}
}

// TestProxy_QuietAccountsHealthy: the simulator, its account moved only by
// the script through the proxy (a cash-out with a fee, settled; one whose
// settlement fails; a transfer; a PIX received; refunds by both routes; a
// cob paid), raises no finding with quiet accounts, while the balance rule
// judges every read against the one before.
func TestProxy_QuietAccountsHealthy(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	var log syncBuffer
	u, findings, stop, err := proxy.Start(env.URL, proxy.Options{Log: &log, QuietAccounts: true})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	c.token = tokenFor(t, c, env.Fixtures, 0)
	account := env.Fixtures.Accounts[0]
	evp := keyOf(t, env.Fixtures, 0, "EVP")
	const dictKey = "53992810232"
	noToken := "Authorization: "
	reads := 0
	read := func(path string) {
		t.Helper()
		expect(t, c.do("GET", path, ""), 200, path)
		reads++
	}
	advance := func() {
		t.Helper()
		expect(t, c.do("POST", "/_sandbox/clock/advance", `{"seconds":60,"wait":"webhooks"}`, noToken), 200, "clock advance")
	}
	cashOut := func(ext, document string) {
		t.Helper()
		expect(t, c.do("POST", "/api/pix/cash-out", `{"value":10.00,"externalId":"`+ext+`","description":"quiet","details":{"key":"`+dictKey+`","keyType":"DOCUMENT","name":"Dane Powell","document":"`+document+`"}}`), 201, "cash-out "+ext)
	}

	expect(t, c.do("PUT", fmt.Sprintf("/_sandbox/accounts/%d/settings", account.ID), `{"fee":1.50}`, noToken), 200, "fee")
	read("/accounts/balances")
	cashOut("quiet-1", dictKey) // held 11.50, then settled with its fee
	read("/accounts/balances")
	advance()
	read("/balance")
	cashOut("quiet-2", "12345678900") // check digits wrong: the settlement fails, the hold comes back
	read("/api/balance")
	advance()
	read("/accounts/balances")
	expect(t, c.do("POST", "/dict/pix", `{"pixKey":"`+dictKey+`","payment":{"currency":"BRL","amount":12.34}}`, "X-Idempotency-Key: 0b8f5f0e-3c1d-4c57-9a55-6a3e1b2f9c11"), 200, "transfer")
	read("/accounts/balances")
	advance()
	read("/accounts/balances")
	in := expect(t, c.do("POST", "/_sandbox/pix-in", `{"key":"`+evp+`","amount":50.00}`, noToken), 201, "pix-in")
	read("/accounts/balances")
	expect(t, c.do("PUT", "/pix/"+in.str(t, "endToEndId")+"/devolucao/quietrefund1", `{"valor":"10.00"}`), 201, "refund")
	read("/accounts/balances")
	expect(t, c.do("POST", "/api/pix/refund-in/"+in.str(t, "transactionId"), `{"refundValue":5.00,"externalId":"quietrefund2"}`), 201, "refund-in")
	read("/balance")
	advance()
	read("/accounts/balances")
	expect(t, c.do("PUT", "/cob/quiettxid00000000000000000001", `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"`+evp+`"}`), 201, "cob")
	expect(t, c.do("POST", "/_sandbox/payments", `{"txid":"quiettxid00000000000000000001"}`, noToken), 201, "cob paid")
	read("/accounts/balances")

	for k, fs := range byKind(findings()) {
		t.Errorf("%d %s findings:%s", len(fs), k, lines(fs))
	}
	report := c.do("GET", proxy.FindingsPath, "").json(t)
	if report["quietAccounts"] != true || fmt.Sprint(report["balanceReadsJudged"]) != fmt.Sprint(reads-1) {
		t.Errorf("the report says quietAccounts %v, %v balance reads judged; want true, %d (every read but the first)",
			report["quietAccounts"], report["balanceReadsJudged"], reads-1)
	}
}
