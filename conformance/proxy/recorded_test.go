package proxy_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// validate reads recorded traffic from b and judges it.
func validate(t testing.TB, name string, r io.Reader) (*proxy.Recording, *proxy.Validation, string) {
	t.Helper()
	rc, err := proxy.ReadRecording(name, r)
	if err != nil {
		t.Fatalf("ReadRecording: %v", err)
	}
	t.Cleanup(func() { _ = rc.Close() })
	var log syncBuffer
	v, err := proxy.ValidateRecording(rc, proxy.Options{Log: &log})
	if err != nil {
		t.Fatalf("ValidateRecording: %v", err)
	}
	return rc, v, log.String()
}

// findingKey is what the comparisons match: the rule, where, and the field.
type findingKey struct {
	id, rule, method, path, field string
}

func (k findingKey) String() string {
	return fmt.Sprintf("%s %s %s [%s] (%s)", k.rule, k.method, k.path, k.field, k.id)
}

// keyed counts findings by key; by names the exchange (its request id, or
// its number), notices are left out unless notices is true.
func keyed(fs []contract.Finding, by func(contract.Finding) string, notices bool, skip func(contract.Finding) bool) map[findingKey]int {
	out := map[findingKey]int{}
	for _, f := range fs {
		if (f.Notice && !notices) || (skip != nil && skip(f)) {
			continue
		}
		out[findingKey{by(f), f.Rule, f.Method, f.Path, f.Field}]++
	}
	return out
}

// diff lists the keys whose counts differ.
func diff(live, offline map[findingKey]int) []string {
	var out []string
	for k, n := range live {
		if offline[k] != n {
			out = append(out, fmt.Sprintf("live %d, validate %d: %s", n, offline[k], k))
		}
	}
	for k, n := range offline {
		if _, ok := live[k]; !ok {
			out = append(out, fmt.Sprintf("live 0, validate %d: %s", n, k))
		}
	}
	sort.Strings(out)
	return out
}

func byRequestID(f contract.Finding) string { return f.RequestID }

func byExchange(f contract.Finding) string { return fmt.Sprint(f.Exchange) }

// validationScript adds, to the healthy script's traffic, request mistakes
// the contract names and state-relevant traffic of a second account: the
// externalId and idempotency key account 1 used, accepted again for
// account 2 (per account, no finding).
func validationScript(t *testing.T, c *client, env *simulatortest.Env) {
	t.Helper()
	const dictKey = "53992810232"
	c.token = tokenFor(t, c, env.Fixtures, 0)
	transfer := `{"pixKey":"` + dictKey + `","payment":{"currency":"BRL","amount":1.00}}`
	cashOut := `{"value":10.50,"externalId":"validate-ext-1","details":{"key":"` + dictKey + `","keyType":"DOCUMENT","name":"Dane Powell","document":"` + dictKey + `"}}`
	key := "X-Idempotency-Key: 1d3e5c7a-9b2f-4e6d-8c1a-3f5e7d9b1c20"
	expect(t, c.do("POST", "/dict/pix", transfer, key), 200, "transfer")
	expect(t, c.do("POST", "/dict/pix", transfer, key), 200, "transfer replayed")
	c.do("POST", "/dict/pix", transfer, "X-Idempotency-Key: not-a-uuid")
	expect(t, c.do("POST", "/api/pix/cash-out", cashOut), 201, "cash-out")
	expect(t, c.do("POST", "/api/pix/cash-out", cashOut), 400, "cash-out duplicate")
	c.do("POST", "/api/pix/cash-out", `{"value":"ten","externalId":7,"details":{"key":"k","keyType":"NOPE","name":"n","document":"1"}}`)
	c.do("POST", "/api/pix/cash-out", `{"value":10.505,"externalId":"validate-ext-2"`)
	c.do("PUT", "/pix/E00000000202601010000abcdefghijk/devolucao/v1", `{"valor":"1.00","natureza":"MED_FRAUDE"}`)
	c.do("GET", "/api/med?status=NOPE&page=0", "")

	c.token = tokenFor(t, c, env.Fixtures, 1)
	expect(t, c.do("POST", "/dict/pix", transfer, key), 200, "account 2's transfer with account 1's key")
	expect(t, c.do("POST", "/api/pix/cash-out", cashOut), 201, "account 2's cash-out with account 1's externalId")
	expect(t, c.do("GET", "/accounts/balances", ""), 200, "account 2's balance")
}

