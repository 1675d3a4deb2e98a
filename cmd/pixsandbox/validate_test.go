package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cli"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// validateRun runs `pixsandbox validate` with stdin and PIXSANDBOX_*
// variables of env.
func validateRun(t *testing.T, stdin string, env map[string]string, args ...string) cmdResult {
	t.Helper()
	var out, errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := runValidate(args, strings.NewReader(stdin), &out, &errb, lookup)
	return cmdResult{code, out.String(), errb.String()}
}

// exchangeNumber is the exchange's number in a finding's line: the proxy's
// count, or the entry's position in the file.
var exchangeNumber = regexp.MustCompile(`\] (\S+) #\d+ `)

// normalLines returns a command's finding lines without their exchange
// numbers, sorted.
func normalLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "pixsandbox proxy: [") {
			out = append(out, exchangeNumber.ReplaceAllString(l, "] $1 #N "))
		}
	}
	sort.Strings(out)
	return out
}

// TestValidate_RequestsExport: traffic through the proxy in front of
// `pixsandbox serve`, exported with `pixsandbox requests --json` and
// validated, prints the proxy's finding lines (the exchange numbers aside),
// writes the same findings to --json, a JUnit report, and exits 1 at
// --fail-on request.
func TestValidate_RequestsExport(t *testing.T) {
	m := MustRunMain(t, nil)
	live := bannerWriter{banner: make(chan string, 1)} // the findings' lines, written as the exchanges end
	u, _, stop, err := proxy.Start(m.URL(), proxy.Options{Log: &live, JudgeProcess: judgeProcess})
	if err != nil {
		t.Fatal(err)
	}
	a := m.fixtures.Accounts[0]
	pemBytes, err := m.fixtures.ReadFile(a.Certificate)
	if err != nil {
		t.Fatal(err)
	}
	st, tok := call(t, "POST", u+"/api/auth/token", `{"clientId":"`+a.ClientID+`","clientSecret":"`+a.ClientSecret+`"}`,
		map[string]string{"Content-Type": "application/json", "X-SSL-Client-Cert": pix.EncodeCertHeader(pemBytes)})
	if st != 201 {
		t.Fatalf("token through the proxy: %d %v", st, tok)
	}
	auth := map[string]string{"Authorization": "Bearer " + tok["access_token"].(string), "Content-Type": "application/json"}
	call(t, "GET", u+"/accounts/balances", "", auth)
	call(t, "POST", u+"/api/pix/cash-out", `{}`, auth)
	call(t, "POST", u+"/api/pix/cash-out", `{"value":1.001,"externalId":"x","details":{"key":"k","keyType":"NOPE","name":"n","document":"12"}}`, auth)
	call(t, "GET", u+"/api/transactions?size=5000", "", auth)
	call(t, "GET", u+"/api/med", "", nil)
	call(t, "PUT", u+"/cob/short", "", auth) // no body: the server refuses the path before reading one
	stop()

	var export, exportErr bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &export, Stderr: &exportErr, Lookup: func(string) (string, bool) { return "", false }}
	if code := cli.RunEnv(context.Background(), env, "requests", []string{"--url", m.URL(), "--json", "--limit", "100000"}); code != 0 {
		t.Fatalf("requests --json: exit %d: %s", code, exportErr.String())
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(file, export.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	jsonPath, junitPath := filepath.Join(dir, "report.json"), filepath.Join(dir, "report.xml")
	r := validateRun(t, "", nil, file, "--json", jsonPath, "--junit", junitPath, "--fail-on", "request")
	if r.code != 1 || !strings.Contains(r.out, "FAIL: ") || !strings.Contains(r.out, "request journal entries, one per line") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errOut)
	}
	want, got := normalLines(live.String()), normalLines(r.errOut)
	if len(want) < 8 || strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("the lines differ\nproxy:\n%s\nvalidate:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	var rep proxy.Report
	raw, err := os.ReadFile(jsonPath)
	if err != nil || json.Unmarshal(raw, &rep) != nil || len(rep.Findings) != len(got) || rep.Exchanges != 7 || rep.Counts.Request != len(got) {
		t.Fatalf("--json report (%v): %s", err, raw)
	}
	raw, err = os.ReadFile(junitPath)
	var suites struct {
		Suites []struct {
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err != nil || xml.Unmarshal(raw, &suites) != nil || len(suites.Suites) != 1 || suites.Suites[0].Failures == 0 {
		t.Fatalf("--junit report (%v): %s", err, raw)
	}
	if !strings.Contains(r.out, "pixsandbox proxy: 7 exchanges with file://") || !strings.Contains(r.out, "findings: 0 response, 0 state, ") {
		t.Fatalf("no summary:\n%s", r.out)
	}
}

// dupLines is a journal export (lines) in which one account has a cash-out
// externalId accepted twice: a state finding.
const dupLines = `{"id":1,"requestId":"r1","method":"POST","path":"/api/pix/cash-out","accountId":1,"status":201,"requestHeaders":{"Authorization":"Bearer ***"},` +
	`"requestBody":"{\"value\":10.50,\"externalId\":\"dup-1\",\"details\":{\"key\":\"53992810232\",\"keyType\":\"DOCUMENT\",\"name\":\"Dane\",\"document\":\"53992810232\"}}",` +
	`"responseContentType":"application/json","responseBody":"{\"transactionId\":\"6f1c1f3e-1b7a-4c1e-9d2a-000000000001\",\"externalId\":\"dup-1\",\"status\":\"PENDING\",\"generateTime\":\"2026-03-02T12:00:00Z\"}"}
{"id":2,"requestId":"r2","method":"POST","path":"/api/pix/cash-out","accountId":1,"status":201,"requestHeaders":{"Authorization":"Bearer ***"},` +
	`"requestBody":"{\"value\":10.50,\"externalId\":\"dup-1\",\"details\":{\"key\":\"53992810232\",\"keyType\":\"DOCUMENT\",\"name\":\"Dane\",\"document\":\"53992810232\"}}",` +
	`"responseContentType":"application/json","responseBody":"{\"transactionId\":\"6f1c1f3e-1b7a-4c1e-9d2a-000000000002\",\"externalId\":\"dup-1\",\"status\":\"PENDING\",\"generateTime\":\"2026-03-02T12:00:00Z\"}"}
`

// TestValidate_ExitCodes: --fail-on and its variable, flags after FILE,
// standard input, and bad usage and bad input (exit 2, the file and the
// entry named, one line and a hint for usage).
func TestValidate_ExitCodes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "dup.jsonl")
	truncated := filepath.Join(dir, "cut.jsonl")
	if os.WriteFile(file, []byte(dupLines), 0o600) != nil || os.WriteFile(truncated, []byte(dupLines[:len(dupLines)-30]), 0o600) != nil {
		t.Fatal("writing the test files")
	}
	r := validateRun(t, "", nil, file)
	if r.code != 1 || !strings.Contains(r.out, "FAIL: 1 findings at or above --fail-on state") ||
		!strings.Contains(r.errOut, "pixsandbox proxy: [state] state.external-id-duplicate #2 POST /api/pix/cash-out (request r2)") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.errOut)
	}
	validateRun(t, "", nil, file, "--fail-on", "none").must(t, 0)
	validateRun(t, "", nil, "--fail-on=response", file).must(t, 0)
	validateRun(t, "", map[string]string{"PIXSANDBOX_VALIDATE_FAIL_ON": "none"}, file).must(t, 0)
	validateRun(t, "", map[string]string{"PIXSANDBOX_VALIDATE_FAIL_ON": "none"}, file, "--fail-on", "state").must(t, 1)
	if r := validateRun(t, dupLines, nil, "-").must(t, 1); !strings.Contains(r.out, "pixsandbox validate: standard input: ") {
		t.Fatalf("stdin: %s", r.out)
	}
	validateRun(t, "", nil, file, "--json", filepath.Join(dir, "no", "such", "dir.json")).must(t, 1, "no such file or directory")

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{truncated}, truncated + ": entry 2: the file ends inside it: truncated JSON"},
		{[]string{"-"}, "standard input: the file is empty"},
		{[]string{filepath.Join(dir, "missing.har")}, "missing.har: no such file"},
	} {
		if r := validateRun(t, "", nil, tt.args...).must(t, 2, tt.want); r.out != "" {
			t.Errorf("%v printed %q before refusing", tt.args, r.out)
		}
	}
	for _, args := range [][]string{{}, {file, file}, {file, "--fail-on", "never"}, {"--nope", file}} {
		r := validateRun(t, "", nil, args...)
		lines := strings.Split(strings.TrimRight(r.errOut, "\n"), "\n")
		if r.code != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], "pixsandbox validate: ") || lines[1] != "Run 'pixsandbox validate -h' for usage." {
			t.Errorf("%v: exit %d, stderr %q: want 2, one line and a hint", args, r.code, r.errOut)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"validate", "-h"}, &out, &errb); code != 0 || errb.Len() != 0 || !strings.Contains(out.String(), "-fail-on") {
		t.Fatalf("validate -h: exit %d, stderr %q", code, errb.String())
	}
}
