package netfault_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/netfault"
)

// FuzzParse fuzzes the fault syntax (X-Sandbox-Fault, a rule's fault): any
// text is a fault whose String parses back to it, or an error that lists the
// forms accepted.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"reset-before", "reset-after", "timeout", "delay=2s", "delay=1h1s", "status=502",
		"status=503;body=json", "status=502;", "trickle=64", "trickle=", "=", "delay=9223372036854775807ns", "status=5\x0002"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := netfault.Parse(s)
		if err != nil {
			if !strings.Contains(err.Error(), netfault.Syntax) {
				t.Fatalf("Parse(%q): %v, without the forms accepted", s, err)
			}
			return
		}
		if got.Kind == 0 || got.String() == "" {
			t.Fatalf("Parse(%q) = %+v without an error", s, got)
		}
		if again, err := netfault.Parse(got.String()); err != nil || again != got {
			t.Fatalf("Parse(%q) = %+v, String %q parses as %+v, %v", s, got, got.String(), again, err)
		}
	})
}
