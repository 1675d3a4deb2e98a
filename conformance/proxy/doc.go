// Package proxy is the validating proxy of `pixsandbox proxy`: an
// http.Handler that forwards every request unchanged to an upstream
// implementation of the PIX contract, returns the upstream's answer
// unchanged, and judges each exchange with the rules of
// conformance/contract (the request, response and state rules). Findings are
// kept in a bounded store, printed one line each as they happen, served at
// GET /_proxy/findings and written as JSON and JUnit reports.
//
// Start runs a proxy on a loopback port for a test: the conformance suite
// can be pointed at its URL and the findings read at the end (docs/proxy.md).
package proxy
