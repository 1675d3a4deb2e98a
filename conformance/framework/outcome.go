package framework

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

// SkipNotSelected is the reason recorded for a check the label filter, the
// focus or the skip expression left out of the run.
const SkipNotSelected = "not selected by the label filter, focus or skip"

// setupFail records why the run could not start and fails BeforeSuite with
// that message alone (no Gomega dump): the run's one readable error.
func setupFail(format string, args ...any) {
	state.setupFailure = fmt.Sprintf(format, args...)
	ginkgo.Fail(state.setupFailure, 1)
}

// authSummary says how the run authenticates, for the report.
func (c Config) authSummary(controlPlane bool) string {
	s := "-auth " + c.Auth
	switch c.Auth {
	case AuthTokenRoute:
		s += " (POST " + c.TokenPath + ")"
	case AuthTokenCommand:
		s += fmt.Sprintf(" (%q)", c.TokenCommand)
	}
	if controlPlane {
		s += "; each check's own sandbox account takes its token from POST " + c.TokenPath
	}
	return s
}

// CheckResult is the outcome of one check in a run.
type CheckResult struct {
	// Name is the check's full text.
	Name string `json:"name"`
	// Resource is the check's res: label without the prefix, or "".
	Resource string `json:"resource,omitempty"`
	// Labels are the check's labels.
	Labels []string `json:"labels"`
	// State is passed, failed, skipped, absent or not selected.
	State string `json:"state"`
	// Reason is the failure message or the reason for the skip.
	Reason string `json:"reason,omitempty"`
}

// States of a CheckResult.
const (
	CheckPassed      = "passed"
	CheckFailed      = "failed"
	CheckSkipped     = "skipped"
	CheckAbsent      = "absent"
	CheckNotSelected = "not selected"
)

// RunResult is the machine-readable result of a run (-json).
type RunResult struct {
	// Target is the base URL of the target.
	Target string `json:"target"`
	// SetupFailure is why the run could not start, or "".
	SetupFailure string `json:"setupFailure,omitempty"`
	// Ran, Passed, Failed, Skipped, Absent and NotSelected count the checks.
	Ran         int `json:"ran"`
	Passed      int `json:"passed"`
	Failed      int `json:"failed"`
	Skipped     int `json:"skipped"`
	Absent      int `json:"absent"`
	NotSelected int `json:"notSelected"`
	// SkippedByReason counts the skipped checks per reason.
	SkippedByReason map[string]int `json:"skippedByReason,omitempty"`
	// Routes is what the route probes found.
	Routes []RoutePresence `json:"routes"`
	// Checks lists every check.
	Checks []CheckResult `json:"checks"`
	// Coverage is the coverage of the specification's tables.
	Coverage CoverageReport `json:"coverage"`
	// SuiteFailure is a failure outside the checks (the suite's setup or its
	// final invariants check), or "".
	SuiteFailure string `json:"suiteFailure,omitempty"`
}

// result builds the run's result from the captured report.
func (s *suiteState) result() RunResult {
	var report ginkgo.Report
	if s.report != nil {
		report = *s.report
	}
	return BuildResult(report, s.config.Target, s.setupFailure)
}

// BuildResult builds the result of a run from its report. setupFailure, when
// not empty, is why the run could not start.
func BuildResult(report types.Report, target, setupFailure string) RunResult {
	res := RunResult{Target: target, SetupFailure: setupFailure, SkippedByReason: map[string]int{}, Routes: RoutesFound()}
	for _, s := range report.SpecReports {
		if !s.LeafNodeType.Is(types.NodeTypeIt) {
			if s.State.Is(types.SpecStateFailureStates) && res.SuiteFailure == "" {
				res.SuiteFailure = fmt.Sprintf("%s: %s", s.LeafNodeType, s.Failure.Message)
			}
			continue
		}
		cr := CheckResult{Name: s.FullText(), Labels: s.Labels(), Resource: resourceOf(s.Labels())}
		msg := strings.TrimSpace(s.Failure.Message)
		switch {
		case s.State.Is(types.SpecStatePassed):
			cr.State = CheckPassed
			res.Ran++
			res.Passed++
		case s.State.Is(types.SpecStateFailureStates):
			cr.State, cr.Reason = CheckFailed, msg
			res.Ran++
			res.Failed++
		case strings.HasPrefix(msg, SkipRouteAbsent):
			cr.State, cr.Reason = CheckAbsent, msg
			res.Absent++
		case msg == "" && setupFailure == "":
			cr.State, cr.Reason = CheckNotSelected, SkipNotSelected
			res.NotSelected++
		default:
			if msg == "" {
				msg = "setup failed: " + setupFailure
			}
			cr.State, cr.Reason = CheckSkipped, msg
			res.Skipped++
			res.SkippedByReason[msg]++
		}
		res.Checks = append(res.Checks, cr)
	}
	res.Coverage = BuildCoverage(report.SpecReports, target)
	if setupFailure != "" {
		res.Coverage.notRun("setup failed: " + setupFailure)
	}
	return res
}

// resourceOf returns the resource of the last res: label among labels (the
// innermost, so that a 401 check of PUT /cob/{txid} under the auth container
// is a cob check), or "".
func resourceOf(labels []string) string {
	res := ""
	for _, l := range labels {
		if r, ok := strings.CutPrefix(l, "res:"); ok {
			res = r
		}
	}
	return res
}

