package proxy_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/proxy"
)

// fakeClock is the fake upstream's clock: the instant its token is issued.
var fakeClock = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func fakeToken(iat time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims := fmt.Sprintf(`{"iss":"fake","sub":"1","iat":%d,"exp":%d}`, iat.Unix(), iat.Add(1800*time.Second).Unix())
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + "." + enc([]byte("sig"))
}

// fake is an upstream that answers every route with a valid body, and
// breaks one state rule as its test asks.
type fake struct {
	mu    sync.Mutex
	n     int                                                      // answers so far, for fresh ids
	reads map[string][]string                                      // status to answer to each read of a path, in turn
	now   time.Time                                                // the clock its answers show
	hook  func(w http.ResponseWriter, r *http.Request, n int) bool // answers instead, when it returns true
}

// fresh returns a fake that answers as f does, from its start.
func (f *fake) fresh() *fake {
	return &fake{reads: maps.Clone(f.reads), now: f.now, hook: f.hook}
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.n++
	n := f.n
	var status string
	if q := f.reads[r.URL.Path]; len(q) > 0 && r.Method == http.MethodGet {
		status, f.reads[r.URL.Path] = q[0], q[1:]
	}
	now := f.now.Format(time.RFC3339)
	f.mu.Unlock()
	if f.hook != nil && f.hook(w, r, n) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	send := func(code int, s string) {
		w.WriteHeader(code)
		_, _ = io.WriteString(w, s)
	}
	switch p := r.URL.Path; {
	case p == "/api/auth/token":
		send(201, `{"access_token":"`+fakeToken(fakeClock)+`","token_type":"Bearer","expires_in":1800}`)
	case p == "/accounts/balances":
		send(200, `{"data":[{"eventDate":"`+now+`","balanceAmount":{"available":100.00,"blocked":0,"overdraft":0}}]}`)
	case p == "/dict/pix":
		send(200, fmt.Sprintf(`{"endToEndId":"0b8f5f0e3c1d4c579a556a3e1b2f9c10","eventDate":"%s","id":%d,"payment":{"amount":12.34},"type":"PENDING"}`, now, n))
	case p == "/api/pix/cash-out":
		ext := between(string(body), `"externalId":"`, `"`)
		send(201, fmt.Sprintf(`{"transactionId":"6f1c1f3e-1b7a-4c1e-9d2a-%012d","externalId":"%s","status":"PENDING","generateTime":"%s"}`, n, ext, now))
	case strings.HasPrefix(p, "/cob/"):
		code := 200
		if r.Method == "PUT" {
			code, status = 201, "ATIVA"
		}
		txid := strings.TrimPrefix(p, "/cob/")
		send(code, `{"calendario":{"criacao":"`+now+`","expiracao":3600},"txid":"`+txid+`","revisao":0,"loc":{"id":1,"location":"`+brCode+`","tipoCob":"cob"},"location":"`+brCode+`","status":"`+status+`","valor":{"original":"15.00"},"chave":"k1"}`)
	case strings.Contains(p, "/devolucao/"):
		code := 200
		if r.Method == "PUT" {
			code, status = 201, "EM_PROCESSAMENTO"
		}
		id := p[strings.LastIndexByte(p, '/')+1:]
		valor := between(string(body), `"valor":"`, `"`)
		if valor == "" {
			valor = "1.00"
		}
		send(code, `{"id":"`+id+`","rtrId":"D13140088202603021200abcdefghijk","valor":"`+valor+`","natureza":"ORIGINAL","horario":{"solicitacao":"`+now+`"},"status":"`+status+`"}`)
	case p == "/api/transactions":
		send(200, `{"data":[{"transactionId":"5","externalId":"","status":"Confirmado","operationType":"Pix in","movementType":"CREDIT","originalAmount":50.00,"feeAmount":0.00,"finalAmount":50.00,"endToEndId":"`+e2eFake+
			`","createdAt":"`+now+`","processedAt":"`+now+`","counterpart":{"name":"n","document":"***","bank":{"bankISPB":"1","bankName":"b","bankCode":"1","accountBranch":"1","accountNumber":"1"}}}],"metadata":{"page":1,"size":20,"total":1,"totalPages":1,"hasNext":false,"hasPrevious":false}}`)
	default:
		send(404, `{"statusCode":404,"message":"no route","error":"Not Found"}`)
	}
}

