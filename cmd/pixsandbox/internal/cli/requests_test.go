package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

func TestCLI_Requests(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	token := apitest.TokenFor(t, srv, 0)
	call(t, "GET", u+"/accounts/balances", "", map[string]string{"Authorization": "Bearer " + token})
	call(t, "GET", u+"/nowhere", "", nil)

	r := cliRun(t, "requests", "--url", u).must(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "POST   /api/auth/token  201") || !strings.Contains(lines[1], "/accounts/balances  200") ||
		!strings.Contains(lines[1], "account 1") || !strings.Contains(lines[2], "/nowhere  401") {
		t.Fatalf("requests printed (oldest first):\n%s", r.stdout)
	}
	// Times print at milliseconds, as the API writes them (the clock is virtual here).
	if !strings.HasPrefix(lines[0], "2026-03-02T12:00:00.000Z  POST") {
		t.Fatalf("a request's time, as the API writes times: %q", lines[0])
	}
	if strings.Contains(r.stdout, token) {
		t.Fatal("the token shows")
	}
	r = cliRun(t, "requests", "--url", u, "--status", "4xx", "--json").must(t, 0)
	var e map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &e); err != nil || e["path"] != "/nowhere" || e["time"] != "2026-03-02T12:00:00.000Z" {
		t.Fatalf("--status 4xx --json: %q", r.stdout)
	}
	r = cliRun(t, "requests", "--url", u, "--path", "/api/auth", "--json").must(t, 0)
	if !strings.Contains(r.stdout, `\"clientSecret\":\"***\"`) {
		t.Fatalf("--path /api/auth --json: the body is not masked: %s", r.stdout)
	}
	cliRun(t, "requests", "--url", u, "--since", "1h").must(t, 0) // reads the clock: a 4th request
	cliRun(t, "requests", "--url", u, "--since", "soon").must(t, 2, "--since")
	if r := cliRun(t, "requests", "clear", "--url", u).must(t, 0); r.stdout != "4 requests dropped from the journal\n" {
		t.Fatalf("clear: %q", r.stdout)
	}
	if r := cliRun(t, "requests", "--url", u).must(t, 0); r.stdout != "no requests match\n" {
		t.Fatalf("after clear: %q", r.stdout)
	}

	// --follow prints requests made after it starts, until interrupted.
	out, errb := &cliSyncBuffer{}, &cliSyncBuffer{}
	env := Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errb, Lookup: func(string) (string, bool) { return "", false }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- RunEnv(ctx, env, "requests", []string{"--url", u, "--follow", "--interval", "20ms"}) }()
	apitest.WaitFor(t, "requests --follow to start", func() bool { return strings.Contains(errb.String(), "following requests") })
	call(t, "GET", u+"/healthz", "", nil)
	apitest.WaitFor(t, "requests --follow to print /healthz", func() bool { return strings.Contains(out.String(), "GET    /healthz  200") })
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("--follow ended with %d", code)
		}
	case <-time.After(10 * time.Second): // wall time: bounds a hung command
		t.Fatal("--follow did not stop when interrupted")
	}
}

// TestCLI_RequestsUnmatched: --unmatched lists the requests no route
// matched (GET /_sandbox/requests?matched=false), each followed by the
// route it came closest to and what differs; --json prints the entries as
// the server wrote them, nearMiss included.
func TestCLI_RequestsUnmatched(t *testing.T) {
	srv := startServer(t, nil)
	u := srv.URL
	auth := map[string]string{"Authorization": "Bearer " + apitest.TokenFor(t, srv, 0)}
	call(t, "GET", u+"/accounts/balances", "", auth)
	call(t, "POST", u+"/api/pix/cashout", "{}", auth)
	call(t, "GET", u+"/nowhere", "", auth)

	r := cliRun(t, "requests", "--url", u, "--unmatched").must(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "POST   /api/pix/cashout  404") ||
		lines[1] != "    did you mean POST /api/pix/cash-out? the path differs in 'cashout' → 'cash-out'" ||
		!strings.Contains(lines[2], "GET    /nowhere  404") {
		t.Fatalf("requests --unmatched (oldest first):\n%s", r.stdout)
	}
	r = cliRun(t, "requests", "--url", u, "--unmatched", "--json", "--path", "/api/pix").must(t, 0)
	var e struct {
		Route    string `json:"route"`
		NearMiss []struct {
			Route string `json:"route"`
		} `json:"nearMiss"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &e); err != nil || e.Route != "(unmatched)" ||
		len(e.NearMiss) != 1 || e.NearMiss[0].Route != "/api/pix/cash-out" {
		t.Fatalf("--unmatched --json: %q", r.stdout)
	}
	// Without the filter the near miss is printed under its request too.
	r = cliRun(t, "requests", "--url", u).must(t, 0)
	if !strings.Contains(r.stdout, "/accounts/balances  200") || !strings.Contains(r.stdout, "/api/pix/cashout  404") ||
		!strings.Contains(r.stdout, "    did you mean POST /api/pix/cash-out?") {
		t.Fatalf("requests:\n%s", r.stdout)
	}
}

func TestCLI_RequestsJournalOff(t *testing.T) {
	srv := startServer(t, func(o *simulatortest.Options) { o.JournalSize = 0 })
	cliRun(t, "requests", "--url", srv.URL).must(t, 1, "--journal-size 0")
}

// TestCLITime: every time the CLI prints reads as the API writes its
// timestamps, ISO 8601 in UTC at milliseconds, whatever precision the server
// sent (a real clock's now carries nanoseconds).
func TestCLITime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-12-06T08:51:26.870686441Z":      "2026-12-06T08:51:26.870Z",
		"2026-03-02T12:00:00Z":                "2026-03-02T12:00:00.000Z",
		"2026-03-03T00:00:00.5Z":              "2026-03-03T00:00:00.500Z",
		"2026-03-02T09:00:00.123456789-03:00": "2026-03-02T12:00:00.123Z",
		"not a time":                          "not a time",
	} {
		if got := cliTime(in); got != want {
			t.Errorf("cliTime(%q) = %q, want %q", in, got, want)
		}
	}
}
