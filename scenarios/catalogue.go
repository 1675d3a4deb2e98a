package scenarios

import "github.com/pixsandbox/pixsandbox/simulator/pix"

// catalogue is every X-Sandbox-Scenario value. A scenario's name is the code it
// produces, where one exists, so one vocabulary finds the spec row, this row, the
// simulator code and the conformance check.
var catalogue = []Scenario{
	{
		Name:       "PUB_AUTH_UPSTREAM_UNAVAILABLE",
		Summary:    "Reject the token request as if the upstream authentication service were unreachable (503); retry with exponential backoff.",
		Operations: []Operation{OpAuthToken},
		Phase:      AtRequest,
		Kind:       pix.KindUnavailable,
		Code:       pix.CodePubAuthUpstreamUnavailable,
		Spec:       "Errors > Token endpoint codes",
	},
	{
		Name:       "PUB_AUTH_UPSTREAM_ERROR",
		Summary:    "Reject the token request as if the upstream authentication service returned an unrecognised error (502).",
		Operations: []Operation{OpAuthToken},
		Phase:      AtRequest,
		Kind:       pix.KindUpstream,
		Code:       pix.CodePubAuthUpstreamError,
		Spec:       "Errors > Token endpoint codes",
	},
}
