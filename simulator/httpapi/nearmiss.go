package httpapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Near misses: for a request no route matched, the routes of the contract
// and of the control plane (and the pages, /metrics and /) it came closest
// to, and what differs. The 404 and 405 of such a request name them once
// the caller may see them (handleUnmatched), and its journal entry records
// them (finishJournal).
//
// A request path and a route template are compared segment by segment, as
// an edit distance over segments (an alignment): a segment that differs in
// case, a small typo in a segment ('cashout' → 'cash-out', at most 2 edits
// and at most one edit per 3 characters), a trailing slash, an empty
// segment (//), a missing or extra /api or /_sandbox prefix, an extra
// /public prefix, a segment more or less; the method counts too. Each
// difference has a cost; a route within nearMissMaxCost that shares at
// least one literal segment with the path (beyond /api and /_sandbox) is a
// near miss, the cheapest ones are named. A path that fits a route whose
// method differs (the 405's case) names exactly those routes: the allowed
// methods. A request that fits a route with its own method (a page that has
// no such file) has no near miss.
//
// The work is bounded whatever the request: paths over nearMissPathLimit
// bytes or nearMissSegments segments are not compared, a segment is
// compared by edit distance only up to nearMissSegmentRunes runes and with
// each distinct literal of the route tables once, a route whose number of
// segments differs by more than nearMissMaxCost is skipped, and at most
// nearMissRoutes routes are considered.

// Bounds of the comparison.
const (
	nearMissPathLimit    = 1024 // longer paths are not compared
	nearMissSegments     = 16   // nor paths of more segments
	nearMissSegmentRunes = 48   // a longer segment matches a literal only exactly or by case
	nearMissRoutes       = 1024 // routes compared, in table order
	nearMissShown        = 3    // near misses named, at most (the 405's allowed methods all)
	nearMissMaxCost      = 4    // the largest total cost still named
	nearMissMaxEdits     = 2    // the largest edit distance of a typo
	nearMissTextLimit    = 40   // bytes of a request's segment quoted in a difference
)

// Costs of the differences.
const (
	costAffix   = 1 // a trailing slash, an empty segment, a missing or extra prefix
	costCase    = 1 // any number of segments differing in case only, together
	costTypo    = 1 // plus the edit distance (1 or 2)
	costMethod  = 2 // another method
	costSegment = 3 // a segment more or less
	costNever   = 1 << 10
)

// NearMiss is a route that a request no route matched came close to: its
// method, its path template and what differs, e.g. POST /api/pix/cash-out
// and "the path differs in 'cashout' → 'cash-out'".
type NearMiss struct {
	Method      string
	Route       string
	Differences []string
	// fits: the path fits the route, only the method differs.
	fits bool
}

// String is the near miss as an unmatched request's message names it:
// "POST /api/pix/cash-out? the path differs in 'cashout' → 'cash-out'".
func (m NearMiss) String() string {
	return m.Method + " " + m.Route + "? " + strings.Join(m.Differences, " and ")
}

// nearMissClause is what a 404's message adds for its near misses:
// "did you mean A? …; or B? …".
func nearMissClause(ms []NearMiss) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return "did you mean " + strings.Join(parts, "; or ")
}

// allowedMethods are the methods of the near misses whose path the request
// fits (a 405's Allow), sorted; none when no near miss fits.
func allowedMethods(ms []NearMiss) []string {
	var out []string
	for _, m := range ms {
		if m.fits && !slices.Contains(out, m.Method) {
			out = append(out, m.Method)
		}
	}
	slices.Sort(out)
	return out
}

// nearMissSize is what near misses count against the journal's budget.
func nearMissSize(ms []NearMiss) int {
	n := 0
	for _, m := range ms {
		n += 64 + len(m.Method) + len(m.Route)
		for _, d := range m.Differences {
			n += 16 + len(d)
		}
	}
	return n
}

// nearMissMemo holds an unmatched request's near misses, computed at most
// once for its answer and its journal entry (ctxNearMiss).
type nearMissMemo struct {
	done   bool
	misses []NearMiss
}

// ctxNearMiss holds the *nearMissMemo of an unmatched request (wrap).
const ctxNearMiss ctxKey = 200