const (
	e2eFake = "E13140088202603021200abcdefghijk"
	brCode  = "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63047EC0"
)

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}

// TestProxy_StateRules: against a fake upstream that breaks one state rule
// (and answers every body as the contract says), the proxy reports that
// rule, on the exchange that breaks it, and no response finding.
func TestProxy_StateRules(t *testing.T) {
	const key = "X-Idempotency-Key: 6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10"
	cashOut := `{"value":10.50,"externalId":"dup-1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`
	tests := []struct {
		name, rule string
		fake       *fake
		script     func(c *client)
	}{
		{"a replayed idempotency key answered with a new transfer", "state.idempotent-replay", &fake{},
			func(c *client) {
				for range 2 {
					c.do("POST", "/dict/pix", `{"pixKey":"k","payment":{"currency":"BRL","amount":12.34}}`, key)
				}
			}},
		{"a duplicate externalId accepted", "state.external-id-duplicate", &fake{},
			func(c *client) {
				c.do("POST", "/api/pix/cash-out", cashOut)
				c.do("POST", "/api/pix/cash-out", cashOut)
			}},
		{"refunds above the original accepted", "state.refund-over-original", &fake{},
			func(c *client) {
				c.do("GET", "/api/transactions", "")
				c.do("PUT", "/pix/"+e2eFake+"/devolucao/r1", `{"valor":"30.00"}`)
				c.do("PUT", "/pix/"+e2eFake+"/devolucao/r2", `{"valor":"30.00"}`)
			}},
		{"a token accepted 2 hours after issue", "state.token-expired-accepted", &fake{now: fakeClock.Add(2 * time.Hour)},
			func(c *client) {
				c.do("POST", "/api/auth/token", `{"clientId":"2b28bc5f-714d-4515-9a30-06854d5df38c","clientSecret":"s"}`, "X-SSL-Client-Cert: pem", "Authorization: ")
				c.do("GET", "/accounts/balances", "")
			}},
		{"a cob paid, then active again", "state.cob-transition", &fake{reads: map[string][]string{"/cob/faketxid000000000000000000001": {"CONCLUIDA", "ATIVA"}}},
			func(c *client) {
				c.do("PUT", "/cob/faketxid000000000000000000001", `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"k1"}`)
				c.do("GET", "/cob/faketxid000000000000000000001", "")
				c.do("GET", "/cob/faketxid000000000000000000001", "")
			}},
		{"a refund returned, then processing again", "state.refund-transition", &fake{reads: map[string][]string{"/pix/" + e2eFake + "/devolucao/r1": {"DEVOLVIDO", "EM_PROCESSAMENTO"}}},
			func(c *client) {
				c.do("GET", "/pix/"+e2eFake+"/devolucao/r1", "")
				c.do("GET", "/pix/"+e2eFake+"/devolucao/r1", "")
			}},
	}
	for _, j := range judgings {
		for _, tt := range tests {
			t.Run(j.name+"/"+tt.name, func(t *testing.T) {
				fk := tt.fake.fresh()
				if fk.now.IsZero() {
					fk.now = fakeClock
				}
				up := httptest.NewServer(fk)
				defer up.Close()
				u, findings, stop, err := proxy.Start(up.URL, proxy.Options{JudgeProcess: j.process})
				if err != nil {
					t.Fatal(err)
				}
				defer stop()
				c := newClient(t, u)
				c.token = fakeToken(fakeClock)
				tt.script(c)
				got := byKind(findings())
				if len(got["response"]) > 0 {
					t.Errorf("the fake's answers raised response findings:%s", lines(got["response"]))
				}
				if len(got["state"]) != 1 || got["state"][0].Rule != tt.rule {
					t.Fatalf("want one %s finding; state findings:%s", tt.rule, lines(got["state"]))
				}
				if f := got["state"][0]; f.Rule != "state.token-expired-accepted" && len(f.Related) == 0 {
					t.Errorf("the finding does not name the earlier exchanges it rests on: %s", proxy.Line(f))
				}
			})
		}
	}
}

