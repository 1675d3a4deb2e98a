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
	case AuthHeader:
		s += " (credential header " + c.headerNames() + ", value not shown)"
	}
	if c.Auth != AuthHeader && len(c.Headers) > 0 {
		s += "; extra headers on every request: " + c.headerNames()
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
	// State is passed, failed, control refused, skipped, absent, not
	// selected or not run.
	State string `json:"state"`
	// Reason is the failure message, the refused control (request and
	// answer) or the reason for the skip.
	Reason string `json:"reason,omitempty"`
}

// States of a CheckResult.
const (
	CheckPassed = "passed"
	CheckFailed = "failed"
	// CheckControlRefused is the state of a check whose control (the valid
	// variant of the request it refuses) was refused: the rule it guards
	// was not judged, and the target deviates on the valid request.
	CheckControlRefused = "control refused"
	CheckSkipped        = "skipped"
	CheckAbsent         = "absent"
	CheckNotSelected    = "not selected"
	// CheckNotRun is the state of every check of a run whose setup failed:
	// the check was neither run nor judged.
	CheckNotRun = "not run"
)

// notRunReason is the reason recorded for every check of a run whose setup
// failed at step (SetupStepAuth, or "" for the other steps).
func notRunReason(step string) string {
	if step == "" {
		return "not run: setup failed"
	}
	return "not run: " + step + " setup failed"
}

// RunResult is the machine-readable result of a run (-json).
type RunResult struct {
	// Target is the base URL of the target.
	Target string `json:"target"`
	// SetupFailure is why the run could not start, or "".
	SetupFailure string `json:"setupFailure,omitempty"`
	// SetupStep is the setup step that failed: SetupStepAuth when the
	// authentication gate did, "" for the other steps or when setup passed.
	SetupStep string `json:"setupStep,omitempty"`
	// Ran, Passed, Failed, ControlRefused, Skipped, Absent, NotSelected and
	// NotRun count the checks; Ran is Passed + Failed + ControlRefused; a
	// check not run (the setup failed) is none of the others.
	Ran            int `json:"ran"`
	Passed         int `json:"passed"`
	Failed         int `json:"failed"`
	ControlRefused int `json:"controlRefused"`
	Skipped        int `json:"skipped"`
	Absent         int `json:"absent"`
	NotSelected    int `json:"notSelected"`
	NotRun         int `json:"notRun,omitempty"`
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
	// Seed is the seed the checks were shuffled with (--seed repeats the
	// order).
	Seed int64 `json:"seed,omitempty"`
	// Auth says how the run authenticated (mode, token path, header names,
	// never a secret); TLSClientCertificate is the subject of the client
	// certificate presented in TLS handshakes (-tls-client-cert), or "".
	Auth                 string `json:"auth,omitempty"`
	TLSClientCertificate string `json:"tlsClientCertificate,omitempty"`
	// Labels is the label filter that selected the checks ("" for all).
	Labels string `json:"labels,omitempty"`
	// SuiteVersion is the suite's build (SuiteVersion); TargetVersion what
	// the target says of its own, or "" when it says nothing (targetVersion).
	SuiteVersion  string `json:"suiteVersion,omitempty"`
	TargetVersion string `json:"targetVersion,omitempty"`
}

// fullReport is the run's captured report; when the setup failed, with the
// checks the run had selected, none of which ran.
func (s *suiteState) fullReport() ginkgo.Report {
	var report ginkgo.Report
	if s.report != nil {
		report = *s.report
	}
	if s.setupFailure != "" {
		report = withPlanned(report, s.planned)
	}
	return report
}

// result builds the run's result from the captured report.
func (s *suiteState) result() RunResult {
	report := s.fullReport()
	res := BuildResult(report, s.config.Target, s.setupStep, s.setupFailure)
	res.Auth, res.TLSClientCertificate = s.auth, s.tlsSubject
	res.Labels = report.SuiteConfig.LabelFilter
	res.SuiteVersion, res.TargetVersion = s.suiteVersion, s.targetVersion
	return res
}