// nearMissesOf returns the near misses of an unmatched request.
func (s *Server) nearMissesOf(r *http.Request) []NearMiss {
	if s.nearMiss == nil {
		return nil
	}
	m, _ := r.Context().Value(ctxNearMiss).(*nearMissMemo)
	if m == nil {
		return s.nearMiss.find(r.Method, r.URL.Path)
	}
	if !m.done {
		m.misses, m.done = s.nearMiss.find(r.Method, r.URL.Path), true
	}
	return m.misses
}

// templateSegment is one segment of a route template.
type templateSegment struct {
	text     string // the literal, or the variable as written ({id})
	variable bool
	literal  int  // index in nearMissIndex.literals; -1 for a variable
	prefix   bool // "api" or "_sandbox" in first place: may be missing at a small cost
}

// routeCandidate is a route as the comparison reads it.
type routeCandidate struct {
	method, path string
	segs         []templateSegment
}

// nearMissIndex is the routes a request is compared with, built once with
// the Server.
type nearMissIndex struct {
	routes   []routeCandidate
	literals []string // the distinct literal segments of the templates
}

// newNearMissIndex reads the route tables, the pages, /metrics and /.
func newNearMissIndex(routes []*Route, pages []Page) *nearMissIndex {
	x := &nearMissIndex{}
	lits := map[string]int{}
	add := func(method, path string) {
		if len(x.routes) >= nearMissRoutes || !strings.HasPrefix(path, "/") {
			return
		}
		parts := strings.Split(path[1:], "/")
		c := routeCandidate{method: method, path: path, segs: make([]templateSegment, len(parts))}
		for i, p := range parts {
			seg := templateSegment{text: p, literal: -1}
			if len(p) >= 2 && p[0] == '{' && p[len(p)-1] == '}' {
				seg.variable = true
			} else {
				idx, ok := lits[p]
				if !ok {
					idx = len(x.literals)
					lits[p] = idx
					x.literals = append(x.literals, p)
				}
				seg.literal, seg.prefix = idx, i == 0 && (p == "api" || p == "_sandbox")
			}
			c.segs[i] = seg
		}
		x.routes = append(x.routes, c)
	}
	for _, rt := range routes {
		add(rt.Method, rt.Path)
	}
	for _, p := range pages {
		add(http.MethodGet, p.Path)
	}
	add(http.MethodGet, "/metrics")
	add(http.MethodGet, "/")
	return x
}

// segmentMatch is how a request's segment compares with a literal.
type segmentMatch struct {
	cost  int16 // costNever when they do not match
	kind  matchKind
	known bool
}

type matchKind uint8

const (
	matchSame matchKind = iota
	matchCase
	matchTypo
)

// comparison is one request compared with the index: its segments, their
// matches with the literals (computed when first needed) and the alignment
// tables, reused from route to route.
type comparison struct {
	x       *nearMissIndex
	method  string
	segs    []string
	matches []segmentMatch // len(segs) × len(x.literals)
	cost    []int
	steps   []step
	work    int // alignment cells filled and segments compared
}

type step uint8

const (
	stepStart   step = iota
	stepMatch        // the request's segment stands for the template's
	stepExtra        // the request's segment is not in the template
	stepMissing      // the template's segment is not in the request
)

// find returns the near misses of a request (nil when there are none or
// the path is beyond the bounds).
func (x *nearMissIndex) find(method, path string) []NearMiss {
	misses, _ := x.search(method, path)
	return misses
}

// search is find, and the work it did: alignment cells filled and segments
// compared with a literal (what the bounds limit).
func (x *nearMissIndex) search(method, path string) ([]NearMiss, int) {
	if len(path) > nearMissPathLimit || !strings.HasPrefix(path, "/") || strings.Count(path, "/") > nearMissSegments {
		return nil, 0
	}
	segs := strings.Split(path[1:], "/")
	c := &comparison{x: x, method: method, segs: segs, matches: make([]segmentMatch, len(segs)*len(x.literals))}
	misses := c.nearest()
	return misses, c.work
}

