package contract_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

// TestRules_Documented: docs/proxy.md has a table row for every rule, with
// its kind's table and whether it needs a quiet account.
func TestRules_Documented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "proxy.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, r := range contract.Rules() {
		row := ""
		for _, line := range strings.Split(doc, "\n") {
			if strings.HasPrefix(line, "| `"+r.ID+"` |") {
				row = line
			}
		}
		if row == "" {
			t.Errorf("docs/proxy.md has no table row for %s", r.ID)
			continue
		}
		quiet := "| no |"
		if r.QuietAccount {
			quiet = "| yes |"
		}
		if !strings.Contains(row, quiet) {
			t.Errorf("docs/proxy.md's row for %s does not say %q", r.ID, quiet)
		}
	}
}
