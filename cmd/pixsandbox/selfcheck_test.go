package main

import (
	"bufio"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/simulator/faults"
)

// selfCheckFaults says, for every deliberately broken behaviour of package
// faults, which checks to run against it and a check that must fail.
var selfCheckFaults = []struct {
	fault  string
	labels string
	caught string // a substring of a check that must fail
}{
	{faults.CobStatus200, "res:cob", "PUT /cob/{txid} answers a created charge with 201"},
	{faults.CashOutNoGenerateTime, "res:cash-out", "accepts a cash-out with 201, a UUID transactionId, the externalId echoed, status PENDING and a UTC generateTime"},
	{faults.FeeLeftBlocked, "res:cash-out", "charges the account's fee: available decreases by value plus fee and the webhook carries it"},
	{faults.TokenLifetime1799, "res:auth", "issues a token for a valid request with 201, token_type Bearer and expires_in 1800"},
	{faults.WebhookNewIDOnRetry, "res:cash-out", "retries a failed webhook delivery with the same webhook-id"},
	{faults.DictNoIdempotency, "res:transfer", "answers a repeated request with the same key with the same transfer"},
	{faults.NightEndsAt5, "res:cash-out", "applies the night limit from 20:00 to 06:00 in São Paulo, at each edge"},
	{faults.GrossIgnoresBlocked, "res:balance", "maps the balance while an amount is blocked"},
	{faults.TransferAmountTrimmed, "res:transfer", "sends TRANSFER webhooks whose payment.amount keeps its trailing zeros"},
	{faults.ReceiveAmountTrimmed, "res:cob", "sends RECEIVE webhooks whose payment.amount keeps its trailing zeros"},
	{faults.RefundOfCashOut, "res:refund", "refuses to refund every kind of settled transaction that is not a received PIX"},
	{faults.FeeNeverRefuses, "res:cash-out", "refuses a cash-out that only its fee takes above the available balance"},
	{faults.KeyListingUncapped, "res:transactions", "lists at most 1000 results for a key that received 1001 PIX"},
	{faults.ListingWindowDayPrecision, "res:transactions", "an interval of 31 days and 1 second"},
	{faults.RefundWindowWholeDay, "res:refund", "refuses a refund one second past 89 × 24 hours"},
	{faults.RefundTwoPerPIX, "res:refund", "accepts refunds up to exactly the PIX's amount and refuses one centavo more with 400"},
	{faults.RefusedCashOutCounts, "res:cash-out", "leaves the daily total as it was after a refused cash-out"},
	{faults.WebhookRetriesOneShort, "res:cash-out", "follows a failing delivery to its seventh and last attempt and ends it failed"},
	{faults.WebhookRedirectDelivered, "res:cash-out", "retries a delivery answered 3xx or 4xx"},
	{faults.TokenValidAtExp, "res:auth", "honours the 1800 s lifetime on the simulation clock, to the second"},
	{faults.EndToEndLocalTime, "res:cash-out", "writes the settlement's UTC minute and the payer's ISPB in the endToEndId"},
}

// proxySees names, for the faults the validating proxy can see in the
// suite's traffic, a rule it must report (docs/proxy.md, "The self-check
// faults through the proxy", lists the others and why it cannot see them).
var proxySees = map[string]string{
	faults.CashOutNoGenerateTime: "resp.field-missing",
	faults.TokenLifetime1799:     "resp.value-allowed",
	faults.DictNoIdempotency:     "state.idempotent-replay",
	faults.KeyListingUncapped:    "resp.value-allowed",
	faults.TransferAmountTrimmed: "hook.money-format",
	faults.ReceiveAmountTrimmed:  "hook.money-format",
	faults.WebhookNewIDOnRetry:   "hook.id-changed-on-retry",
	faults.FeeLeftBlocked:        "state.balance-mismatch",
	faults.GrossIgnoresBlocked:   "resp.consistent",
}

// TestSelfCheck proves the conformance suite catches a wrong implementation.
// It builds this command with the "faults" tag, then for each fault starts
// `pixsandbox serve` with only that fault on and runs `pixsandbox conform`
// (the shipped runner) against it: the run must fail, with the fault's check
// among the failures. A run of the same checks against the same binary with no
// fault must pass, so the failures come from the faults.
//
// Every run goes through the validating proxy (pixsandbox proxy, in
// process, with quiet accounts: each check's account is its own): with no
// fault it must find nothing wrong with the answers, and with a fault of
// proxySees it must report that fault's rule.
func TestSelfCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs the suite several times")
	}
	t.Parallel() // child processes only: runs beside the other long tests
	for _, f := range faults.All {
		if !strings.Contains(fmt.Sprint(selfCheckFaults), f) {
			t.Fatalf("fault %s has no self-check case", f)
		}
	}
	bin := childBinary(t, "faults")
	if bin == "" {
		t.Skip("the go command is needed to build the faults binary")
	}
	dir := t.TempDir()

	var union []string
	for _, c := range selfCheckFaults {
		if !strings.Contains(strings.Join(union, " || "), c.labels) {
			union = append(union, c.labels)
		}
	}
	// The runs are independent (a server each); three at a time keep both
	// cores busy while a run waits on its clock and webhooks.
	slots := make(chan struct{}, 3)
	run := func(t *testing.T, fault, labels string) ([]string, int, string, []contract.Finding) {
		t.Helper()
		t.Parallel()
		slots <- struct{}{}
		defer func() { <-slots }()
		return selfCheckRun(t, bin, dir, fault, labels)
	}
	t.Run("no fault", func(t *testing.T) {
		failed, code, out, found := run(t, "", strings.Join(union, " || "))
		if code != 0 || len(failed) > 0 {
			t.Fatalf("the suite fails against the faults binary with no fault on (exit %d): %v\n%s", code, failed, out)
		}
		for _, f := range found {
			if !f.Notice && f.Kind != contract.KindRequest {
				t.Errorf("the proxy reports a %s finding %s on %s %s with no fault on: expected %s, seen %s", f.Kind, f.Rule, f.Method, f.Path, f.Expected, f.Seen)
			}
		}
	})
	for _, c := range selfCheckFaults {
		t.Run(c.fault, func(t *testing.T) {
			failed, code, out, found := run(t, c.fault, c.labels)
			if code != 1 {
				t.Fatalf("pixsandbox conform exited %d against fault %s, want 1 (a failed check)\n%s", code, c.fault, out)
			}
			if rule, ok := proxySees[c.fault]; ok && !slices.ContainsFunc(found, func(f contract.Finding) bool { return f.Rule == rule && !f.Notice }) {
				t.Errorf("fault %s: the proxy reports no %s finding; it reported %v", c.fault, rule, ruleIDs(found))
			}
			for _, f := range failed {
				if strings.Contains(f, c.caught) {
					t.Logf("caught by %d checks, among them %q; the proxy reported %v", len(failed), f, ruleIDs(found))
					return
				}
			}
			t.Fatalf("fault %s: no failed check contains %q; failed: %q", c.fault, c.caught, failed)
		})
	}
}