// nearest compares the request with every route and keeps the nearest.
func (c *comparison) nearest() []NearMiss {
	x, method, segs := c.x, c.method, c.segs
	type scored struct {
		miss NearMiss
		cost int
		same bool // same method
		at   int  // table order
	}
	var found []scored
	fits := false
	for at := range x.routes {
		rt := &x.routes[at]
		if abs(len(segs)-len(rt.segs)) > nearMissMaxCost {
			continue
		}
		pathCost, diffs, literal := c.align(rt)
		if pathCost == 0 && rt.method == method {
			// The request fits a route whose handler found nothing there (a
			// page's unknown file): the path is not a near miss of another.
			return nil
		}
		cost := pathCost
		if rt.method != method {
			cost += costMethod
			diffs = append([]string{"the method differs: " + quoteMethod(method) + " → " + rt.method}, diffs...)
		}
		if pathCost != 0 && (cost > nearMissMaxCost || !literal) {
			continue
		}
		m := NearMiss{Method: rt.method, Route: rt.path, Differences: diffs, fits: pathCost == 0}
		fits = fits || m.fits
		found = append(found, scored{miss: m, cost: cost, same: rt.method == method, at: at})
	}
	if len(found) == 0 {
		return nil
	}
	if fits {
		// The path is right: the routes it fits are the answer, all of them.
		var out []NearMiss
		for _, f := range found {
			if f.miss.fits {
				out = append(out, f.miss)
			}
		}
		return out
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		switch {
		case a.cost != b.cost:
			return a.cost - b.cost
		case a.same != b.same:
			if a.same {
				return -1
			}
			return 1
		}
		return a.at - b.at
	})
	var out []NearMiss
	for _, f := range found {
		if f.cost != found[0].cost || len(out) == nearMissShown {
			break
		}
		out = append(out, f.miss)
	}
	return out
}

// align compares the request's path with a route's template: the cheapest
// alignment's cost, its differences in path order, and whether a literal
// segment other than a prefix matched.
func (c *comparison) align(rt *routeCandidate) (cost int, diffs []string, literal bool) {
	n, m := len(c.segs), len(rt.segs)
	w := m + 1
	size := (n + 1) * w
	if cap(c.cost) < size {
		c.cost, c.steps = make([]int, size), make([]step, size)
	}
	dp, bp := c.cost[:size], c.steps[:size]
	c.work += size
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			best, how := costNever, stepStart
			if i == 0 && j == 0 {
				best = 0
			}
			if i > 0 {
				if v := dp[(i-1)*w+j] + c.extraCost(i-1, j); v < best {
					best, how = v, stepExtra
				}
			}
			if j > 0 {
				if v := dp[i*w+j-1] + missingCost(i, j-1, rt); v < best {
					best, how = v, stepMissing
				}
			}
			if i > 0 && j > 0 {
				if v := dp[(i-1)*w+j-1] + c.segmentCost(i-1, rt.segs[j-1]); v < best {
					best, how = v, stepMatch
				}
			}
			dp[i*w+j], bp[i*w+j] = min(best, costNever), how
		}
	}
	if dp[n*w+m] > nearMissMaxCost {
		return costNever, nil, false
	}
	return c.explain(rt, dp[n*w+m])
}

// explain walks the alignment back and words its differences; segments
// differing in case cost costCase together.
func (c *comparison) explain(rt *routeCandidate, cost int) (int, []string, bool) {
	n, m, w := len(c.segs), len(rt.segs), len(rt.segs)+1
	var ops []string
	var cased, typos []string
	literal := false
	for i, j := n, m; i > 0 || j > 0; {
		switch c.steps[i*w+j] {
		case stepMatch:
			i, j = i-1, j-1
			seg := rt.segs[j]
			if seg.variable {
				continue
			}
			literal = literal || (!seg.prefix && seg.text != "")
			switch c.match(i, seg.literal).kind {
			case matchCase:
				cased = append(cased, quoteSegment(c.segs[i])+" → "+quoteSegment(seg.text))
			case matchTypo:
				typos = append(typos, quoteSegment(c.segs[i])+" → "+quoteSegment(seg.text))
			}
		case stepExtra:
			i--
			ops = append(ops, c.extraText(i, j, m))
		case stepMissing:
			j--
			ops = append(ops, missingText(i, j, rt))
		default:
			return costNever, nil, false
		}
	}
	var diffs []string
	if len(typos) > 0 {
		slices.Reverse(typos)
		diffs = append(diffs, "the path differs in "+strings.Join(typos, ", "))
	}
	if len(cased) > 0 {
		slices.Reverse(cased)
		diffs = append(diffs, "the path differs in case: "+strings.Join(cased, ", "))
		cost += costCase
	}
	slices.Reverse(ops)
	return cost, append(diffs, ops...), literal
}

