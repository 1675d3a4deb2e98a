// Package proxy is the validating proxy of `pixsandbox proxy`: an
// http.Handler that forwards every request unchanged to an upstream
// implementation of the PIX contract, returns the upstream's answer
// unchanged, and judges each exchange with the request and response rules of
// conformance/contract and the state rules of conformance/contract/state. With
// Options.WebhooksTo it is also the receiver of the upstream's webhook
// deliveries (POST /_proxy/webhooks), forwarding each unchanged to the
// integrator's receiver and judging it with the webhook rules. Findings are
// kept in a bounded store, printed one line each as they happen, served at
// GET /_proxy/findings and written as JSON and JUnit reports.
// ValidateRecording (and `pixsandbox validate`) applies the same rules to
// recorded traffic: a request journal export or a HAR file.
//
// Start runs a proxy on a loopback port for a test: the conformance suite
// can be pointed at its URL and the findings read at the end (docs/proxy.md).
package proxy
