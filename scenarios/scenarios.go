// Package scenarios is the catalogue of X-Sandbox-Scenario values: named,
// documented ways to make the sandbox fail on purpose. Spec "POST /api/pix/cash-out":
// "Optional header X-Sandbox-Scenario simulates error scenarios"; its values are not
// shown, so the catalogue is this sandbox's (Gap G-06, docs/spec-gaps.md).
//
// Each Scenario names the operations that honour it, the phase at which the
// core applies it and the code it produces or the timing it changes;
// docs/scenarios.md is generated from the catalogue (make golden).
package scenarios

import (
	"sort"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Header is the request header that selects a scenario.
const Header = "X-Sandbox-Scenario"

// Operation is a request that can carry a scenario.
type Operation string

// Operations.
const (
	OpAuthToken Operation = "auth.token"
	OpCashOut   Operation = "cashout.create"
	OpTransfer  Operation = "transfer.create"
	OpCashIn    Operation = "cashin.create"
	OpCob       Operation = "cob.put"
	OpRefund    Operation = "refund.create" // both refund routes
)

// Phase says when a scenario takes effect.
type Phase int

// Phases.
const (
	AtRequest    Phase = iota + 1 // the request is rejected synchronously
	AtSettlement                  // the request is accepted; settlement fails and the webhook says why
	Timing                        // the request is accepted; settlement comes late, or only when forced
	Payer                         // a charge is accepted; a payer acts on it by itself
	Splits                        // a charge is accepted; its splits fail at settlement
	MED                           // a charge is accepted; once paid, the payer's bank opens a MED
)

// String names the phase for documentation.
func (p Phase) String() string {
	switch p {
	case AtRequest:
		return "at request"
	case AtSettlement:
		return "at settlement"
	case Timing:
		return "timing"
	case Payer:
		return "payer"
	case Splits:
		return "splits"
	case MED:
		return "med"
	}
	return "unknown"
}

// Scenario is one row of the catalogue.
type Scenario struct {
	Name       string      // exact header value
	Summary    string      // one line for docs/scenarios.md
	Operations []Operation // where the header is honoured
	Phase      Phase
	Kind       pix.Kind // how a request-time failure is reported
	Code       pix.Code // the code it produces (wire spelling); empty for timing scenarios
	Spec       string   // spec heading that defines Code or the behaviour
	// Delay replaces the settlement delay (Timing), or is when the payer pays
	// (Payer); with Never the transaction settles only when forced through the
	// control plane (or expires). AfterExpiry makes a Payer pay Delay after the
	// charge expired.
	Delay       time.Duration
	Never       bool
	AfterExpiry bool
	// SplitFailure is how each split of the charge fails at settlement (Splits).
	SplitFailure pix.Code
	// MED: the MED opens Delay after payment; AnalysisAfter (from opening)
	// replaces the default analysis deadline; Result is APPROVED or REJECTED;
	// Cancel withdraws it at AnalysisAfter instead.
	AnalysisAfter time.Duration
	Result        string
	Cancel        bool
}

// FailsSettlement returns the failure reason settlement must end with under s.
func (s Scenario) FailsSettlement() (pix.FailureReason, bool) {
	if s.Phase != AtSettlement {
		return pix.FailureReason{}, false
	}
	return pix.LookupFailure(s.Code)
}

// None is the absence of a scenario.
var None = Scenario{}

// IsNone reports whether s is the absence of a scenario.
func (s Scenario) IsNone() bool { return s.Name == "" }

// Honours reports whether s applies to op.
func (s Scenario) Honours(op Operation) bool {
	for _, o := range s.Operations {
		if o == op {
			return true
		}
	}
	return false
}

// RejectAtRequest returns the error a request of op must fail with under s, or nil.
func (s Scenario) RejectAtRequest(op Operation) error {
	if s.IsNone() || s.Phase != AtRequest || !s.Honours(op) {
		return nil
	}
	return &pix.Error{Kind: s.Kind, Code: s.Code, Message: s.Summary,
		Hint: "Sent on purpose: the request carried " + Header + ": " + s.Name + "."}
}

// All returns the catalogue sorted by name.
func All() []Scenario {
	out := append([]Scenario(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the scenario with the given name.
func Lookup(name string) (Scenario, bool) {
	for _, s := range catalogue {
		if s.Name == name {
			return s, true
		}
	}
	return None, false
}

// ForKey returns the scenario a magic DICT key forces for op (fixtures/dict.json
// "scenario"), for clients that cannot set headers. A key scenario the operation
// does not honour is ignored.
func ForKey(name string, op Operation) Scenario {
	if s, ok := Lookup(name); ok && s.Honours(op) {
		return s
	}
	return None
}

// FromHeader resolves a header value for op. An empty value is None. An unknown
// value, or one op does not honour, is a KindInvalid error with
// CodeSandboxUnknownScenario whose message lists the valid names for op
// (Gap G-06: rejecting beats silently ignoring a typo).
func FromHeader(value string, op Operation) (Scenario, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return None, nil
	}
	s, ok := Lookup(value)
	if ok && s.Honours(op) {
		return s, nil
	}
	var valid []string
	for _, c := range All() {
		if c.Honours(op) {
			valid = append(valid, c.Name)
		}
	}
	why := "is not a scenario of this route; valid values: " + strings.Join(valid, ", ")
	if len(valid) == 0 {
		why = "is not honoured by this route (it has no scenarios)"
	}
	return None, &pix.Error{Kind: pix.KindInvalid, Code: pix.CodeSandboxUnknownScenario, Message: Header + " " + pix.QuoteASCII(value) + " " + why,
		Violations: []pix.Violation{{Field: Header, Message: pix.QuoteASCII(value) + " " + why}},
		Hint:       "GET /_sandbox/scenarios lists every scenario and the routes that honour it."}
}
