// Package netfault is network faults on demand for the PIX API (docs/faults.md):
// a route that answers late, never, with a gateway's 5xx page instead of its
// own answer, slowly, or drops the connection before or after its work was
// committed. A fault comes from the X-Sandbox-Fault header of one request or
// from a workspace's rules (POST /_sandbox/faults), which match a route, a
// method and optionally an account, a number of times or with a seeded
// probability. The transport (simulator/httpapi) asks Rules which fault a
// request of a contract route gets and applies it with Answer (in place of the
// route) or Held (to the route's answer); the control plane, /healthz and
// /metrics are never faulted.
//
// Not to be confused with simulator/faults: those are deliberately wrong
// behaviours of the simulator itself, built only with the faults tag, that
// prove the conformance suite catches a wrong implementation. netfault's
// faults are what a network does to a correct one, on request, in every
// build.
//
// Delays and holds are wall time, the only time a network has: a virtual
// clock that stands still must not hold a request for ever.
package netfault

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Header names the fault of one request (a Fault in Parse's form).
const Header = "X-Sandbox-Fault"

// Kind is what a fault does. Gap G-63 (docs/spec-gaps.md): which kinds run
// the route (and commit) and what the client sees.
type Kind int

// The kinds of fault. The first three answer in place of the route (the
// route does not run: nothing is committed); the others act on the route's
// answer once it ran.
const (
	// ResetBefore closes the connection without an answer; the route does not run.
	ResetBefore Kind = iota + 1
	// Timeout holds the request without an answer until the client gives up
	// (or the server shuts down), then closes the connection; the route does
	// not run.
	Timeout
	// Status answers a gateway's error page with a 5xx status; the route does
	// not run.
	Status
	// ResetAfter lets the route run (and commit), then closes the connection
	// without its answer.
	ResetAfter
	// Delay lets the route run (and commit) and sends its answer after a wait.
	Delay
	// Trickle lets the route run and sends its answer at a few bytes a second.
	Trickle
)

// Bounds of a fault's value.
const (
	MaxDelay   = time.Hour
	MaxTrickle = 1 << 30 // bytes a second
)

// Fault is one network fault: a Kind and its value.
type Fault struct {
	Kind  Kind
	Delay time.Duration // Delay: how long the answer waits
	Code  int           // Status: 500..599
	JSON  bool          // Status: a JSON body instead of the HTML page
	Rate  int           // Trickle: bytes a second
}

// Syntax is the form of a fault, for error messages and docs.
const Syntax = "delay=<duration> (e.g. delay=2s, at most 1h), timeout, reset-before, reset-after, " +
	"status=<500..599> (optionally ;body=json), or trickle=<bytes per second> (e.g. trickle=64)"

// Parse reads a fault: "delay=2s", "timeout", "reset-before", "reset-after",
// "status=502", "status=503;body=json", "trickle=64". The error says what is
// wrong and the forms accepted.
func Parse(s string) (Fault, error) {
	s = strings.TrimSpace(s)
	name, value, hasValue := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	value = strings.TrimSpace(value)
	bad := func(why string) (Fault, error) {
		return Fault{}, fmt.Errorf("%s; a fault is %s", why, Syntax)
	}
	if s == "" {
		return bad("is empty")
	}
	noValue := func(k Kind) (Fault, error) {
		if hasValue {
			return bad(pix.QuoteASCII(name) + " takes no value")
		}
		return Fault{Kind: k}, nil
	}
	switch name {
	case "reset-before":
		return noValue(ResetBefore)
	case "reset-after":
		return noValue(ResetAfter)
	case "timeout":
		return noValue(Timeout)
	case "delay":
		d, err := time.ParseDuration(value)
		if err != nil || d <= 0 || d > MaxDelay {
			return bad("delay must be a duration from 1ms to 1h, e.g. delay=2s or delay=1500ms, not " + pix.QuoteASCII(value))
		}
		return Fault{Kind: Delay, Delay: d}, nil
	case "status":
		return parseStatus(value, bad)
	case "trickle":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > MaxTrickle || strings.TrimLeft(value, "0123456789") != "" {
			return bad("trickle must be a whole number of bytes a second from 1 to 1073741824, e.g. trickle=64, not " + pix.QuoteASCII(value))
		}
		return Fault{Kind: Trickle, Rate: n}, nil
	}
	return bad(pix.QuoteASCII(name) + " is not a fault")
}

// parseStatus reads the value of status=: a code of 500..599 and, after a
// semicolon, body=html (the default) or body=json.
func parseStatus(value string, bad func(string) (Fault, error)) (Fault, error) {
	code, opt, hasOpt := strings.Cut(value, ";")
	code = strings.TrimSpace(code)
	n, err := strconv.Atoi(code)
	if err != nil || n < 500 || n > 599 || len(code) != 3 {
		return bad("status must be a gateway's error status from 500 to 599, e.g. status=502, not " + pix.QuoteASCII(code))
	}
	f := Fault{Kind: Status, Code: n}
	if hasOpt {
		switch strings.ReplaceAll(strings.TrimSpace(opt), " ", "") {
		case "body=html":
		case "body=json":
			f.JSON = true
		default:
			return bad("status takes ;body=html or ;body=json after its code, not " + pix.QuoteASCII(opt))
		}
	}
	return f, nil
}

// String is the fault in Parse's form.
func (f Fault) String() string {
	switch f.Kind {
	case ResetBefore:
		return "reset-before"
	case ResetAfter:
		return "reset-after"
	case Timeout:
		return "timeout"
	case Delay:
		return "delay=" + f.Delay.String()
	case Status:
		if f.JSON {
			return "status=" + strconv.Itoa(f.Code) + ";body=json"
		}
		return "status=" + strconv.Itoa(f.Code)
	case Trickle:
		return "trickle=" + strconv.Itoa(f.Rate)
	}
	return ""
}

// InPlace reports whether f answers in place of the route (the route does
// not run; Answer applies it), rather than acting on the route's answer (Held).
func (f Fault) InPlace() bool {
	return f.Kind == ResetBefore || f.Kind == Timeout || f.Kind == Status
}
