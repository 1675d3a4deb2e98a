package framework

import (
	"regexp"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

func spec(text string, state types.SpecState, msg string, labels ...string) types.SpecReport {
	return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: labels, State: state,
		Failure: types.Failure{Message: msg}}
}

// BuildCoverage gives each item the status of its checks in the run: a failed
// check wins, then a passed one; only skipped ones explain why, with the
// labels and skip messages; an item no check matches says its reason.
func TestBuildCoverage(t *testing.T) {
	saved := coverageItems
	defer func() { coverageItems = saved }()
	coverageItems = []CoverageItem{
		{Kind: KindRoute, Name: "passed", Checks: regexp.MustCompile(`^A `)},
		{Kind: KindRoute, Name: "failed", Checks: regexp.MustCompile(`^(A|B) `)},
		{Kind: KindErrorCode, Name: "skipped", Checks: regexp.MustCompile(`^C `)},
		{Kind: KindTransition, Name: "none", Checks: regexp.MustCompile(`^Z `), Reason: "not in this suite"},
	}
	rep := BuildCoverage([]types.SpecReport{
		spec("A one", types.SpecStatePassed, ""),
		spec("B two", types.SpecStateFailed, "boom"),
		spec("C three", types.SpecStateSkipped, "target has no control plane", LabelSandbox),
		spec("C four", types.SpecStateSkipped, "", LabelWebhook, "res:x"),
	}, "http://t")
	want := map[string]string{"passed": StatusChecked, "failed": StatusFailed, "skipped": StatusSkipped, "none": StatusNotChecked}
	for _, it := range rep.Items {
		if it.Status != want[it.Name] {
			t.Errorf("%s: status %q, want %q", it.Name, it.Status, want[it.Name])
		}
		switch it.Name {
		case "failed":
			if len(it.Failed) != 1 || it.Failed[0] != "B two" || len(it.Checks) != 2 {
				t.Errorf("failed: checks %v, failed %v", it.Checks, it.Failed)
			}
		case "skipped":
			if !strings.Contains(it.Reason, "labelled sandbox, webhook") || !strings.Contains(it.Reason, "target has no control plane") {
				t.Errorf("skipped: reason %q", it.Reason)
			}
		case "none":
			if it.Reason != "not in this suite" {
				t.Errorf("none: reason %q", it.Reason)
			}
		}
	}
	sum := rep.Summary()
	for _, w := range []string{"routes            1/2 checked, 1 failed", "error codes       0/1 checked, 1 skipped", "state transition none: not checked (not in this suite)"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
}
