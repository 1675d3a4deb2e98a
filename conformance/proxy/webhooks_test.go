package proxy_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// recording is an integrator's webhook receiver that keeps every request
// and answers with the status, header and body it is given.
type recording struct {
	mu     sync.Mutex
	got    []recorded
	status int
	header http.Header
	body   []byte
}

type recorded struct {
	Method, Path, RawPath, RawQuery, Host string
	Header                                http.Header
	Body                                  []byte
}

func newRecording(t *testing.T, status int, header http.Header, body []byte) (*recording, *httptest.Server) {
	rec := &recording{status: status, header: header, body: body}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.got = append(rec.got, recorded{Method: r.Method, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery, Host: r.Host, Header: r.Header.Clone(), Body: b})
		rec.mu.Unlock()
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body)
	}))
	t.Cleanup(srv.Close)
	return rec, srv
}

func (r *recording) deliveries() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.got...)
}

// listenHooks runs a proxy to upstream with its webhook side pointed at to.
func listenHooks(t *testing.T, upstream string, o proxy.Options) *proxy.Server {
	t.Helper()
	o.Upstream = upstream
	s, err := proxy.Listen("127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

// deliver posts body to url as the upstream's dispatcher would, with the
// headers given as "Name: value" pairs, and returns the answer.
func deliver(t *testing.T, url string, body []byte, headers ...string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Add(name, value)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

const transferDelivery = `{"type":"TRANSFER","data":{"id":7,"txId":null,"pixKey":"53992810232","status":"LIQUIDATED","payment":{"amount":"12.30","currency":"BRL"},` +
	`"endToEndId":"E13140088202603021200abcdefghijk","creditDebitType":"DEBIT","idempotencyKey":"6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10",` +
	`"creditorAccount":{"name":"Dane","document":"***.928.102-**","ispb":"00000000"},"remittanceInformation":null}}`

// TestWebhooks_ForwardsUnchanged: a delivery reaches --webhooks-to with its
// method, sub-path (escapes kept), query, headers and body byte for byte,
// and the receiver's status, headers and body come back to the upstream
// unchanged; on the main listener and on a listener of its own.
func TestWebhooks_ForwardsUnchanged(t *testing.T) {
	answerBody := []byte("{\"ok\": true}\n\x00\xff")
	rec, integrator := newRecording(t, 202, http.Header{"X-Receiver": {"r1"}, "Content-Type": {"application/x-receiver"}, "Set-Cookie": {"a=1", "b=2"}}, answerBody)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer api.Close()
	body := []byte(" " + transferDelivery + "\n") // whitespace and all
	for _, sep := range []bool{false, true} {
		t.Run(fmt.Sprint("separate listener ", sep), func(t *testing.T) {
			o := proxy.Options{WebhooksTo: integrator.URL + "/base?tenant=1"}
			if sep {
				o.WebhooksAddr = "127.0.0.1:0"
			}
			s := listenHooks(t, api.URL, o)
			if want := s.URL + proxy.WebhooksPath; !sep && s.WebhooksURL != want {
				t.Fatalf("WebhooksURL %q, want %q", s.WebhooksURL, want)
			}
			before := len(rec.deliveries())
			a := deliver(t, s.WebhooksURL+"/hooks/a%2Fb?attempt=2", body,
				"webhook-id: msg_1", "webhook-timestamp: 1674087231", "webhook-signature: v1,abc v1,def", "X-Custom: one", "X-Custom: two",
				"User-Agent: pixsandbox-webhooks/1", "X-Forwarded-For: 10.0.0.1")
			if a.Status != 202 || !bytes.Equal(a.Body, answerBody) || a.Header.Get("X-Receiver") != "r1" ||
				a.Header.Get("Content-Type") != "application/x-receiver" || len(a.Header.Values("Set-Cookie")) != 2 {
				t.Errorf("answer to the upstream: %d %v %q", a.Status, a.Header, a.Body)
			}
			got := rec.deliveries()[before:]
			if len(got) != 1 {
				t.Fatalf("the receiver got %d deliveries", len(got))
			}
			d := got[0]
			if d.Method != "POST" || d.Path != "/base/hooks/a/b" || d.RawPath != "/base/hooks/a%2Fb" || d.RawQuery != "tenant=1&attempt=2" {
				t.Errorf("forwarded to %s %s (raw %s) ? %s", d.Method, d.Path, d.RawPath, d.RawQuery)
			}
			if !bytes.Equal(d.Body, body) {
				t.Errorf("body %q, want %q", d.Body, body)
			}
			for name, want := range map[string]string{"Webhook-Id": "msg_1", "Webhook-Timestamp": "1674087231", "Webhook-Signature": "v1,abc v1,def",
				"User-Agent": "pixsandbox-webhooks/1", "X-Forwarded-For": "10.0.0.1", "Content-Type": "application/json"} {
				if v := d.Header.Values(name); len(v) != 1 || v[0] != want {
					t.Errorf("header %s: %q, want %q", name, v, want)
				}
			}
			if v := d.Header.Values("X-Custom"); len(v) != 2 || v[0] != "one" || v[1] != "two" {
				t.Errorf("X-Custom %q", v)
			}
			s.Quiesce()
			if sum, ok := s.Webhooks(); !ok || sum.Deliveries != 1 || sum.Unanswered != 0 {
				t.Errorf("webhook summary %+v", sum)
			}
		})
	}
}

// TestWebhooks_NotConfigured: without --webhooks-to the path is the proxy's
// own and answers 404; a secret or a listener without it is refused.
func TestWebhooks_NotConfigured(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { t.Error("forwarded to the upstream") }))
	defer api.Close()
	s := listenHooks(t, api.URL, proxy.Options{})
	if a := deliver(t, s.URL+proxy.WebhooksPath+"/x", []byte(transferDelivery)); a.Status != 404 || !strings.Contains(string(a.Body), "--webhooks-to") {
		t.Errorf("%d %s", a.Status, a.Body)
	}
	if s.WebhooksURL != "" {
		t.Errorf("WebhooksURL %q", s.WebhooksURL)
	}
	for _, o := range []proxy.Options{{Upstream: api.URL, WebhookSecret: "whsec_c2VjcmV0"}, {Upstream: api.URL, WebhooksAddr: "127.0.0.1:0"},
		{Upstream: api.URL, WebhooksTo: "ftp://x"}, {Upstream: api.URL, WebhooksTo: "http://x", WebhookSecret: "secret"}} {
		if _, err := proxy.New(o); err == nil {
			t.Errorf("%+v: accepted", o)
		}
	}
}

// fakeAPI answers a cob's creation ATIVA and its removal, and a cash-out.
func fakeAPI(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		status := "ATIVA"
		code := 201
		if r.Method == http.MethodPatch {
			status, code = "REMOVIDA_PELO_USUARIO_RECEBEDOR", 200
		}
		if r.URL.Path == "/api/pix/cash-out" {
			w.WriteHeader(201)
			fmt.Fprint(w, `{"transactionId":"6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10","externalId":"e1","status":"PENDING","generateTime":"2026-03-02T12:00:00Z"}`)
			return
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"calendario":{"criacao":"2026-03-02T12:00:00Z","expiracao":3600},"txid":"hooktxid00000000000000000001","revisao":0,"loc":{"id":1,"location":"%[1]s","tipoCob":"cob"},"location":"%[1]s","status":"%[2]s","valor":{"original":"15.00"},"chave":"k1"}`,
			"00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63047EC0", status)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// cashOutDelivery is the CashOut webhook of the cash-out fakeAPI answers
// (externalId e1).
const cashOutDelivery = `{"event":"CashOut","status":"CONFIRMED","transactionType":"PIX","movementType":"DEBIT","transactionId":"12","externalId":"e1","endToEndId":"E13140088202603021200abcdefghijk","pixKey":"k",` +
	`"feeAmount":0.00,"originalAmount":10.50,"finalAmount":10.50,"processingDate":"2026-03-02T12:00:02.000Z","errorCode":null,"errorMessage":null,` +
	`"counterpart":{"name":"D","document":"***","bank":{"bankISPB":"1","bankName":"b","bankCode":"1","accountBranch":null,"accountNumber":null}},"metadata":{}}`

// TestWebhooks_DeliveredBeforeTheAnswer: an upstream that delivers a
// transaction's webhook while it answers the request that created it (the
// delivery ends at the proxy before the answer does) gets no
// hook.unknown-transaction: the delivery is judged after the exchange in
// flight. A delivery of a transaction no answer shows still gets it once
// that exchange is judged.
func TestWebhooks_DeliveredBeforeTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		notice     bool
	}{
		{"the answer shows it", cashOutDelivery, false},
		{"no answer shows it", strings.NewReplacer(`"e1"`, `"e-unknown"`, `"12"`, `"99"`, "E1314", "E9914").Replace(cashOutDelivery), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, integrator := newRecording(t, 204, nil, nil)
			var hooksURL string
			api := fakeAPI(t)
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/pix/cash-out" {
					if a := deliver(t, hooksURL, []byte(tc.body), "webhook-id: msg_early"); a.Status != 204 {
						t.Errorf("the delivery got %d", a.Status)
					}
				}
				api.Config.Handler.ServeHTTP(w, r)
			}))
			t.Cleanup(upstream.Close)
			s := listenHooks(t, upstream.URL, proxy.Options{WebhooksTo: integrator.URL})
			hooksURL = s.WebhooksURL
			c := newClient(t, s.URL)
			c.token = "test-token"
			expect(t, c.do("POST", "/api/pix/cash-out", `{"value":10.50,"externalId":"e1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`), 201, "cash-out")
			s.Quiesce()
			var notices []string
			for _, f := range s.Findings() {
				if f.Kind == contract.KindWebhook {
					notices = append(notices, f.Rule)
				}
			}
			sum, _ := s.Webhooks()
			if got := slices.Contains(notices, "hook.unknown-transaction"); got != tc.notice || sum.Deliveries != 1 {
				t.Errorf("webhook findings %v, %d deliveries judged; want hook.unknown-transaction %v, 1 delivery", notices, sum.Deliveries, tc.notice)
			}
		})
	}
}

