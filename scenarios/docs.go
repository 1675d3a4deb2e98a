package scenarios

import (
	"fmt"
	"strings"
)

// Markdown renders the catalogue as docs/scenarios.md.
func Markdown() string {
	var b strings.Builder
	b.WriteString("# Sandbox scenarios\n\n")
	b.WriteString("Send the header `" + Header + ": NAME` on a route that honours NAME to make the sandbox fail on purpose.\n")
	b.WriteString("On a route that has scenarios, an unknown name, or one the route does not honour, is answered 400 with code `SANDBOX_UNKNOWN_SCENARIO`\n")
	b.WriteString("listing the valid names (Gap G-06 in spec-gaps.md). `GET /_sandbox/scenarios` returns this table as JSON.\n\n")
	b.WriteString("This file is generated from `scenarios/catalogue.go` (`UPDATE_GOLDEN=1 go test ./scenarios/`).\n\n")
	b.WriteString("| Name | Routes | Phase | Result | Spec |\n|---|---|---|---|---|\n")
	for _, s := range All() {
		ops := make([]string, len(s.Operations))
		for i, o := range s.Operations {
			ops[i] = "`" + string(o) + "`"
		}
		result := s.Summary
		if s.Code != "" {
			result += " (`" + string(s.Code) + "`)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", s.Name, strings.Join(ops, ", "), s.Phase, result, s.Spec)
	}
	b.WriteString("\n## Magic DICT keys\n\n")
	b.WriteString("For clients that cannot set headers, the DICT directory (`fixtures/dict.json`) holds a key for each settlement\n")
	b.WriteString("failure, `SLOW_SETTLEMENT`, `SETTLEMENT_PENDING` and `PIX_INSUFFICIENT_BALANCE`:\n")
	b.WriteString("`<name in lower case with dashes>@scenario.pixsandbox.example`, e.g. `tax-id-mismatch@scenario.pixsandbox.example`\n")
	b.WriteString("for `TAX_ID_MISMATCH`. A cash-out (keyType EMAIL) or a `POST /dict/pix` to such a key behaves as if it carried the header;\n")
	b.WriteString("a header, when present, wins. `POST /_sandbox/dict/keys` registers more keys with a `scenario`.\n")
	return b.String()
}
