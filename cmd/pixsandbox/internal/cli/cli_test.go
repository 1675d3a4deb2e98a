package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// startServer starts a simulator for the test, as `pixsandbox serve
// --in-memory --clock virtual` runs it: the control plane, a journal of 1000
// requests, workspaces whose TTLs count wall time. edit, when not nil,
// changes the options first.
func startServer(t *testing.T, edit func(*simulatortest.Options)) *simulatortest.Env {
	t.Helper()
	o := simulatortest.Options{JournalSize: 1000, Workspaces: true, Wall: time.Now}
	if edit != nil {
		edit(&o)
	}
	return simulatortest.New(t, o)
}

// call sends a request and returns its status and its JSON object body.
func call(tb testing.TB, method, url, body string, h map[string]string) (int, map[string]any) {
	tb.Helper()
	r := apitest.Do(tb, method, url, strings.NewReader(body), h)
	return r.Status, r.Body
}

// rawCall returns a request's status and body as text.
func rawCall(tb testing.TB, method, url, body string, h map[string]string) (int, string) {
	tb.Helper()
	r := apitest.DoRaw(tb, method, url, strings.NewReader(body), h)
	return r.Status, string(r.Raw)
}

// cliResult is what a command printed and returned.
type cliResult struct {
	code           int
	stdout, stderr string
}

// cliOpts are the environment of a command run by cliRunEnv.
type cliOpts struct {
	env      map[string]string // PIXSANDBOX_* variables; nothing else is read
	stdin    string
	terminal bool
}

// cliRun runs a command with buffers and no PIXSANDBOX_* variables, bounded by
// a deadline.
func cliRun(t *testing.T, cmd string, args ...string) cliResult {
	t.Helper()
	return cliRunEnv(t, cliOpts{}, cmd, args...)
}

func cliRunEnv(t *testing.T, o cliOpts, cmd string, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(o.stdin), Terminal: o.terminal, Stdout: &out, Stderr: &errb,
		Lookup: func(k string) (string, bool) { v, ok := o.env[k]; return v, ok }}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := RunEnv(ctx, env, cmd, args)
	return cliResult{code, out.String(), errb.String()}
}

func (r cliResult) must(t *testing.T, code int, stderrHas ...string) cliResult {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stderrHas {
		if !strings.Contains(r.stderr, s) {
			t.Fatalf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
	return r
}

// cliSyncBuffer is a buffer a running command writes while the test reads it.
type cliSyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *cliSyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *cliSyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// deliveriesPolls is how many GET /_sandbox/webhook-deliveries the server has
// answered, read from its request counter on /metrics.
func deliveriesPolls(t *testing.T, base string) int {
	t.Helper()
	n := 0
	metrics := apitest.DoRaw(t, "GET", base+"/metrics", nil, nil).Raw
	for _, l := range strings.Split(string(metrics), "\n") {
		if strings.HasPrefix(l, "pixsandbox_http_requests_total{") && strings.Contains(l, `route="/_sandbox/webhook-deliveries"`) {
			f := strings.Fields(l)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			n += int(v)
		}
	}
	return n
}

// cliTxn reads a transaction through the control plane.
func cliTxn(t *testing.T, srv *simulatortest.Env, ref string) map[string]any {
	t.Helper()
	st, x := call(t, "GET", srv.URL+"/_sandbox/transactions/"+ref, "", nil)
	if st != 200 {
		t.Fatalf("transaction %s: %d %v", ref, st, x)
	}
	return x
}

func cliAdvance(t *testing.T, srv *simulatortest.Env, d string) {
	t.Helper()
	if st, c := call(t, "POST", srv.URL+"/_sandbox/clock/advance", `{"duration":"`+d+`"}`, nil); st != 200 {
		t.Fatalf("advance %s: %d %v", d, st, c)
	}
}

func TestCLI_Token(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	balance := func(tok string) {
		t.Helper()
		st, body := call(t, "GET", u+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tok})
		if st != 200 || body["netBalance"].(json.Number).String() != "10000.00" {
			t.Fatalf("balance with the printed token: %d %v", st, body)
		}
	}

	t.Run("control plane", func(t *testing.T) {
		r := cliRun(t, "token", "--url", u).must(t, 0)
		tok := strings.TrimSuffix(r.stdout, "\n")
		if tok == "" || strings.ContainsAny(tok, " \n") {
			t.Fatalf("want the bare token on one line, got %q", r.stdout)
		}
		balance(tok)
	})
	t.Run("client credentials", func(t *testing.T) {
		a := srv.Fixtures.Accounts[0]
		pem, err := srv.Fixtures.ReadFile(a.Certificate)
		if err != nil {
			t.Fatal(err)
		}
		cert := filepath.Join(t.TempDir(), "account-1.pem")
		if err := os.WriteFile(cert, pem, 0o600); err != nil {
			t.Fatal(err)
		}
		r := cliRun(t, "token", "--url", u, "--client-id", a.ClientID, "--client-secret", a.ClientSecret, "--cert", cert).must(t, 0)
		balance(strings.TrimSpace(r.stdout))

		r = cliRun(t, "token", "--url", u, "--client-id", a.ClientID, "--client-secret", a.ClientSecret, "--cert", cert, "--json").must(t, 0)
		var ans map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &ans); err != nil || ans["token_type"] != "Bearer" || ans["expires_in"] != float64(1800) {
			t.Fatalf("--json: %v %q", err, r.stdout)
		}
		cliRun(t, "token", "--url", u, "--client-id", a.ClientID, "--client-secret", "wrong", "--cert", cert).
			must(t, 1, "401", "PUB_INVALID_CREDENTIALS")
		cliRun(t, "token", "--url", u, "--client-id", a.ClientID, "--client-secret", "x", "--cert", filepath.Join(t.TempDir(), "none.pem")).
			must(t, 1, "certificate")
	})
	t.Run("unknown account", func(t *testing.T) {
		cliRun(t, "token", "--url", u, "--account", "999").must(t, 1, "404")
	})
	t.Run("through Run", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := Run("token", []string{"--url", u, "--account", "2"}, &out, &errb); code != 0 || out.Len() < 20 {
			t.Fatalf("Run token: %d %q %q", code, out.String(), errb.String())
		}
	})
}

