package framework

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
)

func TestBuildResult_CountsAndVerdict(t *testing.T) {
	saved := coverageItems
	t.Cleanup(func() { coverageItems = saved })
	coverageItems = []CoverageItem{
		{Kind: KindRoute, Name: "PUT /cob/{txid}", Checks: mustRE(`^PUT /cob`)},
		{Kind: KindRoute, Name: "GET /api/med", Checks: mustRE(`^GET /api/med`)},
	}
	report := types.Report{SpecReports: []types.SpecReport{
		spec("PUT /cob ok", types.SpecStatePassed, "", "res:cob", "spec"),
		spec("PUT /cob 409", types.SpecStateFailed, "want 409, got 200", "res:cob", "spec"),
		spec("GET /api/med shape", types.SpecStateSkipped, SkipRouteAbsent+"GET /api/med: answered 404 like the unknown route", "res:med"),
		spec("GET /api/med 400", types.SpecStateSkipped, SkipRouteAbsent+"GET /api/med: answered 404 like the unknown route", "res:med"),
		spec("Sandbox clock", types.SpecStateSkipped, SkipNoControlPlane, "sandbox"),
		spec("Filtered", types.SpecStateSkipped, ""),
	}}
	res := BuildResult(report, "http://t", "", "")
	if res.Ran != 2 || res.Passed != 1 || res.Failed != 1 || res.Absent != 2 || res.Skipped != 1 || res.NotSelected != 1 {
		t.Fatalf("counts = %+v", res)
	}
	if res.SkippedByReason[SkipNoControlPlane] != 1 {
		t.Errorf("skipped by reason = %v", res.SkippedByReason)
	}
	if res.Checks[1].Resource != "cob" || res.Checks[2].State != CheckAbsent {
		t.Errorf("checks = %+v", res.Checks)
	}
	if got := res.Coverage.Items[1].Status; got != StatusAbsent {
		t.Errorf("GET /api/med coverage = %q, want absent (never checked)", got)
	}
	probs := strings.Join(res.problems(Config{}), "; ")
	for _, want := range []string{"1 checks failed", "1 items of the specification's tables are absent"} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems = %q, want %q", probs, want)
		}
	}
}

func TestRunResult_EmptyRunFailsUnlessAllowed(t *testing.T) {
	saved := coverageItems
	t.Cleanup(func() { coverageItems = saved })
	coverageItems = nil
	res := BuildResult(types.Report{SpecReports: []types.SpecReport{spec("x", types.SpecStateSkipped, SkipNoControlPlane)}}, "http://t", "", "")
	if res.OK(Config{}) {
		t.Fatal("a run in which nothing ran passes")
	}
	if !res.OK(Config{AllowEmpty: true}) {
		t.Fatalf("with AllowEmpty: problems %q", res.problems(Config{AllowEmpty: true}))
	}
	if !strings.Contains(res.Summary(), "ran 0, passed 0, failed 0, control refused 0, skipped 1") {
		t.Errorf("summary = %q", res.Summary())
	}
}

func TestBuildResult_SetupFailure(t *testing.T) {
	saved := coverageItems
	t.Cleanup(func() { coverageItems = saved })
	coverageItems = []CoverageItem{{Kind: KindRoute, Name: "GET /api/med", Checks: mustRE(`^GET /api/med`)}}
	res := BuildResult(types.Report{}, "http://t", "", "target does not answer HTTP")
	if res.OK(Config{AllowEmpty: true}) {
		t.Fatal("a run whose setup failed passes")
	}
	if it := res.Coverage.Items[0]; it.Status != StatusNotRun || !strings.Contains(it.Reason, "setup failed") {
		t.Fatalf("coverage item = %+v, want not run: setup failed", it)
	}
	if s := res.Coverage.Summary(); strings.Count(s, "setup failed") != 1 {
		t.Fatalf("the coverage summary repeats the setup failure:\n%s", s)
	}
}

