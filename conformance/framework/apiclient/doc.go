// Package apiclient is the conformance suite's HTTP client of the public PIX
// API: requests with a token, a client certificate header and a scenario,
// responses with their JSON decoded (numbers kept exact) and read by path, and
// money amounts as the API writes them.
package apiclient
