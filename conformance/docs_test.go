package conformance_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// docsFile is the suite's user documentation.
const docsFile = "../docs/conformance.md"

// TestDocsNameEveryFlag keeps docs/conformance.md and the suite's flags in
// step: every flag of framework.RegisterFlags, and every flag pixsandbox
// conform adds, appears in the document as `-name` (or `--name`).
func TestDocsNameEveryFlag(t *testing.T) {
	raw, err := os.ReadFile(docsFile)
	if err != nil {
		t.Skipf("%v (the documentation is beside the source tree only)", err)
	}
	doc := string(raw)
	fs := flag.NewFlagSet("docs", flag.ContinueOnError)
	var c framework.Config
	framework.RegisterFlags(fs, &c)
	names := []string{"v", "no-color", "list", "ginkgo.focus", "ginkgo.skip", "ginkgo.label-filter"} // pixsandbox conform's own
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	for _, n := range names {
		if !strings.Contains(doc, "`-"+n+"`") && !strings.Contains(doc, "`--"+n+"`") && !strings.Contains(doc, "`--"+n+" ") && !strings.Contains(doc, "`-"+n+" ") {
			t.Errorf("%s does not name the flag -%s", docsFile, n)
		}
	}
}