// A run stopped by its authentication gate reports one setup error and
// every check not run (neither failed nor skipped), in the result, the
// summary, the coverage and the JUnit report.
func TestBuildResult_AuthSetupFailure(t *testing.T) {
	saved := coverageItems
	t.Cleanup(func() { coverageItems = saved })
	coverageItems = []CoverageItem{{Kind: KindRoute, Name: "PUT /cob/{txid}", Checks: mustRE(`^PUT /cob`)}}
	failure := "auth setup failed: -auth token-route: POST /api/auth/token answered 404"
	report := types.Report{SuiteDescription: SuiteDescription, SpecReports: []types.SpecReport{
		{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStateFailed, Failure: types.Failure{Message: failure}},
		spec("PUT /cob ok", types.SpecStateSkipped, "", "res:cob", "spec"),
		spec("PUT /cob 409", types.SpecStateSkipped, "", "res:cob", "spec"),
	}}
	res := BuildResult(report, "http://t", SetupStepAuth, failure)
	if res.Failed != 0 || res.Skipped != 0 || res.NotSelected != 0 || res.NotRun != 2 || res.SetupStep != SetupStepAuth {
		t.Fatalf("counts = %+v", res)
	}
	for _, c := range res.Checks {
		if c.State != CheckNotRun || c.Reason != "not run: auth setup failed" {
			t.Errorf("check %q: %s (%s), want not run: auth setup failed", c.Name, c.State, c.Reason)
		}
	}
	if res.OK(Config{AllowEmpty: true}) {
		t.Fatal("a run whose authentication gate failed passes")
	}
	sum := res.Summary()
	for _, want := range []string{"failed 0, control refused 0, skipped 0", "not run 2 (auth setup failed)", "\n  " + failure + "\n"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}
	if strings.Count(sum, "auth setup failed: ") != 1 {
		t.Errorf("the summary repeats the setup failure:\n%s", sum)
	}
	if it := res.Coverage.Items[0]; it.Status != StatusNotRun || it.Reason != failure {
		t.Errorf("coverage item = %+v, want not run: %s", it, failure)
	}

	doc := junitOf(t, report, notRunReason(res.SetupStep))
	if doc.Failures != 1 {
		t.Errorf("JUnit failures = %d, want 1 (the setup)", doc.Failures)
	}
	for _, c := range doc.TestSuites[0].TestCases[1:] {
		if c.Skipped == nil || c.Skipped.Message != "not run: auth setup failed" {
			t.Errorf("JUnit case %q: skipped %+v, want not run: auth setup failed", c.Name, c.Skipped)
		}
	}
}

// The JUnit report names each test case's class after its check's innermost
// res: label; the suite's own nodes keep the suite's name.
func TestWriteJUnit_ClassnamePerResource(t *testing.T) {
	report := types.Report{SuiteDescription: SuiteDescription, SpecReports: []types.SpecReport{
		{LeafNodeType: types.NodeTypeBeforeSuite, State: types.SpecStatePassed},
		spec("PUT /cob/{txid} 401", types.SpecStatePassed, "", "res:auth", "res:cob", "spec"),
		spec("GET /api/med 400", types.SpecStateFailed, "want 400", "res:med"),
		spec("no resource", types.SpecStateSkipped, "why"),
	}}
	doc := junitOf(t, report, "")
	var got []string
	for _, c := range doc.TestSuites[0].TestCases {
		got = append(got, c.Classname)
	}
	want := []string{SuiteDescription, "cob", "med", SuiteDescription}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("classnames = %q, want %q", got, want)
	}
	if doc.Failures != 1 {
		t.Errorf("failures = %d, want 1", doc.Failures)
	}
}

// junitOf writes report as JUnit (notRun the reason of checks not run) and
// reads it back.
func junitOf(t *testing.T, report types.Report, notRun string) reporters.JUnitTestSuites {
	t.Helper()
	path := filepath.Join(t.TempDir(), "junit.xml")
	if err := writeJUnit(report, path, notRun); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc reporters.JUnitTestSuites
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