// TestWebhooks_Rules: an upstream whose deliveries break the rules, one
// delivery per rule, through the proxy: each gives its finding, of kind
// webhook, numbered with the exchanges and carrying the webhook-id; the
// receiver gets every delivery all the same.
func TestWebhooks_Rules(t *testing.T) {
	for _, j := range judgings {
		t.Run(j.name, func(t *testing.T) {
			rec, integrator := newRecording(t, 204, nil, nil)
			var log syncBuffer
			s := listenHooks(t, fakeAPI(t).URL, proxy.Options{WebhooksTo: integrator.URL, Log: &log, JudgeProcess: j.process})
			c := newClient(t, s.URL)
			c.token = "test-token"
			expect(t, c.do("PUT", "/cob/hooktxid00000000000000000001", `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"k1"}`), 201, "cob")
			expect(t, c.do("PATCH", "/cob/hooktxid00000000000000000001", `{"status":"REMOVIDA_PELO_USUARIO_RECEBEDOR"}`), 200, "cob removed")
			expect(t, c.do("POST", "/api/pix/cash-out", `{"value":10.50,"externalId":"e1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`), 201, "cash-out")
			s.Quiesce()
			receive := `{"type":"RECEIVE","data":{"id":15,"txId":"hooktxid00000000000000000001","status":"LIQUIDATED","payment":{"amount":"15.00","currency":"BRL"},"endToEndId":"E99999999202603021200abcdefghijk","debtorAccount":{"name":"F","document":"***"}}}`
			cashOut := cashOutDelivery
			cases := []struct {
				rule, body string
				headers    []string
			}{
				{"hook.envelope", `{"kind":"TRANSFER"}`, nil},
				{"hook.field-missing", strings.Replace(cashOut, `"processingDate":"2026-03-02T12:00:02.000Z",`, "", 1), nil},
				{"hook.money-format", strings.Replace(transferDelivery, `"12.30"`, `"12.3"`, 1), nil},
				{"hook.status-allowed", strings.Replace(cashOut, `"CONFIRMED"`, `"SETTLED"`, 1), nil},
				{"hook.unknown-transaction", strings.NewReplacer(`"e1"`, `"e-unknown"`, `"12"`, `"99"`, "E1314", "E9914").Replace(cashOut), nil},
				{"hook.status-inconsistent", receive, nil},
				{"hook.id-changed-on-retry", cashOut, []string{"webhook-id: msg_first"}},
				{"hook.id-changed-on-retry", cashOut, []string{"webhook-id: msg_first-2"}},
			}
			for i, tc := range cases {
				headers := tc.headers
				if headers == nil {
					headers = []string{"webhook-id: msg_" + strconv.Itoa(i)}
				}
				before := len(s.Findings())
				if a := deliver(t, s.WebhooksURL, []byte(tc.body), headers...); a.Status != 204 {
					t.Fatalf("%s: the upstream got %d", tc.rule, a.Status)
				}
				s.Quiesce()
				found := map[string]contract.Finding{}
				for _, f := range s.Findings()[before:] {
					found[f.Rule] = f
				}
				first := tc.headers != nil && strings.HasSuffix(tc.headers[0], "msg_first") // the first delivery of the body: nothing yet
				f, ok := found[tc.rule]
				switch {
				case first && len(found) > 0:
					t.Errorf("delivery %d: findings %v", i, found)
				case !first && !ok:
					t.Errorf("delivery %d: no %s; found %v", i, tc.rule, found)
				case ok && (f.Kind != contract.KindWebhook || f.Method != "POST" || f.Path != proxy.WebhooksPath || f.RequestID == "" || !strings.HasPrefix(f.Route, "webhook")):
					t.Errorf("finding %+v", f)
				}
			}
			if n := len(rec.deliveries()); n != len(cases) {
				t.Errorf("the receiver got %d deliveries, want %d", n, len(cases))
			}
			if !strings.Contains(log.String(), "[webhook] hook.money-format") || !strings.Contains(log.String(), "[notice] hook.unknown-transaction") {
				t.Errorf("log:\n%s", log.String())
			}
			if n := s.Counts().AtOrAbove(contract.KindResponse); n < 6 {
				t.Errorf("webhook findings rank with response: %d at or above response", n)
			}
			r := httptest.NewRecorder()
			s.ServeHTTP(r, httptest.NewRequest("GET", proxy.FindingsPath+"?kind=webhook", nil))
			var rep proxy.Report
			if err := json.Unmarshal(r.Body.Bytes(), &rep); err != nil || len(rep.Findings) < 6 {
				t.Errorf("GET %s?kind=webhook: %v, %d findings", proxy.FindingsPath, err, len(rep.Findings))
			}
		})
	}
}