func TestCLI_Pay(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	auth := map[string]string{"Authorization": "Bearer " + apitest.TokenFor(t, srv, 0), "Content-Type": "application/json"}
	charge := func(ext string) map[string]any {
		t.Helper()
		st, c := call(t, "POST", u+"/api/pix/cash-in", `{"transaction":{"value":25,"description":"Pedido","externalId":"`+ext+`"},`+
			`"payer":{"fullName":"Ciclano de Souza","document":"52998224725"}}`, auth)
		if st != 201 {
			t.Fatalf("cash-in: %d %v", st, c)
		}
		return c
	}

	c := charge("pay-1")
	id := c["transactionId"].(string)
	r := cliRun(t, "pay", "--url", u, "--transaction-id", id, "--payer-document", "11144477735").must(t, 0)
	for _, want := range []string{"endToEndId E", "transaction " + id, "amount 25.00", "credited 25.00"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("pay output lacks %q: %s", want, r.stdout)
		}
	}
	if x := cliTxn(t, srv, id); x["status"] != "CONFIRMED" {
		t.Fatalf("paid charge: %v", x)
	}
	cliRun(t, "pay", "--url", u, "--transaction-id", id).must(t, 1, "409", "accepts no payment")

	c = charge("pay-2")
	cliRun(t, "pay", "--url", u, "--pix-code", c["pixCode"].(string), "--amount", "30").must(t, 1, "422", "differs")
	r = cliRun(t, "pay", "--url", u, "--pix-code", c["pixCode"].(string), "--amount", "25.00", "--json").must(t, 0)
	var p map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || p["transactionId"] != c["transactionId"] {
		t.Fatalf("--json: %v %q", err, r.stdout)
	}

	txid := "clicobtxid00000000000000000001"
	if st, cob := call(t, "PUT", u+"/cob/"+txid, `{"calendario":{"expiracao":3600},"valor":{"original":"12.34"}}`, auth); st != 201 {
		t.Fatalf("cob: %d %v", st, cob)
	}
	cliRun(t, "pay", "--url", u, "--txid", txid).must(t, 0)
	cliRun(t, "pay", "--url", u, "--transaction-id", "99999").must(t, 1, "404")
}