// journalExport reads the simulator's whole request journal: the JSON
// answer of GET /_sandbox/requests, newest first.
func journalExport(t *testing.T, base string) []byte {
	t.Helper()
	resp, err := http.Get(base + "/_sandbox/requests?limit=1000000")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /_sandbox/requests: %d %v", resp.StatusCode, err)
	}
	return b
}

// journalLines turns the export into what `pixsandbox requests --json`
// prints: one entry per line, oldest first.
func journalLines(t *testing.T, export []byte) []byte {
	t.Helper()
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(export, &list); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i := len(list.Data) - 1; i >= 0; i-- {
		if err := json.Compact(&b, list.Data[i]); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// bodyRules are the request rules that read the body: judged live, not
// from a journal entry whose body the server never read.
var bodyRules = map[string]bool{"req.content-type": true, "req.body-json": true, "req.field-missing": true,
	"req.field-type": true, "req.money-format": true, "req.value-allowed": true}

// TestValidate_JournalMatchesProxy is the acceptance test of `pixsandbox
// validate`: traffic through the proxy in front of a simulator with its
// journal on, then the journal exported (GET /_sandbox/requests, and the
// lines of pixsandbox requests --json) and validated, gives the proxy's
// findings, matched by the simulator's request id, rule, method, path and
// field. The one expected difference is the documented one: a body the
// server answered without reading (a request refused for its token) is
// not in the journal, so validate gives a req.body-unjudged notice in place
// of the body rules' findings.
func TestValidate_JournalMatchesProxy(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 10_000})
	var log syncBuffer
	u, findings, stop, err := proxy.Start(env.URL, proxy.Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	healthyScript(t, c, env.Fixtures)
	validationScript(t, c, env)
	live := findings()

	export := journalExport(t, env.URL)
	path := filepath.Join(t.TempDir(), "journal.json")
	if err := os.WriteFile(path, export, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, in := range []struct {
		name   string
		format proxy.Format
		r      io.Reader
	}{
		{path, proxy.FormatJournal, f},
		{"requests.jsonl", proxy.FormatJournalLines, bytes.NewReader(journalLines(t, export))},
	} {
		rc, v, _ := validate(t, in.name, in.r)
		if rc.Format != in.format {
			t.Errorf("%s read as %s, want %s", in.name, rc.Format, in.format)
		}
		offline := v.Findings()
		unread := map[string]bool{}
		for _, f := range offline {
			if f.Rule == "req.body-unjudged" && strings.Contains(f.Message, "without reading it") {
				unread[f.RequestID] = true
			}
		}
		liveKeys := keyed(live, byRequestID, true, func(f contract.Finding) bool { return unread[f.RequestID] && bodyRules[f.Rule] })
		offKeys := keyed(offline, byRequestID, true, func(f contract.Finding) bool { return unread[f.RequestID] && f.Rule == "req.body-unjudged" })
		if d := diff(liveKeys, offKeys); len(d) > 0 {
			t.Errorf("%s: validate and the live proxy differ:\n  %s", in.name, strings.Join(d, "\n  "))
		}
		s, ls := v.Summary(), c.routes
		if s.Exchanges != int64(rc.Len()) || s.Contract < int64(len(ls)) || v.Hidden == 0 {
			t.Errorf("%s: %d entries, summary %+v, %d hidden (the masked access tokens)", in.name, rc.Len(), s, v.Hidden)
		}
		kinds := byKind(offline)
		t.Logf("%s: %d entries, %d request, %d response, %d state findings, %d notices (%d bodies unread), %d hidden",
			in.name, rc.Len(), len(kinds["request"]), len(kinds["response"]), len(kinds["state"]), len(kinds["notice"]), len(unread), v.Hidden)
	}
	if len(byKind(live)["request"]) < 20 {
		t.Errorf("the script raised few request findings:%s", lines(live))
	}
}

// harRecorder is an http.RoundTripper that records every exchange as a HAR
// entry, as a browser or a recording proxy would; every other answer's
// body is saved in base64.
type harRecorder struct {
	base    http.RoundTripper
	mu      sync.Mutex
	entries []map[string]any
}

func harHeaders(h http.Header) []map[string]string {
	var out []map[string]string
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, map[string]string{"name": k, "value": v})
		}
	}
	return out
}