// OK reports whether the run passes under c: it started, at least one
// check ran (unless AllowEmpty), no check failed, nothing failed outside the
// checks, and no item of the specification's tables that the run selected
// ended absent or failed.
func (r RunResult) OK(c Config) bool {
	return len(r.problems(c)) == 0
}

func (r RunResult) problems(c Config) []string {
	var out []string
	if r.SetupFailure != "" {
		out = append(out, "the run could not start: "+r.SetupFailure)
		return out
	}
	if r.Ran == 0 && !c.AllowEmpty {
		out = append(out, "no check ran (pass -allow-empty when that is expected)")
	}
	if r.Failed > 0 {
		out = append(out, fmt.Sprintf("%d checks failed", r.Failed))
	}
	if r.SuiteFailure != "" {
		out = append(out, r.SuiteFailure)
	}
	var absent []string
	for _, it := range r.Coverage.Items {
		if it.Status == StatusAbsent {
			absent = append(absent, it.Kind+" "+it.Name)
		}
	}
	if len(absent) > 0 {
		out = append(out, fmt.Sprintf("%d items of the specification's tables are absent on the target", len(absent)))
	}
	return out
}

// Summary is the end-of-run summary: the counts, the skip reasons, the absent
// routes, and why the run fails.
func (r RunResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Conformance run against %s: ran %d, passed %d, failed %d, skipped %d, absent %d, not selected %d\n",
		r.Target, r.Ran, r.Passed, r.Failed, r.Skipped, r.Absent, r.NotSelected)
	if r.SetupFailure != "" {
		fmt.Fprintf(&b, "  setup failed: %s\n", r.SetupFailure)
	}
	reasons := make([]string, 0, len(r.SkippedByReason))
	for k := range r.SkippedByReason {
		reasons = append(reasons, k)
	}
	slices.Sort(reasons)
	for _, k := range reasons {
		fmt.Fprintf(&b, "  skipped %d: %s\n", r.SkippedByReason[k], oneLine(k, 240))
	}
	for _, rp := range r.Routes {
		if !rp.Present {
			fmt.Fprintf(&b, "  route absent: %s (%s)\n", rp.Route, rp.Evidence)
		}
	}
	return b.String()
}

// writeReports writes the run's JUnit and JSON reports where the
// configuration says.
func writeReports(report types.Report, c Config, res RunResult) {
	if c.JUnitReport != "" {
		if err := writeJUnit(report, c.JUnitReport); err != nil {
			fmt.Fprintf(os.Stderr, "conformance: writing the JUnit report: %v\n", err)
		}
	}
	if c.JSONReport != "" {
		if err := writeJSON(c.JSONReport, res); err != nil {
			fmt.Fprintf(os.Stderr, "conformance: writing the JSON result: %v\n", err)
		}
	}
}

// writeJUnit writes Ginkgo's JUnit report with each test case's classname set
// to the resource its check exercises ("res:cob" → "cob"), or the suite's
// description for the suite's own nodes.
func writeJUnit(report types.Report, path string) error {
	if err := reporters.GenerateJUnitReportWithConfig(report, path, reporters.JunitReportConfig{}); err != nil {
		return err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc reporters.JUnitTestSuites
	if err := xml.Unmarshal(raw, &doc); err != nil {
		return err
	}
	for i := range doc.TestSuites {
		cases := doc.TestSuites[i].TestCases
		if len(cases) != len(report.SpecReports) {
			return fmt.Errorf("JUnit report: %d test cases for %d specs", len(cases), len(report.SpecReports))
		}
		for j := range cases {
			if res := resourceOf(report.SpecReports[j].Labels()); res != "" {
				cases[j].Classname = res
			}
		}
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(out, '\n')...), 0o644)
}

func writeJSON(path string, res RunResult) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ListChecks returns the full text and labels of every check that a run with
// c would select (label filter, focus, skip), without running any. The specs
// must be registered (package conformance imported).
func ListChecks(c Config) ([]string, error) {
	match := func([]string) bool { return true }
	if c.LabelFilter != "" {
		f, err := types.ParseLabelFilter(c.LabelFilter)
		if err != nil {
			return nil, fmt.Errorf("-labels %q: %w", c.LabelFilter, err)
		}
		match = f
	}
	var focus, skip *regexp.Regexp
	var err error
	if c.Focus != "" {
		if focus, err = regexp.Compile(c.Focus); err != nil {
			return nil, fmt.Errorf("-focus: %w", err)
		}
	}
	if c.Skip != "" {
		if skip, err = regexp.Compile(c.Skip); err != nil {
			return nil, fmt.Errorf("-skip: %w", err)
		}
	}
	var out []string
	for _, s := range ginkgo.PreviewSpecs(SuiteDescription).SpecReports {
		if !s.LeafNodeType.Is(types.NodeTypeIt) || !match(s.Labels()) {
			continue
		}
		text := s.FullText()
		if (focus != nil && !focus.MatchString(text)) || (skip != nil && skip.MatchString(text)) {
			continue
		}
		labels := slices.Clone(s.Labels())
		slices.Sort(labels)
		out = append(out, fmt.Sprintf("%s [%s]", text, strings.Join(labels, ", ")))
	}
	slices.Sort(out)
	return out, nil
}
