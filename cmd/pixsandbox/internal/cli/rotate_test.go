package cli

import (
	"encoding/json"
	"strings"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// TestCLI_WebhooksRotateSecret: webhooks rotate-secret gives a target a new
// secret and says until when the old one signs too; with a listener's id it
// rotates the listener, listen prints the new secret, and its next delivery
// verifies with the old secret and with the new one. Bad usage is 2, an
// unknown id 1.
func TestCLI_WebhooksRotateSecret(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	st, tg := call(t, "POST", u+"/_sandbox/webhook-targets",
		`{"accountId":1,"eventType":"cash_in","url":"http://127.0.0.1:9/h","secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}`, nil)
	if st != 201 {
		t.Fatalf("target: %d %v", st, tg)
	}
	id := tg["id"].(json.Number).String()

	r := cliRun(t, "webhooks", "rotate-secret", id, "--overlap", "2h", "--url", u).must(t, 0)
	if !strings.Contains(r.stdout, "webhook target "+id+" (cash_in http://127.0.0.1:9/h): new signing secret whsec_") ||
		!strings.Contains(r.stdout, "(wall time) deliveries carry both signatures") {
		t.Fatalf("stdout: %q", r.stdout)
	}
	r = cliRun(t, "webhooks", "--url", u, "rotate-secret", id, "--overlap", "0", "--json").must(t, 0)
	var out struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || !strings.HasPrefix(out.Secret, "whsec_") || strings.Contains(r.stdout, "previousSecretExpiresAt") {
		t.Fatalf("--json --overlap 0: %q", r.stdout)
	}
	cliRun(t, "webhooks", "rotate-secret", "999999", "--url", u).must(t, 1, "not found")
	cliRun(t, "webhooks", "rotate-secret", "lst_nope", "--url", u).must(t, 1, "not found")
	cliRun(t, "webhooks", "rotate-secret", id, "--overlap", "8d", "--url", u).must(t, 1, "overlap")
	cliRun(t, "webhooks", "rotate-secret", id, "--overlap", "soon", "--url", u).must(t, 2, "--overlap")
	cliRun(t, "webhooks", "rotate-secret", "--url", u).must(t, 2, "rotate-secret ID")
	cliRun(t, "webhooks", "rotate-secret", "x1", "--url", u).must(t, 2, "must be a webhook target id")
	cliRun(t, "webhooks", "rotate-secret", id, "--account", "1", "--url", u).must(t, 2, "--account goes with webhooks tail")
	cliRun(t, "webhooks", "tail", "--overlap", "1h", "--url", u).must(t, 2, "--overlap goes with webhooks rotate-secret")

	rec := &hookRecorder{}
	localURL := newLocalServer(t, rec)
	l := startListen(t, srv, "--forward-to", localURL+"/hook", "--events", "cash_out", "--interval", "20ms")
	e := l.errb.String()
	lst := strings.Fields(e[strings.Index(e, "webhooks rotate-secret ")+len("webhooks rotate-secret "):])[0]
	r = cliRun(t, "webhooks", "rotate-secret", lst, "--url", u).must(t, 0)
	if !strings.Contains(r.stdout, "listener "+lst+" (1 target): new signing secret whsec_") {
		t.Fatalf("stdout: %q", r.stdout)
	}
	fresh := strings.Fields(r.stdout[strings.Index(r.stdout, "new signing secret ")+len("new signing secret "):])[0]
	apitest.WaitFor(t, "listen to print the rotated secret", func() bool { return strings.Contains(l.errb.String(), "Signing secret rotated: "+fresh) })

	cashOut(t, srv, "rotate-1")
	cliAdvance(t, srv, "10s")
	apitest.WaitFor(t, "the local URL to get the CashOut delivery", func() bool { return len(rec.hooks()) > 0 })
	h := rec.hooks()[0]
	for name, secret := range map[string]string{"old": l.secret, "new": fresh} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(h.body, h.header); err != nil {
			t.Errorf("the delivery after the rotation does not verify with the %s secret: %v", name, err)
		}
	}
	l.stop(t)
}