// BuildResult builds the result of a run from its report. setupFailure, when
// not empty, is why the run could not start and setupStep the step that
// failed (SetupStepAuth or ""): every check is then not run.
func BuildResult(report types.Report, target, setupStep, setupFailure string) RunResult {
	res := RunResult{Target: target, SetupFailure: setupFailure, SkippedByReason: map[string]int{}, Routes: RoutesFound(), Seed: report.SuiteConfig.RandomSeed}
	if setupFailure != "" {
		res.SetupStep = setupStep
	}
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
		case strings.HasPrefix(msg, ControlRefusedPrefix):
			cr.State, cr.Reason = CheckControlRefused, msg
			res.Ran++
			res.ControlRefused++
		case strings.HasPrefix(msg, SkipRouteAbsent):
			cr.State, cr.Reason = CheckAbsent, msg
			res.Absent++
		case msg == "" && setupFailure == "":
			cr.State, cr.Reason = CheckNotSelected, SkipNotSelected
			res.NotSelected++
		case msg == "":
			cr.State, cr.Reason = CheckNotRun, notRunReason(res.SetupStep)
			res.NotRun++
		default:
			cr.State, cr.Reason = CheckSkipped, msg
			res.Skipped++
			res.SkippedByReason[msg]++
		}
		res.Checks = append(res.Checks, cr)
	}
	res.Coverage = BuildCoverage(report.SpecReports, target)
	if setupFailure != "" {
		res.Coverage.notRun(res.setupLine())
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

// setupLine says why the run could not start: the setup failure, which
// names its step itself ("auth setup failed: …"), or "setup failed: …".
func (r RunResult) setupLine() string {
	if r.SetupStep != "" {
		return r.SetupFailure
	}
	return "setup failed: " + r.SetupFailure
}

// OK reports whether the run passes under c: it started, at least one
// check ran (unless AllowEmpty), no check failed, no check's control was
// refused (the target deviates on a valid request), nothing failed outside the
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
	if r.ControlRefused > 0 {
		out = append(out, fmt.Sprintf("%d checks ended control refused: the target refused a valid request a check sends as its control, so it deviates there (the rules those checks guard were not judged)", r.ControlRefused))
	}
	if r.SuiteFailure != "" {
		out = append(out, r.SuiteFailure)
	}
	kinds, counts := r.Coverage.Counts()
	absent, byKind := 0, []string{}
	for _, k := range kinds {
		if n := counts[k][StatusAbsent]; n > 0 {
			absent += n
			byKind = append(byKind, fmt.Sprintf("%d %ss", n, k))
		}
	}
	if absent > 0 {
		out = append(out, fmt.Sprintf("%d items of the specification's tables are absent on the target (%s)", absent, strings.Join(byKind, ", ")))
	}
	return out
}