func (h *harRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := h.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	h.mu.Lock()
	defer h.mu.Unlock()
	content := map[string]any{"size": len(body), "mimeType": resp.Header.Get("Content-Type"), "text": string(body)}
	if len(h.entries)%2 == 1 {
		content["text"], content["encoding"] = base64.StdEncoding.EncodeToString(body), "base64"
	}
	request := map[string]any{"method": req.Method, "url": req.URL.String(), "httpVersion": "HTTP/1.1", "headers": harHeaders(req.Header)}
	if len(reqBody) > 0 {
		request["postData"] = map[string]any{"mimeType": req.Header.Get("Content-Type"), "text": string(reqBody)}
	}
	h.entries = append(h.entries, map[string]any{
		"startedDateTime": start.UTC().Format(time.RFC3339Nano),
		"time":            float64(time.Since(start).Microseconds()) / 1000,
		"request":         request,
		"response":        map[string]any{"status": resp.StatusCode, "headers": harHeaders(resp.Header), "content": content},
	})
	return resp, nil
}

func (h *harRecorder) har(t *testing.T) []byte {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	b, err := json.MarshalIndent(map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]string{"name": "harRecorder"}, "entries": h.entries}}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestValidate_HARMatchesProxy: traffic that breaks each state rule (a
// fake upstream, as in TestProxy_StateRules) recorded by the client as a
// HAR file gives, validated, the live proxy's findings: the state findings
// and every other, exchange by exchange. A HAR keeps the bearer token, so
// the token rule judges it too (on the HAR's times).
func TestValidate_HARMatchesProxy(t *testing.T) {
	const key = "X-Idempotency-Key: 6f1c1f3e-1b7a-4c1e-9d2a-0c5b8e7f6a10"
	cashOut := `{"value":10.50,"externalId":"dup-1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`
	cobPath := "/cob/faketxid000000000000000000001"
	refund := "/pix/" + e2eFake + "/devolucao/r1"
	fk := &fake{now: fakeClock, reads: map[string][]string{cobPath: {"CONCLUIDA", "ATIVA"}, refund: {"DEVOLVIDO", "EM_PROCESSAMENTO"}}}
	up := httptest.NewServer(fk)
	defer up.Close()
	u, findings, stop, err := proxy.Start(up.URL, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	rec := &harRecorder{base: c.http.Transport}
	c.http.Transport = rec
	c.token = fakeToken(fakeClock)
	for range 2 {
		c.do("POST", "/dict/pix", `{"pixKey":"k","payment":{"currency":"BRL","amount":12.34}}`, key)
		c.do("POST", "/api/pix/cash-out", cashOut)
	}
	c.do("POST", "/dict/pix", `{"pixKey":"k","payment":{"currency":"BRL","amount":12.345}}`)
	c.do("GET", "/api/transactions", "")
	c.do("PUT", "/pix/"+e2eFake+"/devolucao/r2", `{"valor":"30.00"}`)
	c.do("PUT", "/pix/"+e2eFake+"/devolucao/r3", `{"valor":"30.00"}`)
	c.do("PUT", cobPath, `{"calendario":{"expiracao":3600},"valor":{"original":"15.00"},"chave":"k1"}`)
	c.do("GET", cobPath, "")
	c.do("GET", cobPath, "")
	c.do("GET", refund, "")
	c.do("GET", refund, "")
	c.do("GET", "/nowhere", "")
	fk.mu.Lock()
	fk.now = fakeClock.Add(2 * time.Hour) // the token, issued at fakeClock, is accepted 2 hours later
	fk.mu.Unlock()
	c.do("POST", "/api/auth/token", `{"clientId":"2b28bc5f-714d-4515-9a30-06854d5df38c","clientSecret":"s"}`, "X-SSL-Client-Cert: pem", "Authorization: ")
	c.do("GET", "/accounts/balances", "")
	live := findings()

	rc, v, log := validate(t, "recorded.har", bytes.NewReader(rec.har(t)))
	if rc.Format != proxy.FormatHAR || rc.Len() != 16 {
		t.Fatalf("read as %s with %d entries, want a HAR file of 16", rc.Format, rc.Len())
	}
	if d := diff(keyed(live, byExchange, true, nil), keyed(v.Findings(), byExchange, true, nil)); len(d) > 0 {
		t.Errorf("validate and the live proxy differ:\n  %s", strings.Join(d, "\n  "))
	}
	seen := map[string]bool{}
	for _, f := range v.Findings() {
		seen[f.Rule] = true
	}
	for _, rule := range []string{"state.idempotent-replay", "state.external-id-duplicate", "state.refund-over-original",
		"state.cob-transition", "state.refund-transition", "state.token-expired-accepted", "req.idempotency-key-missing", "req.money-format"} {
		if !seen[rule] {
			t.Errorf("validate raised no %s:\n%s", rule, log)
		}
	}
	if v.Hidden != 0 {
		t.Errorf("%d findings hidden: a HAR file masks nothing", v.Hidden)
	}
}

// TestValidate_HARFile judges a HAR file written by hand (testdata): a
// base64 answer and a base64 request body, HTTP/2 pseudo-headers, two
// accepted cash-outs with one externalId whose entries are out of order in
// the file (judged in the order their answers ended), a request body
// missing its fields, money with three decimals, and an asset of another
// origin saved without its text.
func TestValidate_HARFile(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "recorded.har"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rc, v, log := validate(t, "testdata/recorded.har", f)
	if rc.Format != proxy.FormatHAR || rc.Len() != 7 {
		t.Fatalf("read as %s with %d entries", rc.Format, rc.Len())
	}
	got := map[string]bool{}
	for _, f := range v.Findings() {
		got[fmt.Sprintf("#%d %s %s", f.Exchange, f.Rule, f.Field)] = true
	}
	want := []string{
		"#3 state.external-id-duplicate externalId", // entry 3 ended after entry 4
		"#5 req.field-missing value", "#5 req.field-missing externalId", "#5 req.field-missing details",
		"#6 resp.money-format data[0].balanceAmount.available",
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no finding %q:\n%s", w, log)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d findings, want %d:\n%s", len(got), len(want), log)
	}
	var order []uint64
	_ = rc.Each(func(rx *proxy.RecordedExchange) error {
		order = append(order, rx.Seq)
		if rx.Seq == 2 && (!strings.Contains(string(rx.RespBody), `"available":100.00`) || rx.ReqHeader.Get("Authorization") == "") {
			t.Errorf("entry 2: the base64 answer or the HTTP/2 headers were not read: %q %v", rx.RespBody, rx.ReqHeader)
		}
		if rx.Seq == 7 && rx.RespUnjudged == "" {
			t.Errorf("entry 7 has no text, yet its body is judged")
		}
		return nil
	})
	if fmt.Sprint(order) != "[1 2 4 3 5 6 7]" {
		t.Errorf("judged in the order %v, want the order the answers ended", order)
	}
	s := v.Summary()
	if s.Exchanges != 7 || s.Contract != 6 || s.Other != 1 || !strings.HasPrefix(s.Upstream, "file:///") {
		t.Errorf("summary %+v", s)
	}
}

// journalEntry is one entry of a handmade journal export.
func journalEntry(id int, account any, method, path string, status int, reqBody, respBody string, headers map[string]string) map[string]any {
	if headers == nil {
		headers = map[string]string{"Authorization": "Bearer ***", "Content-Type": "application/json"}
	}
	return map[string]any{"id": id, "requestId": fmt.Sprintf("req-%d", id), "time": "2026-03-02T12:00:00Z", "method": method,
		"path": path, "route": path, "workspace": "default", "accountId": account, "status": status, "durationMs": 1.5,
		"requestHeaders": headers, "requestBody": reqBody, "responseContentType": "application/json", "responseBody": respBody, "refs": []string{}}
}

func cashOutEntry(id, account int, ext, txn string) map[string]any {
	return journalEntry(id, account, "POST", "/api/pix/cash-out", 201,
		`{"value":10.50,"externalId":"`+ext+`","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`,
		`{"transactionId":"6f1c1f3e-1b7a-4c1e-9d2a-`+txn+`","externalId":"`+ext+`","status":"PENDING","generateTime":"2026-03-02T12:00:00Z"}`, nil)
}

func journalJSON(t *testing.T, entries ...map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"enabled": true, "capacity": 1000, "size": len(entries), "data": entries})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestValidate_JournalBlindSpots: what the journal masks or leaves out is
// judged as present but unknown, deliberately. A masked token stands for
// the entry's account (so one externalId of two accounts is no duplicate,
// of one account is); a masked access_token raises no id-format finding;
// a header left out over the journal's budget raises no missing-header
// finding; a body the server never read, or cut at 16 KiB, is a notice. The
// export lists newest first and is judged oldest first.
func TestValidate_JournalBlindSpots(t *testing.T) {
	export := journalJSON(t,
		journalEntry(6, nil, "PUT", "/cob/short", 401, "", `{"statusCode":401,"message":"no token","error":"Unauthorized"}`,
			map[string]string{"Content-Length": "2", "Content-Type": "application/json"}),
		journalEntry(5, 1, "POST", "/api/pix/cash-out", 400, `{"value":1`, `{}`, nil),
		journalEntry(4, 1, "POST", "/dict/pix", 401, "", `{"statusCode":401,"message":"no token","error":"Unauthorized"}`,
			map[string]string{"Content-Type": "application/json", "X-Journal-Omitted": "3 headers (40000 bytes) over the journal's header budget"}),
		journalEntry(3, nil, "POST", "/api/auth/token", 201, `{"clientId":"2b28bc5f-714d-4515-9a30-06854d5df38c","clientSecret":"***"}`,
			`{"access_token":"***","token_type":"Bearer","expires_in":1800}`, map[string]string{"X-Ssl-Client-Cert": "***", "Content-Type": "application/json"}),
		cashOutEntry(2, 2, "ext-1", "000000000002"),
		cashOutEntry(1, 1, "ext-1", "000000000001"),
		cashOutEntry(7, 1, "ext-1", "000000000007"),
	)
	export = bytes.Replace(export, []byte(`"requestBody":"{\"value\":1"`), []byte(`"requestBodyTruncated":true,"requestBody":"{\"value\":1"`), 1)
	_, v, log := validate(t, "journal.json", bytes.NewReader(export))
	got := map[string]bool{}
	for _, f := range v.Findings() {
		got[fmt.Sprintf("%s %s %s", f.RequestID, f.Rule, f.Field)] = true
	}
	want := []string{
		"req-7 state.external-id-duplicate externalId", // account 1 again; account 2's was no duplicate
		"req-6 req.authorization-missing Authorization", "req-6 req.path-format {txid}", "req-6 req.body-unjudged body",
		"req-5 req.body-unjudged body", "req-4 req.body-unjudged body",
		"req-5 resp.error-shape statusCode", "req-5 resp.error-shape message", // the answer {} is judged
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no finding %q:\n%s", w, log)
		}
		delete(got, w)
	}
	for k := range got {
		if id, _, _ := strings.Cut(k, " "); id <= "req-4" {
			t.Errorf("a finding on what the journal masked or left out: %s\n%s", k, log)
		}
	}
	if v.Hidden == 0 {
		t.Errorf("nothing counted as hidden:\n%s", log)
	}
	if f := v.Findings(); len(f) > 0 && !strings.Contains(log, "[state] state.external-id-duplicate #7 POST /api/pix/cash-out (request req-7)") {
		t.Errorf("the line of the state finding is not the proxy's:\n%s", log)
	}
}