// ruleIDs lists the rules of findings, once each, notices left out.
func ruleIDs(found []contract.Finding) []string {
	var ids []string
	for _, f := range found {
		if !f.Notice && !slices.Contains(ids, f.Rule) {
			ids = append(ids, f.Rule)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestSelfCheck_ProxyTableNamesEveryFault holds docs/proxy.md's table of the
// self-check faults to the faults: every fault has a row, and a fault the
// proxy sees names the rule TestSelfCheck requires of it.
func TestSelfCheck_ProxyTableNamesEveryFault(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "proxy.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "| `") {
			for _, name := range faults.All {
				if strings.Contains(strings.SplitN(line, "|", 3)[1], "`"+name+"`") {
					rows[name] = line
				}
			}
		}
	}
	for _, name := range faults.All {
		row, ok := rows[name]
		switch {
		case !ok:
			t.Errorf("docs/proxy.md: no row for fault %s in the table of self-check faults", name)
		case proxySees[name] != "" && !strings.Contains(row, "`"+proxySees[name]+"`"):
			t.Errorf("docs/proxy.md: the row of %s does not name %s: %s", name, proxySees[name], row)
		case proxySees[name] == "" && !strings.Contains(row, "| no |"):
			t.Errorf("docs/proxy.md: the row of %s says the proxy sees it, but TestSelfCheck does not require it: %s", name, row)
		}
	}
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// selfCheckRun starts bin serve with fault on and a validating proxy in
// front of it, runs bin conform with labels through the proxy and returns the
// failed checks (from its JUnit report), its exit code, its output and the
// proxy's findings.
func selfCheckRun(t *testing.T, bin, dir, fault, labels string) (failed []string, code int, output string, found []contract.Finding) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--in-memory", "--clock", "virtual", "--log-level", "error")
	srv.Env = cleanEnv("PIXSANDBOX_FAULTS=" + fault)
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	srv.Stderr = io.Discard
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				url <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var target string
	select {
	case target = <-url:
	case <-ctx.Done():
		t.Fatal("the faults binary did not say where it listens")
	}

	// The suite's webhook receiver listens behind the proxy: the target
	// delivers to the proxy (--webhook-public-url), which judges each
	// delivery and forwards it to the receiver (WebhooksTo).
	hooks := freeLoopbackAddr(t)
	via, findings, stop, err := proxy.Start(target, proxy.Options{WebhooksTo: "http://" + hooks, QuietAccounts: true, JudgeProcess: judgeProcess})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	name := strings.NewReplacer(":", "-", " ", "", "|", "").Replace(fault + labels)
	junit := filepath.Join(dir, "junit-"+name+".xml")
	run := exec.CommandContext(ctx, bin, "conform", "--target", via, "--control-plane", "on", "--allow-clock-moves",
		"--webhook-listen", hooks, "--webhook-public-url", via+"/_proxy/webhooks",
		"--labels", labels, "--junit-report", junit, "--reports-dir", filepath.Join(dir, "reports-"+name), "--settle-timeout", "5s", "--no-color")
	run.Env = cleanEnv("PIXSANDBOX_FAULTS=") // the runner itself has no fault
	out, err := run.CombinedOutput()
	code = run.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("pixsandbox conform: %v\n%s", err, out)
	}
	return junitFailures(t, junit), code, string(out), findings()
}

// freeLoopbackAddr returns a loopback address with a port free a moment ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// cleanEnv is the environment without any PIXSANDBOX_* variable of the caller
// (make test points PIXSANDBOX_CONFORMANCE_* reports at its own run's files; a
// PIXSANDBOX_ADMIN_TOKEN would guard the control plane), plus extra.
func cleanEnv(extra ...string) []string {
	env := extra
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PIXSANDBOX_") {
			env = append(env, kv)
		}
	}
	return env
}

// junitFailures returns the names of the failed test cases of a JUnit report.
func junitFailures(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the JUnit report: %v", err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Error   *struct{} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("the JUnit report: %v", err)
	}
	var failed []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil || c.Error != nil {
				failed = append(failed, c.Name)
			}
		}
	}
	return failed
}