func TestCLI_Clock(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	if r := cliRun(t, "clock", "show", "--url", u).must(t, 0); r.stdout != "now 2026-03-02T12:00:00.000Z (virtual clock)\n" {
		t.Fatalf("show: %q", r.stdout)
	}
	if st, _ := call(t, "POST", u+"/_sandbox/jobs", `{"seconds":60}`, nil); st != 201 {
		t.Fatal("job")
	}
	if r := cliRun(t, "clock", "advance", "90m", "--url", u).must(t, 0); r.stdout != "now 2026-03-02T13:30:00.000Z (virtual clock), 1 job run\n" {
		t.Fatalf("advance 90m: %q", r.stdout)
	}
	if r := cliRun(t, "clock", "--url", u, "advance", "1d").must(t, 0); !strings.Contains(r.stdout, "now 2026-03-03T13:30:00.000Z") {
		t.Fatalf("advance 1d: %q", r.stdout)
	}
	if r := cliRun(t, "clock", "advance", "30", "--url", u).must(t, 0); !strings.Contains(r.stdout, "now 2026-03-03T13:30:30.000Z") {
		t.Fatalf("advance 30 (seconds): %q", r.stdout)
	}
	if r := cliRun(t, "clock", "set", "2026-03-10T00:00:00Z", "--url", u).must(t, 0); !strings.Contains(r.stdout, "now 2026-03-10T00:00:00.000Z") {
		t.Fatalf("set: %q", r.stdout)
	}
	r := cliRun(t, "clock", "set", "2026-03-01T00:00:00Z", "--url", u).must(t, 1, "400")
	_, direct := call(t, "POST", u+"/_sandbox/clock", `{"now":"2026-03-01T00:00:00Z"}`, nil)
	if msg, _ := direct["message"].(string); msg == "" || !strings.Contains(r.stderr, msg) {
		t.Fatalf("set backwards must print the server's message %q:\n%s", msg, r.stderr)
	}
	r = cliRun(t, "clock", "advance", "0s", "--json", "--url", u).must(t, 0)
	var c map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || c["now"] != "2026-03-10T00:00:00Z" || c["jobsRun"] != float64(0) {
		t.Fatalf("--json: %v %q", err, r.stdout)
	}
}

