package framework

import (
	"regexp"
	"sync"
)

// Matcher is what a coverage item or a route probe needs of its Checks
// pattern. *regexp.Regexp is one; Pattern is one compiled on first use.
type Matcher interface {
	MatchString(s string) bool
}

// Pattern returns a Matcher for the regular expression expr, compiled the
// first time it is matched. Package conformance registers about a hundred
// long patterns when it is initialised, and every run of the pixsandbox
// binary initialises it (the conformance suite is one of its commands):
// compiling them then added 7 ms to the start of every server and CLI call,
// for patterns only a conformance run reads. An invalid expr panics on its
// first match, as regexp.MustCompile would have at start; package
// conformance's TestCoverage_EveryItemHasChecks and
// TestRouteProbes_EveryProbeGuardsChecks match every registered one.
func Pattern(expr string) Matcher {
	return &lazyPattern{compile: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

type lazyPattern struct {
	compile func() *regexp.Regexp
}

func (p *lazyPattern) MatchString(s string) bool { return p.compile().MatchString(s) }
