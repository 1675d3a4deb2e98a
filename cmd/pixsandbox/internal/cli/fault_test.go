package cli

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// TestCLI_Fault: fault add makes a rule the server applies, requests marks
// the request faulted, list counts it, clear removes one rule or all; usage
// errors exit 2 naming the flag.
func TestCLI_Fault(t *testing.T) {
	srv := startServer(t, func(o *simulatortest.Options) { o.JournalSize = 100 })
	u := srv.URL
	auth := map[string]string{"Authorization": "Bearer " + apitest.TokenFor(t, srv, 0)}

	r := cliRun(t, "fault", "add", "GET", "/accounts/balances", "status=503", "--times", "1", "--account", "1", "--url", u).must(t, 0)
	if r.stdout != "fault rule 1: GET /accounts/balances gets status=503 (account 1, 1 time)\n" {
		t.Fatalf("add printed %q", r.stdout)
	}
	if st, _ := rawCall(t, "GET", u+"/accounts/balances", "", auth); st != http.StatusServiceUnavailable {
		t.Fatalf("the faulted request answered %d", st)
	}
	if st, _ := rawCall(t, "GET", u+"/accounts/balances", "", auth); st != http.StatusOK {
		t.Fatalf("the request after the rule's one time answered %d", st)
	}
	r = cliRun(t, "requests", "--url", u, "--path", "/accounts").must(t, 0)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 || !strings.HasSuffix(lines[0], "  fault status=503 (rule 1)") ||
		strings.Contains(lines[1], "fault") {
		t.Fatalf("requests printed:\n%s", r.stdout)
	}
	cliRun(t, "fault", "add", "*", "*", "delay=1ms", "--probability", "0.5", "--seed", "7", "--url", u).must(t, 0)
	r = cliRun(t, "fault", "list", "--url", u).must(t, 0)
	if !strings.Contains(r.stdout, "1   GET     /accounts/balances  status=503  account 1, 1 time") ||
		!strings.Contains(r.stdout, "probability 0.5, seed 7") {
		t.Fatalf("list printed:\n%s", r.stdout)
	}
	if r := cliRun(t, "fault", "clear", "1", "--url", u).must(t, 0); r.stdout != "fault rule 1 removed\n" {
		t.Fatalf("clear 1: %q", r.stdout)
	}
	cliRun(t, "fault", "clear", "1", "--url", u).must(t, 1, "not found")
	if r := cliRun(t, "fault", "clear", "--url", u).must(t, 0); r.stdout != "1 fault rule cleared\n" {
		t.Fatalf("clear: %q", r.stdout)
	}
	cliRun(t, "fault", "add", "GET", "/_sandbox/clock", "timeout", "--url", u).must(t, 1, "route")
	cliRun(t, "fault", "add", "GET", "/api/balance", "drop", "--url", u).must(t, 1, "fault")
	cliRun(t, "fault", "add", "GET", "/api/balance", "--url", u).must(t, 2, "METHOD ROUTE FAULT")
	cliRun(t, "fault", "add", "GET", "/api/balance", "timeout", "--probability", "0", "--url", u).must(t, 2, "--probability")
	cliRun(t, "fault", "list", "--times", "2", "--url", u).must(t, 2, "--times goes with fault add")
	cliRun(t, "fault", "frob", "--url", u).must(t, 2, "add, list or clear")
}