// newSecret returns a Standard Webhooks secret of 32 random bytes.
func newSecret(t *testing.T) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b[:])
}

// TestWebhooks_Signature: with --webhook-secret, a delivery signed right
// passes, one signed with another secret fails hook.signature, a stale one
// hook.timestamp; every one is forwarded as it came.
func TestWebhooks_Signature(t *testing.T) {
	for _, j := range judgings {
		t.Run(j.name, func(t *testing.T) {
			rec, integrator := newRecording(t, 200, nil, nil)
			secret := newSecret(t)
			s := listenHooks(t, fakeAPI(t).URL, proxy.Options{WebhooksTo: integrator.URL, WebhookSecret: secret, JudgeProcess: j.process})
			sign := func(secret, id string, at time.Time, body []byte) []string {
				wh, err := standardwebhooks.NewWebhook(secret)
				if err != nil {
					t.Fatal(err)
				}
				sig, err := wh.Sign(id, at, body)
				if err != nil {
					t.Fatal(err)
				}
				return []string{"webhook-id: " + id, "webhook-timestamp: " + strconv.FormatInt(at.Unix(), 10), "webhook-signature: " + sig}
			}
			now := time.Now()
			for _, tc := range []struct {
				name, id string
				headers  []string
				want     string
			}{
				{"good", "msg_good", sign(secret, "msg_good", now, []byte(transferDelivery)), ""},
				{"bad", "msg_bad", sign(newSecret(t), "msg_bad", now, []byte(transferDelivery)), "hook.signature"},
				{"stale", "msg_stale", sign(secret, "msg_stale", now.Add(-10*time.Minute), []byte(transferDelivery)), "hook.timestamp"},
			} {
				if a := deliver(t, s.WebhooksURL, []byte(transferDelivery), tc.headers...); a.Status != 200 {
					t.Fatalf("%s: %d", tc.name, a.Status)
				}
				s.Quiesce()
				var got []string
				for _, f := range s.Findings() {
					if f.RequestID == tc.id && (f.Rule == "hook.signature" || f.Rule == "hook.timestamp") {
						got = append(got, f.Rule)
					}
				}
				if strings.Join(got, " ") != tc.want {
					t.Errorf("%s: signing findings %v, want %q", tc.name, got, tc.want)
				}
			}
			if n := len(rec.deliveries()); n != 3 {
				t.Errorf("the receiver got %d deliveries", n)
			}
		})
	}
}