// Summary is the end-of-run summary: the counts, the refused controls, the
// skip reasons and the absent routes.
func (r RunResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Conformance run against %s: checks ran %d, passed %d, failed %d, control refused %d, skipped %d, absent %d, not selected %d",
		r.Target, r.Ran, r.Passed, r.Failed, r.ControlRefused, r.Skipped, r.Absent, r.NotSelected)
	if r.NotRun > 0 {
		fmt.Fprintf(&b, ", not run %d (%s)", r.NotRun, strings.TrimPrefix(notRunReason(r.SetupStep), "not run: "))
	}
	b.WriteString("\n")
	if r.SetupFailure != "" {
		fmt.Fprintf(&b, "  %s\n", r.setupLine())
	}
	for _, c := range r.Checks {
		if c.State == CheckControlRefused {
			fmt.Fprintf(&b, "  control refused: %s: %s\n", c.Name, oneLine(strings.TrimPrefix(c.Reason, ControlRefusedPrefix), 480))
		}
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
		notRun := ""
		if res.SetupFailure != "" {
			notRun = notRunReason(res.SetupStep)
		}
		if err := writeJUnit(report, c.JUnitReport, notRun); err != nil {
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
// description for the suite's own nodes. notRun, when not empty, is the
// skip message of the checks that a failed setup kept from running
// (Ginkgo's own is a bare "skipped"). A check whose control was refused is a
// failure of type "control refused" whose message starts "control refused:",
// not a skip.
func writeJUnit(report types.Report, path, notRun string) error {
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
			sr := report.SpecReports[j]
			if res := resourceOf(sr.Labels()); res != "" {
				cases[j].Classname = res
			}
			msg := strings.TrimSpace(sr.Failure.Message)
			if notRun != "" && cases[j].Skipped != nil && sr.LeafNodeType.Is(types.NodeTypeIt) && msg == "" {
				cases[j].Skipped.Message = notRun
			}
			if cases[j].Skipped != nil && sr.LeafNodeType.Is(types.NodeTypeIt) && strings.HasPrefix(msg, ControlRefusedPrefix) {
				// A refused control is no skip: the target deviates on a
				// valid request, so the case is a failure of its own type.
				cases[j].Skipped = nil
				cases[j].Failure = &reporters.JUnitFailure{Message: msg, Type: CheckControlRefused, Description: msg}
				doc.TestSuites[i].Skipped--
				doc.TestSuites[i].Failures++
				doc.Disabled--
				doc.Failures++
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
	specs, err := selectedChecks(c.LabelFilter, nonEmpty(c.Focus), nonEmpty(c.Skip))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range specs {
		text := s.FullText()
		labels := slices.Clone(s.Labels())
		slices.Sort(labels)
		out = append(out, fmt.Sprintf("%s [%s]", text, strings.Join(labels, ", ")))
	}
	slices.Sort(out)
	return out, nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// selectedChecks previews the registered checks (without running any) and
// returns those a run would select: their labels match labelFilter (when
// not empty), their full text matches one of focus (when any) and none of
// skip. It must be called before ginkgo.RunSpecs, which builds the tree once.
func selectedChecks(labelFilter string, focus, skip []string) ([]types.SpecReport, error) {
	match := func([]string) bool { return true }
	if labelFilter != "" {
		f, err := types.ParseLabelFilter(labelFilter)
		if err != nil {
			return nil, fmt.Errorf("-labels %q: %w", labelFilter, err)
		}
		match = f
	}
	compile := func(flag string, exprs []string) ([]*regexp.Regexp, error) {
		var out []*regexp.Regexp
		for _, e := range exprs {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", flag, err)
			}
			out = append(out, re)
		}
		return out, nil
	}
	focusREs, err := compile("-focus", focus)
	if err != nil {
		return nil, err
	}
	skipREs, err := compile("-skip", skip)
	if err != nil {
		return nil, err
	}
	matchesAny := func(res []*regexp.Regexp, text string) bool {
		return slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(text) })
	}
	var out []types.SpecReport
	for _, s := range ginkgo.PreviewSpecs(SuiteDescription).SpecReports {
		if !s.LeafNodeType.Is(types.NodeTypeIt) || !match(s.Labels()) {
			continue
		}
		text := s.FullText()
		if len(focusREs) > 0 && !matchesAny(focusREs, text) || matchesAny(skipREs, text) {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// withPlanned returns report with the checks the run had selected (planned)
// added as skipped when the report holds none: Ginkgo reports no check of a
// run whose BeforeSuite failed, and every one of them is then not run.
func withPlanned(report types.Report, planned []types.SpecReport) types.Report {
	for _, s := range report.SpecReports {
		if s.LeafNodeType.Is(types.NodeTypeIt) {
			return report
		}
	}
	specs := slices.Clone(report.SpecReports)
	for _, p := range planned {
		specs = append(specs, types.SpecReport{
			ContainerHierarchyTexts:  p.ContainerHierarchyTexts,
			ContainerHierarchyLabels: p.ContainerHierarchyLabels,
			LeafNodeType:             p.LeafNodeType,
			LeafNodeText:             p.LeafNodeText,
			LeafNodeLabels:           p.LeafNodeLabels,
			LeafNodeLocation:         p.LeafNodeLocation,
			State:                    types.SpecStateSkipped,
		})
	}
	report.SpecReports = specs
	return report
}
