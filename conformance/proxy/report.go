package proxy

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
	"github.com/pixsandbox/pixsandbox/conformance/proxy/judging"
)

// Summary is the state of a proxy run: what passed through and what was found.
type Summary struct {
	Upstream string    `json:"upstream"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended"`
	// Exchanges passed through: on a route of the contract (judged) or
	// elsewhere (forwarded without rules), and those the upstream did not
	// answer.
	Exchanges   int64  `json:"exchanges"`
	Contract    int64  `json:"contractExchanges"`
	Other       int64  `json:"otherExchanges"`
	Unreachable int64  `json:"unreachable"`
	Counts      Counts `json:"counts"`
	// Model is how many entries each window of the state model holds, and
	// Bounds what bounds them.
	Model  map[string]int `json:"model"`
	Bounds state.Bounds   `json:"bounds"`
	// QuietAccounts: the balance rule was on; BalanceJudged counts the
	// balance reads it compared with an earlier one.
	QuietAccounts bool `json:"quietAccounts"`
	BalanceJudged int  `json:"balanceReadsJudged"`
	// Judging is where the exchanges were judged: "inline" (in the proxy's
	// process) or "process" (Options.JudgeProcess); Unjudged counts those a
	// judging process took and never answered (it ended).
	Judging  string `json:"judging"`
	Unjudged int64  `json:"unjudged,omitempty"`
}

// Summary returns the run's summary now.
func (p *Proxy) Summary() Summary {
	sizes := p.sizes()
	s := Summary{
		Upstream: p.upstream.String(), Started: p.started, Ended: time.Now(), // wall clock: the report's end
		Exchanges: p.stats.exchanges.Load(), Contract: p.stats.contract.Load(), Other: p.stats.other.Load(),
		Unreachable: p.stats.unreachable.Load(), Counts: p.Counts(), Model: sizes.Model, Bounds: p.bounds,
		QuietAccounts: p.quiet, BalanceJudged: sizes.BalanceJudged, Judging: "inline",
	}
	if p.proc != nil {
		s.Judging, s.Unjudged = "process", p.proc.Lost()
	}
	return s
}

// sizes returns the model sizes of the judges that judge: the judging
// process's as it last sent them, unless it broke; else the proxy's own.
func (p *Proxy) sizes() judging.Sizes {
	if p.proc != nil && !p.proc.Broken() {
		if s := p.proc.Sizes(); s != nil {
			return *s
		}
		return judging.Sizes{Model: map[string]int{}}
	}
	return p.judges.Sizes()
}

// Report is the JSON report (--json, GET /_proxy/findings).
type Report struct {
	Summary
	Rules    []RuleCount        `json:"rules"`
	Findings []contract.Finding `json:"findings"`
}

// RuleCount is a rule of the catalogue with the findings it had.
type RuleCount struct {
	contract.Rule
	Findings int `json:"findings"`
}

// Report returns the report now; findings are filtered by keep (nil: all).
func (p *Proxy) Report(keep func(contract.Finding) bool) Report {
	s := p.Summary()
	r := Report{Summary: s, Findings: []contract.Finding{}}
	for _, rule := range contract.Rules() {
		r.Rules = append(r.Rules, RuleCount{Rule: rule, Findings: s.Counts.ByRule[rule.ID]})
	}
	for _, f := range p.Findings() {
		if keep == nil || keep(f) {
			r.Findings = append(r.Findings, f)
		}
	}
	return r
}

// WriteJSON writes the report as indented JSON.
func (p *Proxy) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p.Report(nil))
}