// TestValidate_BadInput: a file in neither format, truncated JSON, an entry
// without a response and the like are refused with the file and the entry
// named, never a panic.
func TestValidate_BadInput(t *testing.T) {
	good := journalJSON(t, cashOutEntry(1, 1, "e", "000000000001"), cashOutEntry(2, 1, "f", "000000000002"))
	har := func(entry string) string { return `{"log":{"version":"1.2","entries":[` + entry + `]}}` }
	okEntry := `{"startedDateTime":"2026-03-02T12:00:00Z","time":1,"request":{"method":"GET","url":"https://x.test/accounts/balances","headers":[]},"response":{"status":200,"headers":[],"content":{"size":0}}}`
	tests := []struct{ name, in, want string }{
		{"empty", "", "in.json: the file is empty"},
		{"not JSON", "GET / HTTP/1.1", "in.json: neither a request journal export"},
		{"a scalar", `"x"`, "neither a request journal export"},
		{"another object", `{"deleted":3}`, `no "data" (a journal export), no "log" (a HAR file)`},
		{"truncated export", string(good[:len(good)-40]), "in.json: entry 2: the file ends inside it: truncated JSON"},
		{"truncated after an entry", string(good[:bytes.Index(good, []byte(`},{`))+2]), "in.json: entry 2: the file ends inside it"},
		{"unclosed list", `{"data":[`, "before the list of entries closes"},
		{"trailing data", string(good) + `{"x":1}`, "after the entries: more JSON"},
		{"journal off", `{"enabled":false,"capacity":0,"size":0,"data":[]}`, `"enabled": false`},
		{"no status", `[{"id":1,"method":"GET","path":"/accounts/balances"}]`, "in.json: entry 1 (GET /accounts/balances): no response"},
		{"no method", `[{"id":1,"path":"/x","status":200}]`, "entry 1 (/x): no method"},
		{"a list of numbers", `[1,2]`, "entry 1: not a JSON object"},
		{"a wrong type", `[{"id":"one","method":"GET","path":"/x","status":200}]`, "entry 1: not a request journal entry"},
		{"lines, one bad", `{"id":1,"method":"GET","path":"/x","status":200}` + "\n" + `{"id":2,"method":"GET","path":"/y"}`, "entry 2 (GET /y): no response"},
		{"lines, truncated", `{"id":1,"method":"GET","path":"/x","status":200}` + "\n" + `{"id":2,"meth`, "entry 2: the file ends inside it"},
		{"HAR without entries", `{"log":{"version":"1.2"}}`, `"log" has no "entries"`},
		{"HAR log not an object", `{"log":[]}`, `"log" is [, not an object`},
		{"HAR entry without a response", har(okEntry + `,{"request":{"method":"GET","url":"https://x.test/a"}}`), "in.json: entry 2 (GET https://x.test/a): no response"},
		{"HAR status 0", har(strings.Replace(okEntry, `"status":200`, `"status":0`, 1)), "entry 1 (GET https://x.test/accounts/balances): no response: response.status is 0"},
		{"HAR without a request", har(`{"response":{"status":200}}`), "entry 1: no request"},
		{"HAR bad URL", har(strings.Replace(okEntry, "https://x.test/accounts/balances", "http://[::1", 1)), "request.url"},
		{"HAR bad base64", har(strings.Replace(okEntry, `"size":0`, `"size":3,"encoding":"base64","text":"!!!"`, 1)), "response.content.text: not base64"},
		{"HAR unknown encoding", har(strings.Replace(okEntry, `"size":0`, `"size":3,"encoding":"gzip","text":"x"`, 1)), `encoding "gzip"`},
		{"HAR syntax error", har(`{"request":}`), "entry 1: not JSON at byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := proxy.ReadRecording("in.json", strings.NewReader(tt.in))
			var ie *proxy.InputError
			if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "in.json: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want an *InputError containing %q", err, tt.want)
			}
		})
	}
}

