package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/conformance/proxy/judging"
)

// judgingEnv makes this test binary a judging process instead of running
// the tests: "serve" is judging.Serve; "break" reads one byte of its
// input and ends, as a judging process that crashes.
const judgingEnv = "PIXSANDBOX_TEST_JUDGING"

func TestMain(m *testing.M) {
	switch os.Getenv(judgingEnv) {
	case "serve":
		if err := judging.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "break":
		_, _ = os.Stdin.Read(make([]byte, 1))
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// judgingProcess returns an Options.JudgeProcess that runs this test binary
// as a judging process in mode (judgingEnv).
func judgingProcess(mode string) func() *exec.Cmd {
	return func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), judgingEnv+"="+mode)
		return cmd
	}
}

// judgings are the two places a proxy judges: the tests of the rules that
// rest on what is handed to the judges (state, times, deliveries, failures)
// run in both.
var judgings = []struct {
	name    string
	process func() *exec.Cmd
}{{"inline", nil}, {"process", judgingProcess("serve")}}

// TestJudging_ProcessBreaks: a judging process that ends before the proxy
// does costs only the exchanges it held: the proxy says so, judges the
// rest itself, and neither Quiesce nor the shutdown waits for the process.
func TestJudging_ProcessBreaks(t *testing.T) {
	up := httptest.NewServer(&fake{now: fakeClock})
	defer up.Close()
	var log syncBuffer
	s, err := proxy.Listen("127.0.0.1:0", proxy.Options{Upstream: up.URL, Log: &log, JudgeProcess: judgingProcess("break")})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, s.URL)
	c.token = fakeToken(fakeClock)
	const ended = "the judging process ended"
	deadline := time.Now().Add(10 * time.Second) // wall clock: how long a test waits for the process to end
	for !strings.Contains(log.String(), ended) {
		if time.Now().After(deadline) {
			t.Fatalf("no line says the judging process ended; the log:\n%s", log.String())
		}
		c.do("GET", "/accounts/balances", "")
		s.Quiesce()
	}
	// Judged by the proxy itself now: a refund over the original is seen.
	c.do("GET", "/api/transactions", "")
	c.do("PUT", "/pix/"+e2eFake+"/devolucao/r1", `{"valor":"30.00"}`)
	c.do("PUT", "/pix/"+e2eFake+"/devolucao/r2", `{"valor":"30.00"}`)
	s.Quiesce()
	if got := byKind(s.Findings())["state"]; len(got) != 1 || got[0].Rule != "state.refund-over-original" {
		t.Fatalf("after the judging process ended, want one state.refund-over-original finding; state findings:%s", lines(got))
	}
	sum := s.Summary()
	if sum.Judging != "process" || sum.Model["refunds"] == 0 {
		t.Errorf("the summary says judging %q with a model of %v: want process, with the proxy's own model's refunds", sum.Judging, sum.Model)
	}
	if want := sum.Exchanges - 3; sum.Unjudged > want {
		t.Errorf("%d exchanges unjudged of %d before the break", sum.Unjudged, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown after the judging process ended: %v", err)
	}
}

// TestJudging_OversizeItem: an exchange too large to hand over (an
// upstream's headers have no 1 MiB bound) is judged by the proxy itself,
// and the judging process goes on with the rest.
func TestJudging_OversizeItem(t *testing.T) {
	big := strings.Repeat("x", 5<<20)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("X-Big") != "" {
			w.Header().Set("X-Big", big)
		}
		_, _ = io.WriteString(w, `{}`) // no data: a response finding
	}))
	defer up.Close()
	var log syncBuffer
	u, findings, stop, err := proxy.Start(up.URL, proxy.Options{Log: &log, JudgeProcess: judgingProcess("serve")})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	c.token = fakeToken(fakeClock)
	c.do("GET", "/accounts/balances", "", "X-Big: 1")
	c.do("GET", "/accounts/balances", "")
	judged := map[uint64]bool{}
	for _, f := range findings() {
		if f.Rule == "resp.field-missing" {
			judged[f.Exchange] = true
		}
	}
	if !judged[1] || !judged[2] || strings.Contains(log.String(), "judging process ended") {
		t.Fatalf("exchanges judged %v, want 1 and 2; the log:\n%s", judged, log.String())
	}
}
