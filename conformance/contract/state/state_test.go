package state_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
)

// observeAll feeds the exchanges to a new model in order and returns the
// state findings, with the exchange each came from.
func observeAll(b state.Bounds, exs ...*contract.Exchange) []contract.Finding {
	m := state.NewModel(b)
	var out []contract.Finding
	for _, ex := range exs {
		out = append(out, m.Observe(ex)...)
	}
	return out
}

func transfer(seq uint64, key string, id int) *contract.Exchange {
	return exch("POST /dict/pix", transferReq, 200, mut(transferOK, "id", fmt.Sprint(id)), header("X-Idempotency-Key", key), at(seq, time.Duration(seq)*time.Second))
}

func tokenOf(sub string, iat time.Time) func(*contract.Exchange) {
	return header("Authorization", "Bearer "+tokenWith(`{"sub":"`+sub+`","iat":`+itoa(iat.Unix())+`,"exp":`+itoa(iat.Add(1800*time.Second).Unix())+`}`))
}

func balanceAt(seq uint64, start time.Duration, clock time.Time, opts ...func(*contract.Exchange)) *contract.Exchange {
	body := mut(balanceOK, "data[0].eventDate", `"`+clock.Format(time.RFC3339)+`"`)
	return exch("GET /accounts/balances", "", 200, body, append([]func(*contract.Exchange){at(seq, start)}, opts...)...)
}

func cobAt(seq uint64, start time.Duration, method, status string) *contract.Exchange {
	code, req := 200, ""
	if method == "PUT" {
		code, req = 201, cobReq
	}
	return exch(method+" "+cobPath, req, code, mut(cobOK, "status", `"`+status+`"`), at(seq, start))
}

func refundAt(seq uint64, id, valor, status string, opts ...func(*contract.Exchange)) *contract.Exchange {
	path := "/pix/" + e2e + "/devolucao/" + id
	body := mut(mut(mut(refundOK, "id", `"`+id+`"`), "valor", `"`+valor+`"`), "status", `"`+status+`"`)
	return exch("PUT "+path, `{"valor":"`+valor+`"}`, 201, body, append([]func(*contract.Exchange){at(seq, time.Duration(seq)*time.Second)}, opts...)...)
}

// listingOf is a listing showing the PIX e2e received, of amount, as transaction txID.
func listingOf(seq uint64, txID, amount string) *contract.Exchange {
	body := mut(mut(mut(listingOK, "data[0].originalAmount", amount), "data[0].finalAmount", amount), "data[0].transactionId", `"`+txID+`"`)
	return exch("GET /api/transactions", "", 200, body, at(seq, time.Duration(seq)*time.Second))
}

func pixIn(seq uint64, amount string) *contract.Exchange {
	return exch("POST /_sandbox/pix-in", `{"key":"k","amount":`+amount+`}`, 201, `{"endToEndId":"`+e2e+`","transactionId":"5","amount":`+amount+`}`, at(seq, time.Duration(seq)*time.Second), header("Authorization", ""))
}

