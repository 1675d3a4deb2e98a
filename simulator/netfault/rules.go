package netfault

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// MaxRules is how many rules one workspace holds.
const MaxRules = 100

// Any, as a rule's Method or Route, matches every method or every route.
const Any = "*"

// Rule makes requests of a route fail with a Fault (Gap G-64,
// docs/spec-gaps.md: matching, order, draws, lifetime). It matches a request by
// method and route template (each may be Any) and, when Account is not 0,
// the authenticated account; it applies at most Times times (0: no limit),
// each matching request with Probability, drawn from a generator seeded
// with Seed: the same seed makes the same decisions for the same sequence of
// matching requests.
type Rule struct {
	ID          int64
	Method      string
	Route       string
	Account     int64
	Fault       Fault
	Times       int
	Probability float64 // (0, 1]
	Seed        uint64

	// Matched counts the requests the rule matched (a draw each);
	// Applied those it faulted.
	Matched, Applied int

	draw *rand.Rand
}

// Remaining is how many more times the rule applies; -1 without a limit.
func (r *Rule) Remaining() int {
	if r.Times == 0 {
		return -1
	}
	return max(r.Times-r.Applied, 0)
}

// Applied is a fault that applies to one request: from the header (Rule 0)
// or from a rule.
type Applied struct {
	Fault Fault
	Rule  int64
}

// Route is a route faults may apply to: a contract route's method and
// template.
type Route struct{ Method, Path string }

// Rules are the fault rules of every workspace of a server, kept in memory:
// a restart starts without any. The zero value is not usable: see NewRules.
type Rules struct {
	n      atomic.Int64 // rules held, every workspace together
	spaces sync.Map     // workspace id ("" the default) → *space
	routes []Route      // what a rule may name (SetRoutes)
	stop   chan struct{}
	once   sync.Once
}

// space is one workspace's rules, in the order they were added.
type space struct {
	mu    sync.Mutex
	next  int64
	rules []*Rule
}

// NewRules returns a server's rules, none yet.
func NewRules() *Rules { return &Rules{stop: make(chan struct{})} }

// SetRoutes sets the routes rules may name (the contract's routes, without
// /healthz); the transport calls it once, before serving.
func (rs *Rules) SetRoutes(routes []Route) { rs.routes = routes }

// Stop ends every hold a fault keeps (the server shuts down): a delayed or
// trickled answer is sent at once, a timeout closes its connection. Further
// holds end at once. Safe to call more than once.
func (rs *Rules) Stop() { rs.once.Do(func() { close(rs.stop) }) }

// Stopping is closed by Stop.
func (rs *Rules) Stopping() <-chan struct{} { return rs.stop }

func (rs *Rules) space(ws string, create bool) *space {
	if v, ok := rs.spaces.Load(ws); ok {
		return v.(*space)
	}
	if !create {
		return nil
	}
	v, _ := rs.spaces.LoadOrStore(ws, &space{})
	return v.(*space)
}

// Empty reports whether no workspace has a rule (an atomic load).
func (rs *Rules) Empty() bool { return rs.n.Load() == 0 }

// For returns the fault a request of a contract route gets: the fault of
// header (the X-Sandbox-Fault value; the rules are not consulted; an empty
// value is no header, as an empty X-Sandbox-Scenario is none), else the
// first rule of workspace ws that matches method, route and account, is not
// spent, and whose draw fires. A header that is not a fault is a KindInvalid
// error naming the header. With no header and no rule in any workspace it
// costs an atomic load; with none in ws, a map lookup more.
func (rs *Rules) For(header []string, ws, method, route string, account int64) (Applied, bool, error) {
	if len(header) > 0 && strings.TrimSpace(header[0]) != "" {
		f, err := Parse(header[0])
		if err != nil {
			return Applied{}, false, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: Header, Message: err.Error()})
		}
		return Applied{Fault: f}, true, nil
	}
	if rs.Empty() {
		return Applied{}, false, nil
	}
	sp := rs.space(ws, false)
	if sp == nil {
		return Applied{}, false, nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for _, r := range sp.rules {
		if r.Times > 0 && r.Applied >= r.Times ||
			r.Method != Any && r.Method != method || r.Route != Any && r.Route != route ||
			r.Account != 0 && r.Account != account {
			continue
		}
		r.Matched++
		if r.Probability < 1 && r.draw.Float64() >= r.Probability {
			continue
		}
		r.Applied++
		return Applied{Fault: r.Fault, Rule: r.ID}, true, nil
	}
	return Applied{}, false, nil
}

