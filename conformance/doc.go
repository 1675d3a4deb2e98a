// Package conformance holds the PIX API conformance specs: Ginkgo specs that
// talk HTTP to any implementation of the PIX payment service specification
// (the pixsandbox simulator, a partner's mock, the real service) and check it
// against the specification's words.
//
// The specs live in ordinary (non-test) files so that any package can run them
// in-process: import this package for its side effect of registering the specs
// and call framework.Run, as conformance_suite_test.go does from flags and
// cmd/pixsandbox does against an in-process simulator.
//
// Every check is preceded by a comment stating, in MUST language, what it
// checks and which part of the specification (or which sandbox choice) it
// rests on. Labels select what applies to a target; see docs/conformance.md.
//
// The specs are an independent oracle: they spell wire strings (field names,
// codes) as literals, as the specification writes them, rather than taking
// them from the simulator.
package conformance