// TestProxy_JudgesGzip: an answer the upstream gzip-encoded (the client
// asked for it) reaches the client encoded and is judged decoded.
func TestProxy_JudgesGzip(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(gzipped(`{"data":[]}`))
	}))
	defer up.Close()
	u, findings, stop, err := proxy.Start(up.URL, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	c.token = fakeToken(fakeClock)
	a := c.do("GET", "/api/transactions", "", "Accept-Encoding: gzip")
	if a.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("the answer lost its encoding: %v", a.Header)
	}
	fs := findings()
	found := false
	for _, f := range fs {
		found = found || (f.Rule == "resp.field-missing" && f.Field == "metadata")
	}
	if !found {
		t.Fatalf("the decoded listing was not judged (metadata is absent):%s", lines(fs))
	}
}

// TestProxy_BalanceRule: with quiet accounts, a fake upstream that leaves a
// cash-out's fee blocked after settlement is reported on the read that shows
// it; without, or when the reads are served beside other exchanges, nothing
// is judged.
func TestProxy_BalanceRule(t *testing.T) {
	cashOut := `{"value":10.00,"externalId":"fee-1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`
	balances := func(pairs ...string) func(w http.ResponseWriter, r *http.Request, n int) bool {
		var mu sync.Mutex
		return func(w http.ResponseWriter, r *http.Request, _ int) bool {
			if r.URL.Path != "/accounts/balances" {
				return false
			}
			mu.Lock()
			pair := pairs[0]
			if len(pairs) > 1 {
				pairs = pairs[1:]
			}
			mu.Unlock()
			avail, blocked, _ := strings.Cut(pair, "/")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"data":[{"eventDate":"`+fakeClock.Format(time.RFC3339)+`","balanceAmount":{"available":`+avail+`,"blocked":`+blocked+`,"overdraft":0}}]}`)
			return true
		}
	}
	for _, tt := range []struct {
		name   string
		quiet  bool
		beside bool
		want   int
	}{
		{"quiet accounts", true, false, 1},
		{"not quiet", false, false, 0},
		{"reads beside other exchanges", true, true, 0},
	} {
		for _, j := range judgings {
			t.Run(j.name+"/"+tt.name, func(t *testing.T) {
				started, release := make(chan struct{}), make(chan struct{})
				answer := balances("100.00/0", "88.50/11.50", "88.50/1.50")
				hook := func(w http.ResponseWriter, r *http.Request, n int) bool {
					if r.Header.Get("X-Slow") != "" {
						started <- struct{}{}
						<-release
						return false
					}
					return answer(w, r, n)
				}
				up := httptest.NewServer(&fake{now: fakeClock, hook: hook})
				defer up.Close()
				u, findings, stop, err := proxy.Start(up.URL, proxy.Options{QuietAccounts: tt.quiet, JudgeProcess: j.process})
				if err != nil {
					t.Fatal(err)
				}
				defer stop()
				c := newClient(t, u)
				c.token = fakeToken(fakeClock)
				read := func() {
					if !tt.beside {
						c.do("GET", "/accounts/balances", "")
						return
					}
					// A slow exchange is in flight the whole time the read is.
					done := make(chan struct{})
					go func() {
						defer close(done)
						c.do("GET", "/api/transactions", "", "X-Slow: 1")
					}()
					<-started
					c.do("GET", "/accounts/balances", "")
					release <- struct{}{}
					<-done
				}
				read()
				c.do("POST", "/api/pix/cash-out", cashOut)
				read()
				read()
				got := byKind(findings())
				if len(got["response"]) > 0 {
					t.Errorf("response findings:%s", lines(got["response"]))
				}
				if len(got["state"]) != tt.want || (tt.want == 1 && (got["state"][0].Rule != "state.balance-mismatch" || got["state"][0].Field != "data[0].balanceAmount.blocked")) {
					t.Fatalf("want %d state.balance-mismatch findings on blocked; state findings:%s", tt.want, lines(got["state"]))
				}
			})
		}
	}
}
