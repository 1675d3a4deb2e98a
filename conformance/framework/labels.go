package framework

import (
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
)

// Label names. Select specs with -ginkgo.label-filter, for example
// 'spec && !sandbox && !sandbox-choice' against a real service.
const (
	// LabelSpec marks behaviour the specification states.
	LabelSpec = "spec"
	// LabelSandbox marks specs that need the /_sandbox control plane or
	// X-Sandbox-Scenario semantics.
	LabelSandbox = "sandbox"
	// LabelSandboxChoice marks specs that assert the sandbox's reading of a
	// point the specification leaves "not shown".
	LabelSandboxChoice = "sandbox-choice"
	// LabelSlow marks specs that wait in real time.
	LabelSlow = "slow"
	// LabelWebhook marks specs that need the target to reach the suite's
	// webhook receiver.
	LabelWebhook = "webhook"
)

// Ginkgo labels, to pass as decorators to Describe, It, Entry and the wrappers.
var (
	// Spec labels behaviour the specification states; it must pass on any
	// conforming target.
	Spec = ginkgo.Label(LabelSpec)
	// Sandbox labels specs that need the /_sandbox control plane; the
	// framework skips them, with a reason, when the target has none.
	Sandbox = ginkgo.Label(LabelSandbox)
	// SandboxChoice labels checks of the sandbox's choice for a "not shown"
	// point of the specification.
	SandboxChoice = ginkgo.Label(LabelSandboxChoice)
	// Slow labels specs that wait in real time.
	Slow = ginkgo.Label(LabelSlow)
	// Webhook labels specs that need the target to reach the webhook receiver.
	Webhook = ginkgo.Label(LabelWebhook)
	// FamilyStd labels the standard routes (/api/..., /balance).
	FamilyStd = ginkgo.Label("family:std")
	// FamilyBacen labels the Central Bank-compatible routes (/accounts/balances,
	// /dict/pix, /cob/{txid}, /pix/{e2eid}/devolucao/{id}).
	FamilyBacen = ginkgo.Label("family:bacen")
)

// Res returns the label "res:<name>" naming the resource a spec exercises,
// such as Res("auth") or Res("cash-out"). It panics when name contains a
// character Ginkgo forbids in labels (&|!,()/ or a space).
func Res(name string) ginkgo.Labels {
	if name == "" || strings.ContainsAny(name, "&|!,()/ ") {
		panic(fmt.Sprintf("framework.Res(%q): a label may not be empty or contain any of &|!,()/ or a space", name))
	}
	return ginkgo.Label("res:" + name)
}

// SpecIt is ginkgo.It for behaviour the specification mandates. It adds the
// "spec" label.
func SpecIt(text string, args ...any) bool {
	return ginkgo.It(text, append(args, Spec, ginkgo.Offset(1))...)
}

// SandboxIt is ginkgo.It for behaviour only a sandbox offers (control plane,
// X-Sandbox-Scenario). It adds the "sandbox" label; the framework's BeforeEach
// skips it, with a reason, when the target has no control plane.
func SandboxIt(text string, args ...any) bool {
	return ginkgo.It(text, append(args, Sandbox, ginkgo.Offset(1))...)
}

// SandboxChoiceIt is ginkgo.It for a check of the sandbox's choice where the
// specification says "not shown". It adds the "sandbox-choice" label; the
// spec's comment names the gap it covers.
func SandboxChoiceIt(text string, args ...any) bool {
	return ginkgo.It(text, append(args, SandboxChoice, ginkgo.Offset(1))...)
}