// Add checks a rule and adds it to workspace ws with the next id; a field
// that is wrong is a KindInvalid error naming it (method, route, accountId,
// times, probability), as is a workspace that holds MaxRules already.
func (rs *Rules) Add(ws string, r Rule) (Rule, error) {
	if err := rs.check(&r); err != nil {
		return Rule{}, err
	}
	sp := rs.space(ws, true)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if len(sp.rules) >= MaxRules {
		return Rule{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "body",
			Message: "the workspace holds 100 fault rules already, the most it keeps: clear some (DELETE /_sandbox/faults)"})
	}
	sp.next++
	r.ID, r.Matched, r.Applied = sp.next, 0, 0
	r.draw = rand.New(rand.NewPCG(r.Seed, 0x9e3779b97f4a7c15))
	sp.rules = append(sp.rules, &r)
	rs.n.Add(1)
	out := r
	out.draw = nil
	return out, nil
}

// check validates r and normalizes its method (upper case) and probability
// (0 means 1).
func (rs *Rules) check(r *Rule) error {
	bad := func(field, msg string) error {
		return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field, Message: msg})
	}
	r.Method = strings.ToUpper(strings.TrimSpace(r.Method))
	r.Route = strings.TrimSpace(r.Route)
	if r.Probability == 0 {
		r.Probability = 1
	}
	switch {
	case r.Route == "":
		return bad("route", `is required: a PIX API route's template, e.g. /api/pix/cash-out or /cob/{txid}, or "*" for every route`)
	case r.Method == "":
		return bad("method", `is required: GET, POST, PUT, PATCH or DELETE, or "*" for every method`)
	case r.Route != Any && !slices.ContainsFunc(rs.routes, func(x Route) bool { return x.Path == r.Route }):
		return bad("route", pix.QuoteASCII(r.Route)+` is not a PIX API route's template (the control plane, /healthz and /metrics are never faulted): e.g. /api/pix/cash-out, /dict/pix, /cob/{txid}, or "*"`)
	case r.Method != Any && r.Route != Any && !slices.Contains(rs.routes, Route{Method: r.Method, Path: r.Route}):
		return bad("method", pix.QuoteASCII(r.Method)+" is not a method of "+r.Route+"; it has "+strings.Join(rs.methodsOf(r.Route), ", ")+` (or "*")`)
	case r.Method != Any && r.Route == Any && !slices.ContainsFunc(rs.routes, func(x Route) bool { return x.Method == r.Method }):
		return bad("method", pix.QuoteASCII(r.Method)+` is not a method of any PIX API route: GET, POST, PUT or PATCH, or "*"`)
	case r.Account < 0:
		return bad("accountId", "must be a positive account number (or left out for every account)")
	case r.Times < 0:
		return bad("times", "must be a positive number of requests (or left out for every request)")
	case !(r.Probability > 0 && r.Probability <= 1):
		return bad("probability", "must be a number above 0 and at most 1, e.g. 0.25")
	case r.Fault.Kind == 0:
		return bad("fault", "is required: "+Syntax)
	}
	return nil
}

func (rs *Rules) methodsOf(path string) []string {
	var out []string
	for _, x := range rs.routes {
		if x.Path == path {
			out = append(out, x.Method)
		}
	}
	return out
}

// List returns workspace ws's rules, in the order they were added.
func (rs *Rules) List(ws string) []Rule {
	sp := rs.space(ws, false)
	if sp == nil {
		return nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	out := make([]Rule, len(sp.rules))
	for i, r := range sp.rules {
		out[i] = *r
		out[i].draw = nil
	}
	return out
}

// Delete removes rule id of workspace ws and reports whether it was there.
func (rs *Rules) Delete(ws string, id int64) bool {
	sp := rs.space(ws, false)
	if sp == nil {
		return false
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	i := slices.IndexFunc(sp.rules, func(r *Rule) bool { return r.ID == id })
	if i < 0 {
		return false
	}
	sp.rules = slices.Delete(sp.rules, i, i+1)
	rs.n.Add(-1)
	return true
}

// Clear removes every rule of workspace ws and returns how many there were;
// the next rule's id goes on from the last.
func (rs *Rules) Clear(ws string) int {
	sp := rs.space(ws, false)
	if sp == nil {
		return 0
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	n := len(sp.rules)
	sp.rules = nil
	rs.n.Add(int64(-n))
	return n
}

// Forget drops workspace ws's rules and its numbering (the workspace was
// deleted).
func (rs *Rules) Forget(ws string) {
	rs.Clear(ws)
	rs.spaces.Delete(ws)
}