func TestParseSpan(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90s": 90 * time.Second, "30m": 30 * time.Minute, "1h30m": 90 * time.Minute, "0s": 0, "0": 0, "90": 90 * time.Second,
		"1.5": 1500 * time.Millisecond, "7d": 7 * 24 * time.Hour, "1d12h": 36 * time.Hour, "0.5d": 12 * time.Hour, " 2h ": 2 * time.Hour,
	} {
		if got, err := parseSpan(in); err != nil || got != want {
			t.Errorf("parseSpan(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-5m", "soon", "1d-1h", "d", "5x", "99999999999d"} {
		if got, err := parseSpan(in); err == nil {
			t.Errorf("parseSpan(%q) = %v, want an error", in, got)
		}
	}
}

func TestClockAdvance_NegativeRefused(t *testing.T) {
	r := cliRun(t, "clock", "advance", "-5s")
	if r.code != 2 || !strings.Contains(r.stderr, "only moves forward") || strings.Contains(r.stderr, "flag provided but not defined") {
		t.Fatalf("clock advance -5s: %d %q", r.code, r.stderr)
	}
}

func TestCLI_Trigger(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	triggerJSON := func(args ...string) map[string]any {
		t.Helper()
		r := cliRun(t, "trigger", append([]string{"--url", u, "--json"}, args...)...).must(t, 0)
		var ans map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &ans); err != nil {
			t.Fatalf("trigger %v --json: %v %q", args, err, r.stdout)
		}
		return ans
	}

	t.Run("cash-out fails at settlement", func(t *testing.T) {
		r := cliRun(t, "trigger", "TAX_ID_MISMATCH", "--url", u).must(t, 0)
		for _, want := range []string{"cashout.create", "created cash-out transaction", "PENDING", "webhooks tail --account 1", "clock advance 5s"} {
			if !strings.Contains(r.stdout, want) {
				t.Fatalf("summary lacks %q:\n%s", want, r.stdout)
			}
		}
		ans := triggerJSON("tax-id-mismatch")
		ref := ans["transactionId"].(string)
		if x := cliTxn(t, srv, ref); x["status"] != "PENDING" {
			t.Fatalf("before settlement: %v", x)
		}
		cliAdvance(t, srv, "5s")
		if x := cliTxn(t, srv, ref); x["status"] != "ERROR" || x["errorCode"] != "TAX_ID_MISMATCH" {
			t.Fatalf("after settlement: %v", x)
		}
	})
	t.Run("charge paid by its payer", func(t *testing.T) {
		ans := triggerJSON("AUTO_PAYMENT")
		ref := ans["transactionId"].(string)
		if x := cliTxn(t, srv, ref); x["status"] != "PENDING" || x["kind"] != "CASH_IN" {
			t.Fatalf("before the payer: %v", x)
		}
		cliAdvance(t, srv, "11s")
		if x := cliTxn(t, srv, ref); x["status"] != "CONFIRMED" {
			t.Fatalf("after the payer: %v", x)
		}
	})
	t.Run("refund fails", func(t *testing.T) {
		ans := triggerJSON("REFUND_FAILURE", "--amount", "7.5")
		ref := ans["transactionId"].(string)
		if x := cliTxn(t, srv, ref); x["status"] != "PENDING" || x["kind"] != "REFUND_IN" || x["amount"].(json.Number).String() != "7.50" {
			t.Fatalf("refund before processing: %v", x)
		}
		cliAdvance(t, srv, "5s")
		if x := cliTxn(t, srv, ref); x["status"] != "ERROR" {
			t.Fatalf("refund after processing: %v", x)
		}
	})
	t.Run("transfer never settles", func(t *testing.T) {
		ans := triggerJSON("SETTLEMENT_PENDING", "--operation", "transfer.create", "--key", "+5581929503786")
		ref := strconv.FormatFloat(ans["id"].(float64), 'f', -1, 64)
		cliAdvance(t, srv, "5m")
		if x := cliTxn(t, srv, ref); x["status"] != "PENDING" || x["kind"] != "TRANSFER" || x["pixKey"] != "+5581929503786" {
			t.Fatalf("transfer after 5 minutes: %v", x)
		}
	})
	t.Run("rejected at request", func(t *testing.T) {
		r := cliRun(t, "trigger", "DICT_KEY_NOT_FOUND", "--url", u).must(t, 0)
		if !strings.Contains(r.stdout, "rejected, as the scenario asks: 422") || !strings.Contains(r.stdout, "Nothing was created") {
			t.Fatalf("summary: %s", r.stdout)
		}
		r = cliRun(t, "trigger", "PUB_AUTH_UPSTREAM_UNAVAILABLE", "--url", u).must(t, 0)
		if !strings.Contains(r.stdout, "503") || !strings.Contains(r.stdout, "PUB_AUTH_UPSTREAM_UNAVAILABLE") {
			t.Fatalf("summary: %s", r.stdout)
		}
	})
	t.Run("usage", func(t *testing.T) {
		r := cliRun(t, "trigger", "NOPE", "--url", u).must(t, 2, "unknown scenario", "TAX_ID_MISMATCH", "AUTO_PAYMENT")
		if r.stdout != "" {
			t.Fatalf("stdout: %q", r.stdout)
		}
		cliRun(t, "trigger", "--url", u).must(t, 2, "name one EVENT or SCENARIO")
		cliRun(t, "trigger", "--list", "TAX_ID_MISMATCH", "--url", u).must(t, 2, "--list takes no")
		cliRun(t, "trigger", "cashout.confirmed", "--operation", "cashout.create", "--url", u).must(t, 2, "--operation applies to a SCENARIO")
		cliRun(t, "trigger", "cashout.failed", "--error-code", "NOPE", "--url", u).must(t, 2, "--error-code")
		cliRun(t, "trigger", "cashout.nope", "--url", u).must(t, 2, "unknown event", "cashout.confirmed")
		cliRun(t, "trigger", "TAX_ID_MISMATCH", "--error-code", "ORDER_REJECTED", "--url", u).must(t, 2, "applies to an EVENT")
		cliRun(t, "trigger", "TAX_ID_MISMATCH", "--operation", "cob.put", "--url", u).must(t, 2, "cashout.create, transfer.create")
		cliRun(t, "trigger", "TAX_ID_MISMATCH", "--amount", "1.234", "--url", u).must(t, 2, "--amount")
		cliRun(t, "trigger", "TAX_ID_MISMATCH", "--key", "nobody@nowhere.example", "--url", u).must(t, 1, "not in the simulator's DICT")
	})
	// Every scenario of the catalogue, through every operation that honours it:
	// trigger must drive them all (a new operation fails here until it does).
	for _, s := range scenarios.All() {
		for _, op := range s.Operations {
			t.Run("every/"+s.Name+"/"+string(op), func(t *testing.T) {
				r := cliRun(t, "trigger", s.Name, "--operation", string(op), "--url", u)
				r.must(t, 0)
				if !strings.Contains(r.stdout, s.Summary) {
					t.Fatalf("summary lacks the scenario's summary:\n%s", r.stdout)
				}
			})
		}
	}
	if _, inv := call(t, "GET", u+"/_sandbox/invariants", "", nil); inv["ok"] != true {
		t.Fatalf("invariants after the triggers: %v", inv)
	}
}

