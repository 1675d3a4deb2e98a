package proxy_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
)

// TestProxy_Reports: GET /_proxy/findings (filtered by kind, rule and
// exchange), the JSON report, the JUnit report (one case per rule, failed
// where the rule had findings) and the summary tell the same run.
func TestProxy_Reports(t *testing.T) {
	up := httptest.NewServer(&fake{now: fakeClock})
	defer up.Close()
	var log syncBuffer
	s, err := proxy.Listen("127.0.0.1:0", proxy.Options{Upstream: up.URL, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(t.Context())
	c := newClient(t, s.URL)
	c.token = fakeToken(fakeClock)
	cashOut := `{"value":10.50,"externalId":"dup-1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`
	c.do("POST", "/api/pix/cash-out", cashOut)
	c.do("POST", "/api/pix/cash-out", cashOut)     // state.external-id-duplicate
	c.do("GET", "/api/med", "", "Authorization: ") // req.authorization-missing; 404 from the fake: resp.status-allowed
	s.Quiesce()

	var all proxy.Report
	a := c.do("GET", proxy.FindingsPath, "")
	if err := json.Unmarshal(a.Body, &all); err != nil || a.Status != 200 {
		t.Fatalf("GET %s: %d %v %s", proxy.FindingsPath, a.Status, err, a.Body)
	}
	if all.Exchanges != 3 || all.Counts.State != 1 || all.Counts.Request != 1 || all.Counts.Response == 0 || len(all.Rules) != len(contract.Rules()) {
		t.Fatalf("report: %d exchanges, counts %+v, %d rules", all.Exchanges, all.Counts, len(all.Rules))
	}
	var state proxy.Report
	_ = json.Unmarshal(c.do("GET", proxy.FindingsPath+"?kind=state", "").Body, &state)
	if len(state.Findings) != 1 || state.Findings[0].Rule != "state.external-id-duplicate" || state.Findings[0].Exchange != 2 {
		t.Fatalf("?kind=state: %+v", state.Findings)
	}
	var later proxy.Report
	_ = json.Unmarshal(c.do("GET", proxy.FindingsPath+"?since=2", "").Body, &later)
	for _, f := range later.Findings {
		if f.Exchange <= 2 {
			t.Errorf("?since=2 returned a finding of exchange %d", f.Exchange)
		}
	}
	if b := c.do("POST", proxy.FindingsPath, "{}"); b.Status != 405 {
		t.Errorf("POST %s: %d", proxy.FindingsPath, b.Status)
	}
	if b := c.do("GET", "/_proxy/nothing", ""); b.Status != 404 {
		t.Errorf("GET /_proxy/nothing: %d", b.Status)
	}

	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var fromFile proxy.Report
	if err := json.Unmarshal(js.Bytes(), &fromFile); err != nil || len(fromFile.Findings) != len(all.Findings) {
		t.Fatalf("JSON report: %v, %d findings, want %d", err, len(fromFile.Findings), len(all.Findings))
	}

	var xb bytes.Buffer
	if err := s.WriteJUnit(&xb); err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(xb.Bytes(), &suites); err != nil {
		t.Fatalf("JUnit: %v\n%s", err, xb.String())
	}
	suite := suites.Suites[0]
	failed := map[string]bool{}
	for _, tc := range suite.Cases {
		if tc.Failure != nil {
			failed[strings.SplitN(tc.Name, ":", 2)[0]] = true
		}
	}
	if suite.Tests != len(contract.Rules()) || suite.Failures != len(failed) || !failed["state.external-id-duplicate"] || !failed["req.authorization-missing"] {
		t.Fatalf("JUnit: %d cases, %d failures %v", suite.Tests, suite.Failures, failed)
	}

	var sum bytes.Buffer
	s.WriteSummary(&sum)
	if !strings.Contains(sum.String(), "3 exchanges") || !strings.Contains(sum.String(), "state.external-id-duplicate") {
		t.Errorf("summary:\n%s", sum.String())
	}
	if !strings.Contains(log.String(), "[state] state.external-id-duplicate #2 POST /api/pix/cash-out") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestProxy_FindingsBounded: the store keeps the latest MaxFindings in full
// and counts them all.
func TestProxy_FindingsBounded(t *testing.T) {
	up := httptest.NewServer(&fake{now: fakeClock})
	defer up.Close()
	u, findings, stop, err := proxy.Start(up.URL, proxy.Options{MaxFindings: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	for range 20 {
		c.do("GET", "/api/med", "", "Authorization: ") // one request finding and one response finding each
	}
	fs := findings()
	if len(fs) != 5 || fs[len(fs)-1].Exchange != 20 {
		t.Fatalf("%d findings kept, the last of exchange %d; want 5, the last of exchange 20", len(fs), fs[len(fs)-1].Exchange)
	}
}
