package conformance_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// checksFile is the golden list of checks: one line per spec, its full text
// and its labels. Adding, removing or relabelling a check is a reviewed diff.
const checksFile = "testdata/checks.txt"

// TestChecksGolden compares the spec tree with testdata/checks.txt.
// UPDATE_GOLDEN=1 rewrites the file. It is a development check: a run against
// a target (for example the shipped test binary, far from the source tree)
// skips it.
func TestChecksGolden(t *testing.T) {
	if config.Target != "" {
		t.Skip("the golden list of checks is verified by runs without -target")
	}
	report := ginkgo.PreviewSpecs(framework.SuiteDescription)
	var lines []string
	for _, s := range report.SpecReports {
		if !s.LeafNodeType.Is(types.NodeTypeIt) {
			continue
		}
		labels := slices.Clone(s.Labels())
		slices.Sort(labels)
		lines = append(lines, fmt.Sprintf("%s [%s]", s.FullText(), strings.Join(labels, ", ")))
	}
	slices.Sort(lines)
	got := strings.Join(lines, "\n") + "\n"

	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(checksFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(checksFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(checksFile)
	if err != nil {
		t.Fatalf("%v (run UPDATE_GOLDEN=1 go test ./conformance -run TestChecksGolden)", err)
	}
	if got != string(want) {
		t.Fatalf("the checks differ from %s; review the change and run UPDATE_GOLDEN=1 go test ./conformance -run TestChecksGolden\n%s",
			checksFile, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}