// TestWebhooks_UnreachableReceiver: a --webhooks-to that does not answer
// gets the upstream 502 in the minimal shape naming it, and an upstream
// finding naming it; the delivery is judged all the same.
func TestWebhooks_UnreachableReceiver(t *testing.T) {
	for _, j := range judgings {
		t.Run(j.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			gone := "http://" + ln.Addr().String() + "/hooks"
			ln.Close()
			s := listenHooks(t, fakeAPI(t).URL, proxy.Options{WebhooksTo: gone, JudgeProcess: j.process})
			a := deliver(t, s.WebhooksURL, []byte(strings.Replace(transferDelivery, `"12.30"`, `"12.3"`, 1)), "webhook-id: msg_1")
			var body map[string]any
			if err := json.Unmarshal(a.Body, &body); err != nil || a.Status != 502 || body["statusCode"] != float64(502) || body["error"] != "Bad Gateway" ||
				!strings.Contains(fmt.Sprint(body["message"]), gone) {
				t.Fatalf("the upstream got %d %s", a.Status, a.Body)
			}
			s.Quiesce()
			var rules []string
			for _, f := range s.Findings() {
				if !f.Notice { // the transfer is unknown to the proxy: a notice
					rules = append(rules, f.Rule)
				}
				if f.Rule == "upstream.receiver-unreachable" && (f.Kind != contract.KindUpstream || !strings.Contains(f.Message, gone) || !strings.Contains(f.Expected, gone)) {
					t.Errorf("finding %+v", f)
				}
			}
			if strings.Join(rules, " ") != "hook.money-format upstream.receiver-unreachable" {
				t.Errorf("findings %v", rules)
			}
			if sum, _ := s.Webhooks(); sum.Unanswered != 1 || s.Summary().Unreachable != 1 {
				t.Errorf("summary %+v / %+v", sum, s.Summary())
			}
		})
	}
}

