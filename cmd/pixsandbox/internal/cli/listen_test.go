package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// hookRecorder is a local webhook receiver that keeps what it got.
type hookRecorder struct {
	mu  sync.Mutex
	got []recordedHook
}

type recordedHook struct {
	header http.Header
	body   []byte
}

func (h *hookRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.got = append(h.got, recordedHook{header: r.Header.Clone(), body: b})
	h.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (h *hookRecorder) hooks() []recordedHook {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]recordedHook(nil), h.got...)
}

// newLocalServer starts h on a local port for the test and returns its URL.
func newLocalServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// fixtureEmailKey is a DICT e-mail key with no scenario, and its holder's document.
func fixtureEmailKey(t *testing.T, srv *simulatortest.Env) (key, doc string) {
	t.Helper()
	for _, k := range srv.Fixtures.DICT() {
		if k.Scenario == "" && k.Type == "EMAIL" {
			return k.Key, k.Document
		}
	}
	t.Fatal("the fixtures have no plain e-mail key")
	return "", ""
}

// targetsAt counts account 1's webhook targets whose URL starts with prefix.
func targetsAt(t *testing.T, srv *simulatortest.Env, prefix string) int {
	t.Helper()
	return targetsOf(t, srv, 1, prefix)
}

// targetsOf counts an account's webhook targets whose URL starts with prefix.
func targetsOf(t *testing.T, srv *simulatortest.Env, account int64, prefix string) int {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/_sandbox/webhook-targets?accountId=%d", srv.URL, account))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			URL string `json:"url"`
		} `json:"data"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("webhook targets: %s", raw)
	}
	n := 0
	for _, x := range list.Data {
		if strings.HasPrefix(x.URL, prefix) {
			n++
		}
	}
	return n
}

// listenRun is a listen command running in the background.
type listenRun struct {
	out, errb *cliSyncBuffer
	secret    string // the signing secret it printed
	cancel    context.CancelFunc
	done      chan int
}

// startListen runs listen against srv with args (after --url) until stop, and
// waits for it to say it is ready.
func startListen(t *testing.T, srv *simulatortest.Env, args ...string) *listenRun {
	t.Helper()
	l := &listenRun{out: &cliSyncBuffer{}, errb: &cliSyncBuffer{}, done: make(chan int, 1)}
	env := Env{Stdin: strings.NewReader(""), Stdout: l.out, Stderr: l.errb, Lookup: func(string) (string, bool) { return "", false }}
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	t.Cleanup(cancel)
	go func() { l.done <- RunEnv(ctx, env, "listen", append([]string{"--url", srv.URL}, args...)) }()
	apitest.WaitFor(t, "listen to say it is ready", func() bool { return strings.Contains(l.errb.String(), "Signing secret: whsec_") })
	e := l.errb.String()
	l.secret = strings.Fields(e[strings.Index(e, "Signing secret: ")+len("Signing secret: "):])[0]
	return l
}

// stop interrupts listen and checks that it ended with 0.
func (l *listenRun) stop(t *testing.T) {
	t.Helper()
	l.cancel()
	select {
	case code := <-l.done:
		if code != 0 {
			t.Fatalf("listen ended with %d after the interrupt; stderr %s", code, l.errb.String())
		}
	case <-time.After(10 * time.Second): // wall time: bounds a hung command
		t.Fatal("listen did not stop when interrupted")
	}
}

// cashOut makes a cash-out of account 1 with externalId ext.
func cashOut(t *testing.T, srv *simulatortest.Env, ext string) {
	t.Helper()
	token := apitest.TokenFor(t, srv, 0)
	key, doc := fixtureEmailKey(t, srv)
	st, co := call(t, "POST", srv.URL+"/api/pix/cash-out", `{"value":10,"externalId":"`+ext+`","details":{"key":"`+key+`","keyType":"EMAIL","name":"X","document":"`+doc+`"}}`,
		map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
	if st != 201 {
		t.Fatalf("cash-out: %d %v", st, co)
	}
}

// checkCashOutHook checks that h is the CashOut event of the cash-out ext,
// signed with secret; wall says whether its timestamp is wall time (a real
// clock) and so checked for age too.
func checkCashOutHook(t *testing.T, h recordedHook, ext, secret string, wall bool) {
	t.Helper()
	var payload map[string]any
	if err := json.Unmarshal(h.body, &payload); err != nil || payload["event"] != "CashOut" || payload["externalId"] != ext {
		t.Fatalf("delivery body %s", h.body)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	verify := wh.VerifyIgnoringTimestamp
	if wall {
		verify = wh.Verify
	}
	if err := verify(h.body, h.header); err != nil {
		t.Fatalf("the signature does not verify with the printed secret: %v (headers %v)", err, h.header)
	}
}

// TestCLI_Listen: listen forwards a cash-out's CashOut delivery to the local
// URL with a signature that verifies with the secret it printed, prints a line
// for it (with the payload under --print-json), and leaves no target behind
// after the interrupt.
func TestCLI_Listen(t *testing.T) {
	srv := startServer(t, nil)
	rec := &hookRecorder{}
	localURL := newLocalServer(t, rec)

	l := startListen(t, srv, "--forward-to", localURL+"/hook", "--events", "cash_out", "--print-json", "--interval", "20ms")
	if n := targetsAt(t, srv, localURL); n != 1 {
		t.Fatalf("%d targets at the local URL, want 1 (cash_out of account 1)", n)
	}

	// A cash-out of account 1, settled by moving the virtual clock.
	cashOut(t, srv, "listen-1")
	cliAdvance(t, srv, "10s")
	apitest.WaitFor(t, "the local URL to get the CashOut delivery", func() bool { return len(rec.hooks()) > 0 })
	// The webhook-timestamp is simulation time (a virtual clock at the
	// fixture epoch), so the check of its age against wall time is left out.
	checkCashOutHook(t, rec.hooks()[0], "listen-1", l.secret, false)
	apitest.WaitFor(t, "listen to print the delivery", func() bool {
		s := l.out.String()
		return strings.Contains(s, "cash_out") && strings.Contains(s, "--> 200 OK") && strings.Contains(s, `"event": "CashOut"`)
	})

	l.stop(t)
	if n := targetsAt(t, srv, localURL); n != 0 {
		t.Fatalf("%d targets left at the local URL after the interrupt", n)
	}
	if !strings.Contains(l.errb.String(), "Stopped: 1 target removed.") {
		t.Errorf("stderr after the interrupt: %s", l.errb.String())
	}
}

// TestCLI_ListenRealClock: with the real clock, the cash-out settles on its
// own (no clock move) and listen forwards its CashOut delivery, signed with a
// timestamp of wall time, and prints it.
func TestCLI_ListenRealClock(t *testing.T) {
	srv := startServer(t, func(o *simulatortest.Options) {
		o.Clock = clock.ModeReal
		o.SettlementDelay = 50 * time.Millisecond
	})
	rec := &hookRecorder{}
	localURL := newLocalServer(t, rec)

	l := startListen(t, srv, "--forward-to", localURL+"/hook", "--events", "cash_out", "--interval", "20ms")
	cashOut(t, srv, "listen-real")
	apitest.WaitFor(t, "the local URL to get the CashOut delivery", func() bool { return len(rec.hooks()) > 0 })
	checkCashOutHook(t, rec.hooks()[0], "listen-real", l.secret, true)
	apitest.WaitFor(t, "listen to print the delivery", func() bool {
		s := l.out.String()
		return strings.Contains(s, "cash_out") && strings.Contains(s, "--> 200 OK")
	})
	l.stop(t)
	if n := targetsAt(t, srv, localURL); n != 0 {
		t.Fatalf("%d targets left at the local URL after the interrupt", n)
	}
}

// TestCLI_ListenAllNewAccount: listen --all also forwards the events of an
// account created after it started (its next lease renewal registers the
// targets), and removes those targets on the interrupt too.
func TestCLI_ListenAllNewAccount(t *testing.T) {
	srv := startServer(t, nil)
	rec := &hookRecorder{}
	localURL := newLocalServer(t, rec)
	c := sandboxclient.New(srv.URL, "")
	ctx := context.Background()

	l := startListen(t, srv, "--all", "--forward-to", localURL+"/hook", "--events", "cash_in", "--interval", "20ms")
	var acct struct {
		ID      int64 `json:"id"`
		PixKeys []struct {
			Key string `json:"key"`
		} `json:"pixKeys"`
	}
	if _, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/accounts", map[string]any{"name": "Conta Nova", "balance": 10}, nil, &acct, http.StatusCreated); err != nil {
		t.Fatal(err)
	}
	if len(acct.PixKeys) == 0 {
		t.Fatalf("the new account %d has no PIX key", acct.ID)
	}
	apitest.WaitFor(t, "listen to cover the new account", func() bool {
		return strings.Contains(l.errb.String(), fmt.Sprintf("Forwarding the events of account %d too", acct.ID))
	})
	targets := func() int {
		t.Helper()
		ls, err := c.Listeners(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range ls {
			for _, tg := range x.Targets {
				if tg.AccountID == acct.ID {
					n++
				}
			}
		}
		return n
	}
	if n := targets(); n != 1 {
		t.Fatalf("the listener has %d targets of account %d, want 1 (cash_in)", n, acct.ID)
	}

	in, err := c.PixIn(ctx, map[string]any{"key": acct.PixKeys[0].Key, "amount": 5})
	if err != nil {
		t.Fatal(err)
	}
	cliAdvance(t, srv, "10s")
	apitest.WaitFor(t, "the local URL to get the new account's CashIn delivery", func() bool {
		for _, h := range rec.hooks() {
			if strings.Contains(string(h.body), in.EndToEndID) {
				return true
			}
		}
		return false
	})
	apitest.WaitFor(t, "listen to print it", func() bool { return strings.Contains(l.out.String(), "cash_in") })
	l.stop(t)
	if n := targetsOf(t, srv, acct.ID, localURL); n != 0 {
		t.Fatalf("%d targets of account %d left at the local URL after the interrupt", n, acct.ID)
	}
}

// TestCLI_ListenUsage: listen refuses a missing or bad --forward-to and
// contradictory flags with one line and a hint.
func TestCLI_ListenUsage(t *testing.T) {
	for _, args := range [][]string{
		{}, {"--forward-to", "localhost:4000"}, {"--forward-to", "http://x/", "--all", "--account", "2"},
		{"--forward-to", "http://x/", "--ttl", "1s"}, {"--forward-to", "http://x/", "extra"},
	} {
		r := cliRun(t, "listen", args...)
		if r.code != 2 || strings.Count(r.stderr, "\n") != 2 || !strings.Contains(r.stderr, "pixsandbox listen -h") {
			t.Errorf("listen %v: %d %q", args, r.code, r.stderr)
		}
	}
}

// TestCLI_TriggerEveryEventToListen: trigger --list names every webhook event
// (and every registration event type), and triggering each one delivers its
// webhook to a running listen: the local URL gets the webhook-id trigger
// printed, answered 200, and listen prints a line for it.
func TestCLI_TriggerEveryEventToListen(t *testing.T) {
	srv := startServer(t, nil)
	rec := &hookRecorder{}
	localURL := newLocalServer(t, rec)

	list := cliRun(t, "trigger", "--list").must(t, 0)
	for _, name := range append(events.Names(), webhook.EventTypes...) {
		if !strings.Contains(list.stdout, " "+name+" ") {
			t.Errorf("trigger --list does not name %s:\n%s", name, list.stdout)
		}
	}

	l := startListen(t, srv, "--forward-to", localURL+"/hook", "--interval", "20ms")
	idLine := regexp.MustCompile(`--> 200 OK  webhook-id (evt_\S+)`)
	for _, ev := range events.All() {
		r := cliRun(t, "trigger", ev.Name, "--url", srv.URL).must(t, 0)
		got := idLine.FindStringSubmatch(r.stdout)
		if got == nil || !strings.Contains(r.stdout, ev.EventType+" webhook") {
			t.Fatalf("trigger %s: no delivery answered 200:\n%s", ev.Name, r.stdout)
		}
		delivered := false
		for _, h := range rec.hooks() {
			delivered = delivered || h.header.Get("webhook-id") == got[1]
		}
		if !delivered {
			t.Fatalf("trigger %s: webhook %s did not reach the local URL", ev.Name, got[1])
		}
		apitest.WaitFor(t, "listen to print "+ev.Name+"'s delivery", func() bool { return strings.Contains(l.out.String(), got[1]) })
	}
	l.stop(t)
}
