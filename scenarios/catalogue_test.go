package scenarios

import (
	"os"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	known := map[pix.Code]bool{}
	for _, c := range pix.AllCodes {
		known[c] = true
	}
	for _, s := range catalogue {
		if seen[s.Name] {
			t.Errorf("duplicate scenario %s", s.Name)
		}
		seen[s.Name] = true
		if s.Code != "" && !known[s.Code] {
			t.Errorf("%s: code %q is not a pix code", s.Name, s.Code)
		}
		if s.Summary == "" || s.Spec == "" || len(s.Operations) == 0 || s.Phase == 0 {
			t.Errorf("%s: incomplete row %+v", s.Name, s)
		}
		if (s.Phase == Timing || s.Phase == Payer || s.Phase == MED) && (s.Code != "" || (s.Delay == 0) == !s.Never) {
			t.Errorf("%s: a timing scenario has a delay or never settles, and no code", s.Name)
		}
		if (s.Phase == AtRequest || s.Phase == AtSettlement) && s.Code == "" {
			t.Errorf("%s: no code", s.Name)
		}
		if _, ok := s.FailsSettlement(); ok != (s.Phase == AtSettlement) {
			t.Errorf("%s: FailsSettlement = %v for phase %s", s.Name, ok, s.Phase)
		}
		if s.Name != strings.ToUpper(s.Name) || strings.ContainsAny(s.Name, " -") {
			t.Errorf("%s: names are UPPER_SNAKE", s.Name)
		}
	}
}

// TestCatalogue_FailureReasons: every errorCode of the spec's webhook table is a
// settlement scenario of both PIX-out routes.
func TestCatalogue_FailureReasons(t *testing.T) {
	for _, f := range pix.FailureReasons {
		s, ok := Lookup(string(f.Code))
		if !ok || !s.Honours(OpCashOut) || !s.Honours(OpTransfer) {
			t.Errorf("no settlement scenario for %s", f.Code)
			continue
		}
		if got, ok := s.FailsSettlement(); !ok || got != f {
			t.Errorf("%s fails settlement with %+v", f.Code, got)
		}
	}
	if s := ForKey("TAX_ID_MISMATCH", OpCashOut); s.Name != "TAX_ID_MISMATCH" {
		t.Errorf("ForKey = %+v", s)
	}
	if s := ForKey("PUB_AUTH_UPSTREAM_ERROR", OpCashOut); !s.IsNone() {
		t.Errorf("ForKey of a scenario the operation does not honour = %+v", s)
	}
}

func TestFromHeader(t *testing.T) {
	s, err := FromHeader("", OpAuthToken)
	if err != nil || !s.IsNone() {
		t.Fatalf("empty header = %+v, %v", s, err)
	}
	s, err = FromHeader(" PUB_AUTH_UPSTREAM_ERROR ", OpAuthToken)
	if err != nil || s.Code != pix.CodePubAuthUpstreamError {
		t.Fatalf("known header = %+v, %v", s, err)
	}
	if !pix.Match(&pix.Error{Kind: pix.KindUpstream, Code: pix.CodePubAuthUpstreamError}, s.RejectAtRequest(OpAuthToken)) {
		t.Fatalf("RejectAtRequest = %v", s.RejectAtRequest(OpAuthToken))
	}
	_, err = FromHeader("NOPE", OpAuthToken)
	if !pix.Match(&pix.Error{Kind: pix.KindInvalid, Code: pix.CodeSandboxUnknownScenario}, err) {
		t.Fatalf("unknown header err = %v", err)
	}
	if !strings.Contains(err.Error(), "PUB_AUTH_UPSTREAM_UNAVAILABLE") {
		t.Fatalf("message does not list valid names: %v", err)
	}
	_, err = FromHeader("PUB_AUTH_UPSTREAM_ERROR", Operation("other"))
	if !pix.Match(&pix.Error{Kind: pix.KindInvalid, Code: pix.CodeSandboxUnknownScenario}, err) {
		t.Fatalf("scenario on a route that does not honour it: err = %v", err)
	}
}

// TestDocs keeps docs/scenarios.md in step with the catalogue. Regenerate with
// UPDATE_GOLDEN=1 go test ./scenarios/.
func TestDocs(t *testing.T) {
	const path = "../docs/scenarios.md"
	want := Markdown()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate with UPDATE_GOLDEN=1 go test ./scenarios/)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date; regenerate with UPDATE_GOLDEN=1 go test ./scenarios/", path)
	}
}