// segmentCost is the cost of the request's segment i standing for a
// template segment (a case difference costs nothing here: explain counts
// it once for the whole path).
func (c *comparison) segmentCost(i int, seg templateSegment) int {
	if seg.variable {
		if c.segs[i] == "" {
			return costNever
		}
		return 0
	}
	return int(c.match(i, seg.literal).cost)
}

// match compares the request's segment i with literal lit, once.
func (c *comparison) match(i, lit int) segmentMatch {
	p := &c.matches[i*len(c.x.literals)+lit]
	if !p.known {
		*p = compareSegment(c.segs[i], c.x.literals[lit])
		c.work++
	}
	return *p
}

// compareSegment compares a request's segment with a template's literal.
func compareSegment(got, want string) segmentMatch {
	switch {
	case got == want:
		return segmentMatch{cost: 0, kind: matchSame, known: true}
	case strings.EqualFold(got, want):
		return segmentMatch{cost: 0, kind: matchCase, known: true}
	}
	never := segmentMatch{cost: costNever, known: true}
	if got == "" || want == "" || len(got) > 4*nearMissSegmentRunes {
		return never
	}
	a, b := []rune(strings.ToLower(got)), []rune(strings.ToLower(want))
	if len(a) > nearMissSegmentRunes || len(b) > nearMissSegmentRunes {
		return never
	}
	d := editDistance(a, b, nearMissMaxEdits)
	if d > nearMissMaxEdits || 3*d > max(len(a), len(b)) {
		return never
	}
	return segmentMatch{cost: int16(costTypo + d), kind: matchTypo, known: true}
}

// editDistance is the Levenshtein distance of a and b, or limit+1 when it
// is above limit.
func editDistance(a, b []rune, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	var rows [2][nearMissSegmentRunes + 1]int
	prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit+1)
}

// extraPrefixes are first segments a request may carry before a route's
// path at a small cost: /api on a route without it, /_sandbox, and
// /public (the path the extended error shape writes).
var extraPrefixes = []string{"api", "_sandbox", "public"}

// extraCost is the cost of the request's segment i being in no route
// segment, j of the template's segments being matched before it.
func (c *comparison) extraCost(i, j int) int {
	if seg := c.segs[i]; seg == "" || i == 0 && j == 0 && isExtraPrefix(seg) {
		return costAffix
	}
	return costSegment
}

// extraText words an extra segment (extraCost), m being the template's
// number of segments.
func (c *comparison) extraText(i, j, m int) string {
	seg := c.segs[i]
	switch {
	case seg == "" && i == len(c.segs)-1 && j == m:
		return "the path has a trailing slash"
	case seg == "":
		return "the path has an empty segment (//)"
	case i == 0 && j == 0 && isExtraPrefix(seg):
		return "the path has an extra /" + strings.ToLower(seg) + " prefix"
	}
	return "the path has an extra segment " + quoteSegment(seg)
}

// isExtraPrefix reports whether seg is one of extraPrefixes, in any case.
func isExtraPrefix(seg string) bool {
	for _, p := range extraPrefixes {
		if strings.EqualFold(seg, p) {
			return true
		}
	}
	return false
}

// missingCost is the cost of the template's segment j being absent, i of
// the request's segments being matched before it.
func missingCost(i, j int, rt *routeCandidate) int {
	if i == 0 && rt.segs[j].prefix {
		return costAffix
	}
	return costSegment
}

// missingText words a missing segment (missingCost).
func missingText(i, j int, rt *routeCandidate) string {
	seg := rt.segs[j]
	switch {
	case i == 0 && seg.prefix:
		return "the path lacks the /" + seg.text + " prefix"
	case seg.variable:
		return "the path lacks the " + seg.text + " segment"
	}
	return "the path lacks the segment " + quoteSegment(seg.text)
}

// quoteSegment quotes a segment for a message: in single quotes, cut at
// nearMissTextLimit bytes, control and invisible characters escaped.
func quoteSegment(s string) string {
	q := strconv.QuoteToGraphic(pix.ClipMark(s, nearMissTextLimit, "…"))
	return "'" + q[1:len(q)-1] + "'"
}

// quoteMethod is a request's method for a message (any token a client sent).
func quoteMethod(m string) string {
	if len(m) <= 16 && strings.IndexFunc(m, func(r rune) bool { return r <= ' ' || r > '~' }) < 0 {
		return m
	}
	return quoteSegment(m)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
