package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCLI_Fault: fault add makes a rule the server applies, requests marks
// the request faulted, list counts it, clear removes one rule or all; usage
// errors exit 2 naming the flag.
func TestCLI_Fault(t *testing.T) {
	m := MustRunMain(t, func(c *Config) { c.JournalSize = 100 })
	u := m.URL()
	auth := map[string]string{"Authorization": "Bearer " + fixtureToken(t, m)}

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

// TestServe_ShutdownEndsFaultHolds: a request held by a timeout fault does
// not keep a shutting down server waiting for its client; the client sees
// its connection closed.
func TestServe_ShutdownEndsFaultHolds(t *testing.T) {
	m := MustRunMain(t, nil)
	cliRun(t, "fault", "add", "GET", "/accounts/balances", "timeout", "--url", m.URL()).must(t, 0)
	req, _ := http.NewRequest(http.MethodGet, m.URL()+"/accounts/balances", nil)
	req.Header.Set("Authorization", "Bearer "+fixtureToken(t, m))
	errc := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	// The rule counts the request when it starts to hold it.
	cliWaitFor(t, "the request to be held", func() bool {
		return strings.Contains(cliRun(t, "fault", "list", "--url", m.URL()).stdout, "every request  1        1")
	})
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close took %s: it waited for the held request", took)
	}
	if err := <-errc; err == nil {
		t.Error("the held request was answered")
	}
}