// serveOwn answers the proxy's own routes: GET /_proxy/findings, with
// optional filters kind, rule and since (an exchange number).
func (p *Proxy) serveOwn(w http.ResponseWriter, r *http.Request) {
	writeJSON := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	minimal := func(status int, msg string) {
		writeJSON(status, map[string]any{"statusCode": status, "message": msg, "error": http.StatusText(status)})
	}
	if r.URL.Path != FindingsPath {
		minimal(http.StatusNotFound, "no route "+r.URL.Path+" on the proxy (it serves GET "+FindingsPath+")")
		return
	}
	if r.Method != http.MethodGet {
		minimal(http.StatusMethodNotAllowed, "use GET "+FindingsPath)
		return
	}
	q := r.URL.Query()
	since, err := strconv.ParseUint(q.Get("since"), 10, 64)
	if q.Get("since") != "" && err != nil {
		minimal(http.StatusBadRequest, "since must be an exchange number")
		return
	}
	kind, rule := q.Get("kind"), q.Get("rule")
	writeJSON(http.StatusOK, p.Report(func(f contract.Finding) bool {
		return (kind == "" || string(f.Kind) == kind) && (rule == "" || f.Rule == rule) && f.Exchange > since
	}))
}

// WriteSummary writes the run's summary in a few lines of text.
func (p *Proxy) WriteSummary(w io.Writer) {
	s := p.Summary()
	c := s.Counts
	fmt.Fprintf(w, "pixsandbox proxy: %d exchanges with %s (%d on routes of the contract, %d elsewhere, %d unanswered)\n",
		s.Exchanges, s.Upstream, s.Contract, s.Other, s.Unreachable)
	fmt.Fprintf(w, "findings: %d response, %d state, %d webhook, %d request, %d upstream; %d notices\n", c.Response, c.State, c.Webhook, c.Request, c.Upstream, c.Notices)
	if s.Unjudged > 0 {
		fmt.Fprintf(w, "unjudged: %d exchanges, held by a judging process that ended (the proxy judged the rest itself)\n", s.Unjudged)
	}
	if s.QuietAccounts {
		fmt.Fprintf(w, "quiet accounts: %d balance reads judged against the account's previous read\n", s.BalanceJudged)
	}
	ids := make([]string, 0, len(c.ByRule))
	for id := range c.ByRule {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(w, "  %-32s %d\n", id, c.ByRule[id])
	}
	if c.Dropped > 0 {
		fmt.Fprintf(w, "(%d findings counted but no longer kept in full: the store keeps the latest %d)\n", c.Dropped, len(p.Findings()))
	}
}

// JUnit XML: one test case per rule of the catalogue, failed when the rule
// had findings (notices never fail; they go to the case's output).

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// maxJUnitLines bounds the findings listed per test case.
const maxJUnitLines = 50

// WriteJUnit writes the JUnit XML report.
func (p *Proxy) WriteJUnit(w io.Writer) error {
	s := p.Summary()
	findings := p.Findings()
	suite := junitSuite{Name: "pixsandbox proxy " + s.Upstream, Time: fmt.Sprintf("%.3f", s.Ended.Sub(s.Started).Seconds())}
	for _, rule := range contract.Rules() {
		n := s.Counts.ByRule[rule.ID]
		tc := junitCase{Name: rule.ID + ": " + rule.Summary, ClassName: "proxy." + string(rule.Kind)}
		if n > 0 {
			text := p.ruleLines(rule.ID, findings)
			if rule.Notice {
				tc.SystemOut = text
			} else {
				tc.Failure = &junitFailure{Message: fmt.Sprintf("%d findings (%s)", n, rule.Section), Type: string(rule.Kind), Text: text}
				suite.Failures++
			}
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{suite}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// ruleLines lists a rule's findings kept (at most maxJUnitLines), or its
// first finding when none is kept any more.
func (p *Proxy) ruleLines(id string, findings []contract.Finding) string {
	var lines []string
	for _, f := range findings {
		if f.Rule == id && len(lines) < maxJUnitLines {
			lines = append(lines, Line(f))
		}
	}
	if len(lines) == 0 {
		if f, ok := p.store.firstOf(id); ok {
			lines = append(lines, Line(f))
		}
	}
	return strings.Join(slices.Clip(lines), "\n")
}