func TestModel_StateRules(t *testing.T) {
	const k1, k2 = "6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10", "7f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10"
	iat := epoch
	tests := []struct {
		name string
		exs  []*contract.Exchange
		rule string // "" = no state finding
		on   uint64 // the exchange the finding is about
	}{
		{"idempotency: the same key, another transfer", []*contract.Exchange{transfer(1, k1, 7), transfer(2, k1, 8)}, "state.idempotent-replay", 2},
		{"idempotency: the same key, the same transfer", []*contract.Exchange{transfer(1, k1, 7), transfer(2, k1, 7)}, "", 0},
		{"idempotency: two keys", []*contract.Exchange{transfer(1, k1, 7), transfer(2, k2, 8)}, "", 0},
		{"idempotency: the same key from another account", []*contract.Exchange{transfer(1, k1, 7), func() *contract.Exchange {
			ex := transfer(2, k1, 8)
			tokenOf("2", iat)(ex)
			return ex
		}()}, "", 0},
		{"idempotency: a refused repeat", []*contract.Exchange{transfer(1, k1, 7),
			exch("POST /dict/pix", transferReq, 422, minimalErr, header("X-Idempotency-Key", k1), at(2, 2*time.Second))}, "", 0},

		{"externalId: accepted twice", []*contract.Exchange{
			exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK, at(1, time.Second)),
			exch("POST /api/pix/cash-out", cashOutReq, 201, mut(cashOutOK, "transactionId", `"7f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10"`), at(2, 2*time.Second))}, "state.external-id-duplicate", 2},
		{"externalId: refused the second time", []*contract.Exchange{
			exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK, at(1, time.Second)),
			exch("POST /api/pix/cash-out", cashOutReq, 400, mut(mut(extErr, "code", `"PIX_DUPLICATE_EXTERNAL_ID"`), "errorCode", `"PIX_DUPLICATE_EXTERNAL_ID"`), at(2, 2*time.Second))}, "", 0},
		{"externalId: cash-in twice", []*contract.Exchange{
			exch("POST /api/pix/cash-in", cashInReq, 201, cashInOK, at(1, time.Second)),
			exch("POST /api/pix/cash-in", cashInReq, 201, mut(cashInOK, "transactionId", `"13"`), at(2, 2*time.Second))}, "state.external-id-duplicate", 2},
		{"externalId: one account's, then another's", []*contract.Exchange{
			exch("POST /api/pix/cash-out", cashOutReq, 201, cashOutOK, at(1, time.Second)),
			exch("POST /api/pix/cash-out", cashOutReq, 201, mut(cashOutOK, "transactionId", `"7f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10"`), at(2, 2*time.Second), tokenOf("2", iat))}, "", 0},

		{"refunds above a listed original", []*contract.Exchange{listingOf(1, "5", "50.00"), refundAt(2, "r1", "30.00", "EM_PROCESSAMENTO"), refundAt(3, "r2", "30.00", "EM_PROCESSAMENTO")}, "state.refund-over-original", 3},
		{"refunds up to the original", []*contract.Exchange{listingOf(1, "5", "50.00"), refundAt(2, "r1", "30.00", "EM_PROCESSAMENTO"), refundAt(3, "r2", "20.00", "DEVOLVIDO")}, "", 0},
		{"a refund repeated is one refund", []*contract.Exchange{pixIn(1, "50.00"), refundAt(2, "r1", "30.00", "EM_PROCESSAMENTO"), refundAt(3, "r1", "30.00", "DEVOLVIDO")}, "", 0},
		{"a failed refund is not counted", []*contract.Exchange{pixIn(1, "50.00"), refundAt(2, "r1", "30.00", "NAO_REALIZADO"), refundAt(3, "r2", "30.00", "EM_PROCESSAMENTO")}, "", 0},
		{"a refund under a scenario counts once it succeeds", []*contract.Exchange{pixIn(1, "50.00"),
			refundAt(2, "r1", "30.00", "EM_PROCESSAMENTO", header("X-Sandbox-Scenario", "REFUND_FAILS")), refundAt(3, "r2", "30.00", "EM_PROCESSAMENTO")}, "", 0},
		{"a refund under a scenario that succeeded", []*contract.Exchange{pixIn(1, "50.00"),
			refundAt(2, "r1", "30.00", "EM_PROCESSAMENTO", header("X-Sandbox-Scenario", "X")), refundAt(3, "r2", "30.00", "EM_PROCESSAMENTO"),
			exch("GET /pix/"+e2e+"/devolucao/r1", "", 200, mut(mut(mut(refundOK, "id", `"r1"`), "valor", `"30.00"`), "status", `"DEVOLVIDO"`), at(4, 4*time.Second))}, "state.refund-over-original", 4},
		{"refunds seen before the amount", []*contract.Exchange{refundAt(1, "r1", "30.00", "EM_PROCESSAMENTO"), refundAt(2, "r2", "30.00", "EM_PROCESSAMENTO"), pixIn(3, "50.00")}, "state.refund-over-original", 3},
		{"refund-in and PUT against one original", []*contract.Exchange{listingOf(1, "5", "50.00"), refundAt(2, "r1", "30.00", "EM_PROCESSAMENTO"),
			exch("POST /api/pix/refund-in/5", `{"refundValue":30.00,"externalId":"r2"}`, 201, mut(refundInOK, "refundValue", "30.00"), at(3, 3*time.Second))}, "state.refund-over-original", 3},
		{"refund-in before the listing ties it", []*contract.Exchange{
			exch("POST /api/pix/refund-in/5", `{"refundValue":30.00,"externalId":"r2"}`, 201, mut(refundInOK, "refundValue", "30.00"), at(1, time.Second)),
			refundAt(2, "r1", "30.00", "EM_PROCESSAMENTO"), listingOf(3, "5", "50.00")}, "state.refund-over-original", 3},
		{"an unknown original", []*contract.Exchange{refundAt(1, "r1", "300.00", "EM_PROCESSAMENTO"), refundAt(2, "r2", "300.00", "EM_PROCESSAMENTO")}, "", 0},

		{"token accepted 1801 s after iat", []*contract.Exchange{balanceAt(1, time.Second, iat.Add(1801*time.Second))}, "state.token-expired-accepted", 1},
		{"token accepted 1800 s after iat", []*contract.Exchange{balanceAt(1, time.Second, iat.Add(1800*time.Second))}, "", 0},
		{"token refused after its lifetime", []*contract.Exchange{
			exch("GET /accounts/balances", "", 401, strings.NewReplacer("400", "401").Replace(minimalErr), at(1, time.Second))}, "", 0},
		{"the clock read by an earlier answer", []*contract.Exchange{
			balanceAt(1, time.Second, iat.Add(2000*time.Second), tokenOf("1", iat.Add(1900*time.Second))),
			exch("GET /api/webhooks", "", 200, `{"accountId":1,"webhooks":[],"total":0}`, at(2, 2*time.Second), tokenOf("1", iat))}, "state.token-expired-accepted", 2},
		{"the clock read by an answer still in flight", []*contract.Exchange{
			balanceAt(1, time.Second, iat.Add(2000*time.Second), tokenOf("1", iat.Add(1900*time.Second)), func(ex *contract.Exchange) { ex.End = epoch.Add(3 * time.Second) }),
			exch("GET /api/webhooks", "", 200, `{"accountId":1,"webhooks":[],"total":0}`, at(2, 2*time.Second), tokenOf("1", iat))}, "", 0},
		{"another account's clock", []*contract.Exchange{
			balanceAt(1, time.Second, iat.Add(5000*time.Second), tokenOf("2", iat.Add(4000*time.Second))),
			exch("GET /api/webhooks", "", 200, `{"accountId":1,"webhooks":[],"total":0}`, at(2, 2*time.Second), tokenOf("1", iat))}, "", 0},
		{"a token with exp only", []*contract.Exchange{balanceAt(1, time.Second, iat.Add(1802*time.Second),
			header("Authorization", "Bearer "+tokenWith(`{"sub":"1","exp":`+itoa(iat.Add(1800*time.Second).Unix())+`}`)))}, "state.token-expired-accepted", 1},
		{"a new token after the upstream's clock went back", []*contract.Exchange{
			balanceAt(1, time.Second, iat.Add(90000*time.Second), header("Authorization", "Bearer "+testToken(iat.Add(89000*time.Second)))),
			exch("POST /api/auth/token", tokenReq, 201, tokenOK, at(2, 2*time.Second), header("Authorization", ""), header("X-SSL-Client-Cert", "pem")),
			exch("GET /api/webhooks", "", 200, `{"accountId":1,"webhooks":[],"total":0}`, at(3, 3*time.Second))}, "", 0},
		{"a new token while the clock runs on", []*contract.Exchange{
			balanceAt(1, time.Second, iat.Add(1900*time.Second), header("Authorization", "Bearer "+testToken(iat.Add(1850*time.Second)))),
			exch("POST /api/auth/token", tokenReq, 201, mut(tokenOK, "access_token", `"`+testToken(iat.Add(1900*time.Second))+`"`), at(2, 2*time.Second), header("Authorization", ""), header("X-SSL-Client-Cert", "pem")),
			exch("GET /api/webhooks", "", 200, `{"accountId":1,"webhooks":[],"total":0}`, at(3, 3*time.Second))}, "state.token-expired-accepted", 3},

		{"cob: created, paid", []*contract.Exchange{cobAt(1, time.Second, "PUT", "ATIVA"), cobAt(2, 2*time.Second, "GET", "CONCLUIDA")}, "", 0},
		{"cob: paid, then active again", []*contract.Exchange{cobAt(1, time.Second, "PUT", "ATIVA"), cobAt(2, 2*time.Second, "GET", "CONCLUIDA"), cobAt(3, 3*time.Second, "GET", "ATIVA")}, "state.cob-transition", 3},
		{"cob: one terminal state, then another", []*contract.Exchange{cobAt(1, time.Second, "GET", "REMOVIDA_PELO_PSP"), cobAt(2, 2*time.Second, "GET", "CONCLUIDA")}, "state.cob-transition", 2},
		{"cob: created paid", []*contract.Exchange{cobAt(1, time.Second, "PUT", "CONCLUIDA")}, "state.cob-transition", 1},
		{"cob: two reads in flight together", []*contract.Exchange{cobAt(1, time.Second, "GET", "CONCLUIDA"),
			func() *contract.Exchange { ex := cobAt(2, 500*time.Millisecond, "GET", "ATIVA"); return ex }()}, "", 0},
		{"refund: returned, then processing again", []*contract.Exchange{refundAt(1, "r1", "1.00", "DEVOLVIDO"), refundAt(2, "r1", "1.00", "EM_PROCESSAMENTO")}, "state.refund-transition", 2},
		{"refund: processing, then failed", []*contract.Exchange{refundAt(1, "r1", "1.00", "EM_PROCESSAMENTO"), refundAt(2, "r1", "1.00", "NAO_REALIZADO")}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := observeAll(state.Bounds{}, tt.exs...)
			if tt.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("state findings:%s", describe(fs))
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule != tt.rule || fs[0].Exchange != tt.on || fs[0].Kind != contract.KindState {
				t.Fatalf("want one %s finding on exchange %d; got:%s", tt.rule, tt.on, describe(fs))
			}
			if fs[0].Expected == "" || fs[0].Seen == "" || fs[0].Field == "" {
				t.Errorf("finding without its evidence: %+v", fs[0])
			}
		})
	}
}