func TestCLI_WebhooksTail(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	var got, failNext atomic.Int32
	var webhookID atomic.Value
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		webhookID.Store(r.Header.Get("Webhook-Id"))
		got.Add(1)
		if failNext.CompareAndSwap(1, 0) {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer recv.Close()
	if st, b := call(t, "POST", u+"/_sandbox/webhook-targets", `{"accountId":1,"eventType":"cash_in","url":"`+recv.URL+`/hooks"}`, nil); st != 201 {
		t.Fatalf("webhook target: %d %v", st, b)
	}

	tail := func(ctx context.Context, args ...string) (*cliSyncBuffer, *cliSyncBuffer, chan int) {
		out, errb := &cliSyncBuffer{}, &cliSyncBuffer{}
		env := Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errb, Lookup: func(string) (string, bool) { return "", false }}
		done := make(chan int, 1)
		go func() {
			done <- RunEnv(ctx, env, "webhooks", append([]string{"tail", "--url", u, "--interval", "20ms"}, args...))
		}()
		return out, errb, done
	}
	stop := func(cancel context.CancelFunc, done chan int) {
		t.Helper()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("tail ended with %d after the interrupt, want 0", code)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("tail did not stop when its context ended")
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, errb, done := tail(ctx, "--account", "1")
	apitest.WaitFor(t, "tail to start", func() bool { return strings.Contains(errb.String(), "watching webhook deliveries of account 1") })
	if st, b := call(t, "POST", u+"/_sandbox/pix-in", `{"key":"emanuel.howell@example.com","amount":5}`, nil); st != 201 {
		t.Fatalf("pix-in: %d %v", st, b)
	}
	cliAdvance(t, srv, "0s")
	apitest.WaitFor(t, "the receiver to get the webhook", func() bool { return got.Load() == 1 })
	id := webhookID.Load().(string)
	apitest.WaitFor(t, "tail to print the attempt", func() bool { return strings.Contains(out.String(), id) })
	// Several more polls: the attempt must not be printed again.
	polled := deliveriesPolls(t, u)
	apitest.WaitFor(t, "three more polls", func() bool { return deliveriesPolls(t, u) >= polled+3 })
	line := out.String()
	if strings.Count(line, id) != 1 || strings.Count(line, "\n") != 1 {
		t.Fatalf("want the attempt printed once:\n%s", line)
	}
	for _, want := range []string{"cash_in", recv.URL + "/hooks", " 200 ", "attempt 1", "webhook-id " + id, "2026-03-02T12:00:00"} {
		if !strings.Contains(line, want) {
			t.Fatalf("line lacks %q: %s", want, line)
		}
	}

	// A delivery refused once, then a newer delivery, then the retry of the
	// first: the retry is printed too, after the newer one (tail follows
	// attempt ids, not delivery creation).
	failNext.Store(1)
	for i, amount := range []string{"6", "7"} {
		if st, b := call(t, "POST", u+"/_sandbox/pix-in", `{"key":"emanuel.howell@example.com","amount":`+amount+`}`, nil); st != 201 {
			t.Fatalf("pix-in: %d %v", st, b)
		}
		cliAdvance(t, srv, "0s")
		apitest.WaitFor(t, "the receiver to get the webhook", func() bool { return got.Load() == int32(2+i) })
	}
	retried := ""
	apitest.WaitFor(t, "tail to print both first attempts", func() bool { return strings.Count(out.String(), "\n") == 3 })
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, " 500 ") {
			retried = l[strings.Index(l, "webhook-id ")+len("webhook-id "):]
			retried = strings.Fields(retried)[0]
		}
	}
	if retried == "" {
		t.Fatalf("no refused attempt printed:\n%s", out.String())
	}
	cliAdvance(t, srv, "5s") // the first retry of a refused delivery
	apitest.WaitFor(t, "tail to print the retry", func() bool { return strings.Count(out.String(), "\n") == 4 })
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[3]; !strings.Contains(last, "attempt 2") || !strings.Contains(last, retried) || !strings.Contains(last, " 200 ") {
		t.Fatalf("the last line is not the retry (attempt 2, 200) of %s:\n%s", retried, out.String())
	}
	stop(cancel, done)

	// --since all prints what happened before it started; --json one object a line.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	out, _, done = tail(ctx2, "--since", "all", "--json")
	apitest.WaitFor(t, "tail --since all to print the earlier attempt", func() bool { return strings.Contains(out.String(), id) })
	stop(cancel2, done)
	var a struct {
		EventID   string `json:"eventId"`
		EventType string `json:"eventType"`
		Attempt   struct {
			Number     int `json:"number"`
			StatusCode int `json:"statusCode"`
		} `json:"attempt"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &a); err != nil || a.EventID != id || a.Attempt.StatusCode != 200 || a.Attempt.Number != 1 {
		t.Fatalf("--json line: %v %+v %q", err, a, out.String())
	}

	// Another account's deliveries are not printed; --since in the future prints nothing.
	ctx3, cancel3 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel3()
	out, errb, done = tail(ctx3, "--since", "2030-01-01T00:00:00Z", "--account", "2")
	apitest.WaitFor(t, "tail to start", func() bool { return strings.Contains(errb.String(), "watching") })
	stop(cancel3, done)
	if out.String() != "" {
		t.Fatalf("unexpected output: %q", out.String())
	}

	cliRun(t, "webhooks", "--url", u).must(t, 2, "say tail")
	cliRun(t, "webhooks", "follow", "--url", u).must(t, 2, "unknown webhooks subcommand")
	cliRun(t, "webhooks", "tail", "--interval", "0s", "--url", u).must(t, 2, "--interval")
	cliRun(t, "webhooks", "tail", "--since", "yesterday", "--url", u).must(t, 2, "--since")
}

func TestCLI_Reset(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	st, acct := call(t, "POST", u+"/_sandbox/accounts", `{}`, nil)
	if st != 201 {
		t.Fatalf("create account: %d %v", st, acct)
	}
	path := u + "/_sandbox/accounts/" + acct["id"].(json.Number).String()

	r := cliRunEnv(t, cliOpts{}, "reset", "--url", u).must(t, 2, "not a terminal", "--yes")
	if r.stdout != "" {
		t.Fatalf("stdout: %q", r.stdout)
	}
	cliRunEnv(t, cliOpts{terminal: true, stdin: "no\n"}, "reset", "--url", u).must(t, 1, "Type yes", "nothing was changed")
	if st, _ := call(t, "GET", path, "", nil); st != 200 {
		t.Fatalf("the account must survive a refused reset: %d", st)
	}
	r = cliRun(t, "reset", "--yes", "--url", u).must(t, 0)
	if !strings.Contains(r.stdout, "reset") {
		t.Fatalf("stdout: %q", r.stdout)
	}
	if st, _ := call(t, "GET", path, "", nil); st != 404 {
		t.Fatalf("the account created before the reset must be gone: %d", st)
	}
	if st, _ := call(t, "GET", u+"/_sandbox/accounts/1", "", nil); st != 200 {
		t.Fatalf("fixture account 1 must be seeded again: %d", st)
	}
	call(t, "POST", u+"/_sandbox/accounts", `{}`, nil)
	cliRunEnv(t, cliOpts{terminal: true, stdin: "yes\n"}, "reset", "--url", u, "--json").must(t, 0)
	if st, _ := call(t, "GET", path, "", nil); st != 404 {
		t.Fatalf("a confirmed reset must drop the account: %d", st)
	}
}

func TestCLI_Unreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	for _, args := range [][]string{{"token"}, {"clock", "show"}, {"webhooks", "tail"}, {"trigger", "AUTO_PAYMENT"}} {
		r := cliRun(t, args[0], append(args[1:], "--url", u)...).must(t, 1, "cannot reach the simulator at "+u, "make run", "pixsandbox serve")
		if r.stdout != "" {
			t.Fatalf("%v stdout: %q", args, r.stdout)
		}
	}
	// PIXSANDBOX_URL is read when --url is absent.
	cliRunEnv(t, cliOpts{env: map[string]string{"PIXSANDBOX_URL": u}}, "clock", "show").must(t, 1, "cannot reach the simulator at "+u)
}

func TestCLI_AdminToken(t *testing.T) {
	srv := startServer(t, func(o *simulatortest.Options) { o.AdminToken = "s3cret" })
	u := srv.URL
	cliRun(t, "clock", "show", "--url", u).must(t, 1, "401", "The server runs with --admin-token", "PIXSANDBOX_ADMIN_TOKEN")
	cliRun(t, "clock", "show", "--url", u, "--admin-token", "nope").must(t, 1, "401", "is not the server's")
	cliRun(t, "clock", "show", "--url", u, "--admin-token", "s3cret").must(t, 0)
	cliRun(t, "token", "--url", u).must(t, 1, "The server runs with --admin-token")

	// Environment variables, and flags winning over them.
	env := map[string]string{"PIXSANDBOX_URL": u, "PIXSANDBOX_ADMIN_TOKEN": "s3cret"}
	cliRunEnv(t, cliOpts{env: env}, "clock", "show").must(t, 0)
	cliRunEnv(t, cliOpts{env: env}, "clock", "show", "--admin-token", "nope").must(t, 1, "401")
	r := cliRunEnv(t, cliOpts{env: map[string]string{"PIXSANDBOX_URL": u, "PIXSANDBOX_ADMIN_TOKEN": "s3cret", "PIXSANDBOX_JSON": "true"}}, "clock", "show").must(t, 0)
	if !strings.HasPrefix(r.stdout, "{") {
		t.Fatalf("PIXSANDBOX_JSON=true: %q", r.stdout)
	}
	cliRunEnv(t, cliOpts{env: map[string]string{"PIXSANDBOX_JSON": "maybe"}}, "clock", "show").must(t, 2, "PIXSANDBOX_JSON")

	// A trigger needs the control plane for its token: the hint applies there too.
	cliRunEnv(t, cliOpts{env: env}, "trigger", "TAX_ID_MISMATCH").must(t, 0)

	off := startServer(t, func(o *simulatortest.Options) { o.NoSandbox = true })
	cliRun(t, "clock", "show", "--url", off.URL).must(t, 1, "404", "control plane")
}

func TestCLI_Usage(t *testing.T) {
	for _, args := range [][]string{
		{"token", "extra"},
		{"token", "--nope"},
		{"token", "--client-id", "x"},
		{"token", "--account", "0"},
		{"token", "--account", "2", "--client-id", "x", "--client-secret", "y", "--cert", "z"},
		{"token", "--url", "localhost:8080"},
		{"pay"},
		{"pay", "--txid", "a", "--transaction-id", "1"},
		{"pay", "--txid", "a", "--amount", "ten"},
		{"pay", "--txid", "a", "extra"},
		{"clock"},
		{"clock", "advance"},
		{"clock", "advance", "soon"},
		{"clock", "advance", "1h", "2h"},
		{"clock", "set", "yesterday"},
		{"clock", "show", "now"},
		{"clock", "rewind"},
		{"trigger"},
		{"trigger", "A", "B"},
		{"webhooks"},
		{"webhooks", "tail", "extra"},
		{"reset", "now"},
	} {
		r := cliRun(t, args[0], args[1:]...)
		if r.code != 2 || strings.Contains(r.stderr, "Usage:") || !strings.HasPrefix(r.stderr, "pixsandbox "+args[0]+": ") ||
			!strings.HasSuffix(r.stderr, "Run 'pixsandbox "+args[0]+" -h' for usage.\n") || strings.Count(r.stderr, "\n") != 2 {
			t.Errorf("%v: exit %d, want 2 with the problem on one line and a hint; stderr:\n%s", args, r.code, r.stderr)
		}
	}
	for _, cmd := range []string{"token", "pay", "clock", "trigger", "webhooks", "reset"} {
		r := cliRun(t, cmd, "-h")
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "Usage:") || !strings.Contains(r.stdout, "-url") || !strings.Contains(r.stdout, "PIXSANDBOX_") {
			t.Errorf("%s -h: exit %d; stdout:\n%s\nstderr:\n%s", cmd, r.code, r.stdout, r.stderr)
		}
	}
}