// TestWebhooks_LargeBody: a delivery over 1 MiB streams through whole and
// unjudged, with a notice.
func TestWebhooks_LargeBody(t *testing.T) {
	rec, integrator := newRecording(t, 204, nil, nil)
	s := listenHooks(t, fakeAPI(t).URL, proxy.Options{WebhooksTo: integrator.URL})
	big := bytes.Repeat([]byte("x"), proxy.BodyLimit+10)
	if a := deliver(t, s.WebhooksURL, big); a.Status != 204 {
		t.Fatalf("%d", a.Status)
	}
	s.Quiesce()
	if got := rec.deliveries(); len(got) != 1 || !bytes.Equal(got[0].Body, big) {
		t.Fatalf("the receiver did not get the body whole")
	}
	if fs := s.Findings(); len(fs) != 1 || fs[0].Rule != "hook.body-unjudged" || !fs[0].Notice {
		t.Errorf("findings:%s", lines(fs))
	}
}

// TestWebhooks_HealthySimulator: the simulator delivers its real webhooks
// (CashOut, TRANSFER, RECEIVE of a paid cob and of a PIX by key, CashIn,
// REFUND, med_created and med_accepted), signed, to the proxy registered as
// the account's receiver through the control plane; the proxy forwards each
// to the integrator and finds nothing wrong with them, nor with the answers.
func TestWebhooks_HealthySimulator(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	rec, integrator := newRecording(t, 204, nil, nil)
	secret := newSecret(t)
	var log syncBuffer
	s := listenHooks(t, env.URL, proxy.Options{WebhooksTo: integrator.URL, WebhookSecret: secret, Log: &log})
	c := newClient(t, s.URL)
	set := env.Fixtures
	acct := set.Accounts[0].ID
	for _, ev := range []string{"cash_out", "cash_in", "refund_in", "med_created", "med_accepted"} {
		expect(t, c.do("POST", "/_sandbox/webhook-targets", fmt.Sprintf(`{"accountId":%d,"url":%q,"eventType":%q,"secret":%q}`,
			acct, s.WebhooksURL+"/hooks/"+ev, ev, secret)), 201, "target "+ev)
	}
	c.token = tokenFor(t, c, set, 0)
	evp := keyOf(t, set, 0, "EVP")
	advance := func(seconds int) {
		expect(t, c.do("POST", "/_sandbox/clock/advance", fmt.Sprintf(`{"seconds":%d,"wait":"webhooks"}`, seconds), "Authorization: "), 200, "clock advance")
	}

	// A cash-out and a transfer, settled.
	expect(t, c.do("POST", "/api/pix/cash-out", `{"value":10.50,"externalId":"hooks-1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane Powell","document":"53992810232"}}`), 201, "cash-out")
	expect(t, c.do("POST", "/dict/pix", `{"pixKey":"53992810232","payment":{"currency":"BRL","amount":12.30}}`, "X-Idempotency-Key: 0b8f5f0e-3c1d-4c57-9a55-6a3e1b2f9c10"), 200, "transfer")
	// A cob, paid.
	expect(t, c.do("PUT", "/cob/hookstxid0000000000000000000001", `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"`+evp+`"}`), 201, "cob")
	expect(t, c.do("POST", "/_sandbox/payments", `{"txid":"hookstxid0000000000000000000001"}`, "Authorization: "), 201, "cob paid")
	// A cash-in charge with the flat CashIn payload, paid.
	expect(t, c.do("PUT", fmt.Sprintf("/_sandbox/accounts/%d/settings", acct), `{"cashInWebhook":"CashIn"}`, "Authorization: "), 200, "CashIn payloads")
	charge := expect(t, c.do("POST", "/api/pix/cash-in", `{"transaction":{"value":25.00,"description":"hooks","externalId":"hooks-cin-1"},"payer":{"fullName":"Fulano de Tal","document":"52998224725"}}`), 201, "cash-in")
	expect(t, c.do("POST", "/_sandbox/payments", `{"transactionId":"`+charge.str(t, "transactionId")+`"}`, "Authorization: "), 201, "charge paid")
	// A PIX received by key, refunded.
	in := expect(t, c.do("POST", "/_sandbox/pix-in", `{"key":"`+evp+`","amount":50.00}`, "Authorization: "), 201, "pix-in")
	e2e := in.str(t, "endToEndId")
	expect(t, c.do("PUT", "/pix/"+e2e+"/devolucao/hooksrefund1", `{"valor":"10.00","natureza":"ORIGINAL","descricao":"hooks"}`), 201, "refund")
	advance(60)
	// A MED of the PIX, approved.
	med := expect(t, c.do("POST", "/_sandbox/med", fmt.Sprintf(`{"accountId":%d,"endToEndId":%q}`, acct, e2e), "Authorization: "), 201, "MED")
	medID := med.str(t, "id")
	expect(t, c.do("POST", "/_sandbox/med/"+medID+"/receive", `{}`, "Authorization: "), 200, "MED received")
	expect(t, c.do("POST", "/_sandbox/med/"+medID+"/analyze", `{"result":"APPROVED"}`, "Authorization: "), 200, "MED approved")
	advance(1)
	// Reads after the deliveries: listings, the cob, the refund, the MEDs.
	expect(t, c.do("GET", "/api/transactions", ""), 200, "listing")
	expect(t, c.do("GET", "/cob/hookstxid0000000000000000000001", ""), 200, "cob read")
	expect(t, c.do("GET", "/pix/"+e2e+"/devolucao/hooksrefund1", ""), 200, "refund read")
	expect(t, c.do("GET", "/api/med", ""), 200, "MED list")

	s.Quiesce()
	for _, f := range s.Findings() {
		if f.Kind != contract.KindRequest {
			t.Errorf("%s", proxy.Line(f))
		}
	}
	payloads := map[string]int{}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rec.deliveries() {
		var p struct{ Type, Event string }
		_ = json.Unmarshal(d.Body, &p)
		payloads[p.Type+p.Event]++
		if err := wh.Verify(d.Body, d.Header); err != nil {
			t.Errorf("a delivery as forwarded fails the library's verification: %v", err)
		}
	}
	for _, p := range []string{"CashOut", "TRANSFER", "RECEIVE", "CashIn", "REFUND", "med_created", "med_accepted"} {
		if payloads[p] == 0 {
			t.Errorf("no %s delivered (got %v)", p, payloads)
		}
	}
	sum, _ := s.Webhooks()
	if sum.Deliveries != int64(len(rec.deliveries())) || sum.Findings != 0 || sum.Notices != 0 {
		t.Errorf("summary %+v, receiver got %d", sum, len(rec.deliveries()))
	}
	t.Logf("%d deliveries judged clean: %v", sum.Deliveries, payloads)
}