// TestModel_Bounded: each window keeps at most Bounds.Keys entries; a key
// forgotten is judged as new (a finding missed, none made up).
func TestModel_Bounded(t *testing.T) {
	m := state.NewModel(state.Bounds{Keys: 3, Accounts: 2})
	for i := range 100 {
		m.Observe(transfer(uint64(i+1), fmt.Sprintf("6f1c1f3e-1b7a-4c1e-9d2a-%012d", i), i))
		m.Observe(balanceAt(uint64(i+1), time.Duration(i)*time.Second, epoch, tokenOf(fmt.Sprint(i), epoch)))
	}
	size := m.Size()
	if size["idempotencyKeys"] != 3 || size["clocks"] != 2 {
		t.Fatalf("sizes %v, want 3 idempotency keys and 2 clocks", size)
	}
	if fs := m.Observe(transfer(200, fmt.Sprintf("6f1c1f3e-1b7a-4c1e-9d2a-%012d", 0), 999)); len(fs) != 0 {
		t.Fatalf("a forgotten key raised:%s", describe(fs))
	}
	if fs := m.Observe(transfer(201, fmt.Sprintf("6f1c1f3e-1b7a-4c1e-9d2a-%012d", 99), 999)); len(fs) != 1 {
		t.Fatalf("a key still held raised %d findings, want 1", len(fs))
	}
}

// TestParseToken: the account of a token is its claims but times and id; a
// value that is not a JWT is its Authorization's hash.
func TestParseToken(t *testing.T) {
	a := state.ParseToken(tokenWith(`{"sub":"1","ws":"w1","iat":100,"exp":1900,"jti":"a"}`))
	b := state.ParseToken(tokenWith(`{"sub":"1","ws":"w1","iat":200,"exp":2000,"jti":"b"}`))
	c := state.ParseToken(tokenWith(`{"sub":"1","ws":"w2","iat":100,"exp":1900,"jti":"a"}`))
	if !a.JWT || a.Account != b.Account || a.Account == c.Account {
		t.Fatalf("accounts %q %q %q: want the first two alike and the third apart", a.Account, b.Account, c.Account)
	}
	if a.IssuedAt.Unix() != 100 || a.ExpiresAt.Unix() != 1900 {
		t.Fatalf("iat %v exp %v", a.IssuedAt, a.ExpiresAt)
	}
	if o := state.ParseToken("opaque"); o.JWT || !strings.HasPrefix(o.Account, "authorization:") {
		t.Fatalf("opaque token: %+v", o)
	}
	_ = http.Header{}
}
