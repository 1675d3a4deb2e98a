package conformance_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// specFile is the contract, beside the repository (CI clones ../shared next
// to it).
const specFile = "../../shared/spec/pix-payment-service.md"

// coverageDoc is the coverage of the spec tree, without running it: which
// checks would check each item. Regenerate with UPDATE_GOLDEN=1.
const coverageDoc = "../docs/conformance-coverage.md"

// previewReports returns the suite's checks as reports of passed specs: the
// coverage a run that passes everything would have.
func previewReports(t *testing.T) []types.SpecReport {
	t.Helper()
	var out []types.SpecReport
	for _, s := range ginkgo.PreviewSpecs(framework.SuiteDescription).SpecReports {
		if s.LeafNodeType.Is(types.NodeTypeIt) {
			s.State = types.SpecStatePassed
			out = append(out, s)
		}
	}
	return out
}

// TestCoverage_EveryItemHasChecks: every item of the specification's tables
// is matched by at least one check, or says why not.
func TestCoverage_EveryItemHasChecks(t *testing.T) {
	if config.Target != "" {
		t.Skip("a development check; runs without -target")
	}
	rep := framework.BuildCoverage(previewReports(t), "")
	for _, it := range rep.Items {
		if it.Status != framework.StatusChecked {
			t.Errorf("%s %q: %s (%s)", it.Kind, it.Name, it.Status, it.Reason)
		}
	}
}

// TestRouteProbes_EveryProbeGuardsChecks: every route probe's pattern
// compiles (framework.Pattern compiles on first use) and matches at least one
// check of the spec tree; a probe that matches none would leave its route's
// checks running on a target that lacks the route.
func TestRouteProbes_EveryProbeGuardsChecks(t *testing.T) {
	reports := previewReports(t)
	probes := framework.RouteProbes()
	if len(probes) == 0 {
		t.Fatal("no route probe is registered")
	}
	for _, p := range probes {
		if !slices.ContainsFunc(reports, func(r types.SpecReport) bool { return p.Checks.MatchString(r.FullText()) }) {
			t.Errorf("the probe of %s matches no check", p.Route)
		}
	}
}

// TestCoverage_Golden keeps docs/conformance-coverage.md equal to the spec
// tree's coverage.
func TestCoverage_Golden(t *testing.T) {
	if config.Target != "" {
		t.Skip("a development check; runs without -target")
	}
	var b bytes.Buffer
	if err := framework.BuildCoverage(previewReports(t), "").WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	got := strings.Replace(b.String(), "# Conformance coverage\n\n", "# Conformance coverage\n\n"+
		"Generated from the suite's spec tree (`UPDATE_GOLDEN=1 go test ./conformance/`): for every route, error code and\n"+
		"state transition of the specification's tables, the checks that check it. A run prints the same report with\n"+
		"each item's outcome against its target and, with `-coverage-report PREFIX`, writes it as PREFIX.json and PREFIX.md.\n\n", 1)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(coverageDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(coverageDoc)
	if err != nil {
		t.Fatalf("%v (run UPDATE_GOLDEN=1 go test ./conformance/)", err)
	}
	if string(want) != got {
		t.Fatalf("%s is out of date; run UPDATE_GOLDEN=1 go test ./conformance/\n%s", coverageDoc, lineDiff(string(want), got))
	}
}

// TestCoverage_MatchesSpecification reads the contract and checks that every
// route heading, every row of the error tables and every row of the state
// tables has its coverage item.
func TestCoverage_MatchesSpecification(t *testing.T) {
	if config.Target != "" {
		t.Skip("a development check; runs without -target")
	}
	raw, err := os.ReadFile(specFile)
	if err != nil {
		t.Skipf("the specification is not beside the repository (%v)", err)
	}
	names := map[string][]string{}
	for _, it := range framework.CoverageItems() {
		names[it.Kind] = append(names[it.Kind], it.Name)
	}
	has := func(kind, prefix string) bool {
		return slices.ContainsFunc(names[kind], func(n string) bool { return strings.HasPrefix(n, prefix) })
	}
	var want []string
	need := func(kind, prefix string) {
		want = append(want, kind+": "+prefix)
		if !has(kind, prefix) {
			t.Errorf("the specification lists %s %q; conformance/coverage.go has no item for it", kind, prefix)
		}
	}

	section, sub, table := "", "", ""
	sc := bufio.NewScanner(bytes.NewReader(raw))
	heading := regexp.MustCompile(`^### (GET|POST|PUT|PATCH|DELETE) (\S+)`)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section, sub, table = strings.TrimPrefix(line, "## "), "", ""
			continue
		case strings.HasPrefix(line, "### "):
			sub, table = strings.TrimPrefix(line, "### "), ""
			if section == "Endpoints" {
				if m := heading.FindStringSubmatch(line); m != nil {
					need(framework.KindRoute, m[1]+" "+m[2])
				}
			}
			continue
		case strings.HasPrefix(line, "ErrorCode values carried by the webhook"):
			table = "webhook"
			continue
		case !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if slices.Contains([]string{"code", "Status", "Route", "State", "errorCode"}, cells[0]) {
			continue // a header row
		}
		switch {
		case table == "webhook":
			need(framework.KindErrorCode, cells[0])
		case section == "Errors" && sub == "Token endpoint codes":
			need(framework.KindErrorCode, cells[1]+" "+cells[0])
		case section == "Errors" && sub == "Cash-out and cash-in codes":
			need(framework.KindErrorCode, cells[0]+" "+cells[1])
		case section == "Errors" && sub == "Central Bank-compatible routes":
			for _, status := range strings.Split(cells[1], ",") {
				for _, st := range strings.Split(status, "/") {
					need(framework.KindErrorCode, cells[0]+" "+strings.TrimSpace(st))
				}
			}
		case section == "States and transitions":
			from := cells[0]
			need(framework.KindTransition, from+" → "+cells[3])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 50 {
		t.Fatalf("read only %d items from %s; has its layout changed?\n%s", len(want), filepath.Base(specFile), strings.Join(want, "\n"))
	}
}