// TestValidate_EntryBound: an entry longer than MaxRecordedEntry is refused
// by name without being held whole.
func TestValidate_EntryBound(t *testing.T) {
	big := `[{"id":1,"method":"GET","path":"/x","status":200},{"id":2,"method":"GET","path":"/x","status":200,"responseBody":"` +
		strings.Repeat("a", proxy.MaxRecordedEntry) + `"}]`
	_, err := proxy.ReadRecording("big.json", strings.NewReader(big))
	if err == nil || !strings.Contains(err.Error(), "big.json: entry 2: over 32 MiB of JSON text") {
		t.Fatalf("error %v", err)
	}
}

// TestValidate_Pipe: input that cannot be read at an offset (a pipe,
// standard input) is copied to a temporary file, removed on Close.
func TestValidate_Pipe(t *testing.T) {
	export := journalJSON(t, cashOutEntry(2, 1, "e", "000000000002"), cashOutEntry(1, 1, "e", "000000000001"))
	rc, err := proxy.ReadRecording("standard input", io.MultiReader(bytes.NewReader(export)))
	if err != nil {
		t.Fatal(err)
	}
	v, err := proxy.ValidateRecording(rc, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	if c := v.Counts(); c.State != 1 || v.Summary().Upstream != "standard input" {
		t.Fatalf("counts %+v, summary %+v", c, v.Summary())
	}
}

// FuzzRecorded: any input either reads as recorded traffic, whose every
// exchange then judges without error, or is refused with an *InputError
// naming the file; never a panic.
func FuzzRecorded(f *testing.F) {
	har, err := os.ReadFile(filepath.Join("testdata", "recorded.har"))
	if err != nil {
		f.Fatal(err)
	}
	entry := `{"id":1,"requestId":"r","time":"2026-03-02T12:00:00Z","method":"PUT","path":"/cob/abc","query":"a=1","accountId":1,"status":201,` +
		`"requestHeaders":{"Authorization":"Bearer ***","Content-Length":"2"},"requestBody":"","responseBody":"{\"status\":\"ATIVA\"}","responseBodyTruncated":false}`
	for _, seed := range []string{
		string(har), string(har[:len(har)/2]),
		`{"enabled":true,"capacity":10,"size":1,"data":[` + entry + `]}`,
		`[` + entry + `,` + entry + `]`,
		entry + "\n" + entry + "\n",
		`{"log":{"entries":[{"request":{"method":"POST","url":"/x","postData":{"params":[{"name":"a","value":"b"}]}},"response":{"status":200,"content":{"text":"e30=","encoding":"base64"}}}]}}`,
		``, `{}`, `[]`, `null`, `{"data":null}`, `{"log":{"entries":[null]}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rc, err := proxy.ReadRecording("fuzz.json", bytes.NewReader(data))
		if err != nil {
			var ie *proxy.InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("not an *InputError naming the file: %v", err)
			}
			return
		}
		defer rc.Close()
		v, err := proxy.ValidateRecording(rc, proxy.Options{})
		if err != nil {
			t.Fatalf("a recording read and checked fails to judge: %v", err)
		}
		if n := v.Summary().Exchanges; n != int64(rc.Len()) {
			t.Fatalf("%d exchanges judged of %d entries", n, rc.Len())
		}
	})
}

// TestValidate_QuietAccounts: with quiet accounts, validate judges the
// balance reads of a recording as the proxy does live: a read no other
// entry overlaps against the one before. The same reads overlapping
// another entry are not judged.
func TestValidate_QuietAccounts(t *testing.T) {
	balance := func(id, at int, available, blocked string) map[string]any {
		e := journalEntry(id, 1, "GET", "/accounts/balances", 200, "",
			`{"data":[{"eventDate":"2026-03-02T12:00:00.000Z","balanceAmount":{"available":`+available+`,"blocked":`+blocked+`,"overdraft":0}}]}`, nil)
		e["time"] = fmt.Sprintf("2026-03-02T12:00:%02d.000Z", at)
		return e
	}
	cashOut := cashOutEntry(2, 1, "quiet-1", "000000000002")
	cashOut["time"] = "2026-03-02T12:00:02.000Z"
	judge := func(quiet bool, entries ...map[string]any) (*proxy.Validation, string) {
		t.Helper()
		rc, err := proxy.ReadRecording("journal.json", bytes.NewReader(journalJSON(t, entries...)))
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		var log syncBuffer
		v, err := proxy.ValidateRecording(rc, proxy.Options{Log: &log, QuietAccounts: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return v, log.String()
	}
	// 100.00 available; a cash-out of 10.50 holds 12.00 with its fee; after
	// settlement 1.50 stays blocked.
	entries := []map[string]any{balance(4, 6, "88.00", "1.50"), balance(3, 4, "88.00", "12.00"), cashOut, balance(1, 0, "100.00", "0")}
	v, log := judge(true, entries...)
	fs := v.Findings()
	if len(fs) != 1 || fs[0].Rule != "state.balance-mismatch" || fs[0].RequestID != "req-4" || !strings.Contains(log, "[state] state.balance-mismatch") {
		t.Fatalf("want one state.balance-mismatch on req-4:\n%s", log)
	}
	if v.Summary().BalanceJudged != 2 {
		t.Errorf("%d reads judged, want 2", v.Summary().BalanceJudged)
	}
	if v, log := judge(false, entries...); len(v.Findings()) > 0 {
		t.Errorf("findings without quiet accounts:\n%s", log)
	}
	// The two reads after the cash-out overlapping each other: neither is judged.
	overlapped := balance(4, 6, "88.00", "1.50")
	overlapped["durationMs"] = 4000.0
	entries[0], entries[1] = balance(3, 4, "88.00", "12.00"), overlapped
	entries[0]["time"] = "2026-03-02T12:00:09.000Z"
	if v, log := judge(true, entries...); len(v.Findings()) > 0 {
		t.Errorf("findings on reads overlapping other entries:\n%s", log)
	}
}
