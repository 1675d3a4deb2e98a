package framework

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// SkipRouteAbsent starts the reason given when a check is not run because the
// target lacks its route; the coverage report counts such checks as absent.
const SkipRouteAbsent = "route absent on target: "

// unknownRoutePrefix is prepended to a route's path to make the sibling
// request that tells the target's answer to an unknown route.
const unknownRoutePrefix = "/pixsandbox-conformance-no-such-route"

// RouteProbe says how to establish that the target implements a route of the
// specification before the route's checks run. The probe sends a well-formed
// request that changes nothing (a body the route must refuse, a read) and the
// same request to a path no implementation has; the route is absent when the
// two answers are alike (the target's generic not-found) or the route's
// answer is 405 or 501.
type RouteProbe struct {
	// Route names the route as the specification writes it, e.g.
	// "PUT /cob/{txid}".
	Route string
	// Method is the HTTP method of the probe.
	Method string
	// Path returns the concrete path of the probe, e.g. "/cob/<fresh txid>".
	Path func() string
	// Body is the probe's JSON body, or nil. It must not be a request the
	// route accepts when it would change something.
	Body []byte
	// Public marks the token route: it takes no bearer token, and its path
	// is the run's token path (-token-path) rather than Path's.
	Public bool
	// Checks matches the full text of the checks of the route; they run only
	// when the route is present.
	Checks Matcher
}

// RoutePresence is what a probe found.
type RoutePresence struct {
	// Route is the probe's route.
	Route string `json:"route"`
	// Present reports whether the target implements the route.
	Present bool `json:"present"`
	// Evidence says what the route and the unknown route answered.
	Evidence string `json:"evidence"`
}

var (
	routeProbes []RouteProbe
	routeMu     sync.Mutex
	routeFound  = map[string]RoutePresence{}
)

// RegisterRoutes adds route probes; package conformance registers one per
// route of the specification.
func RegisterRoutes(probes ...RouteProbe) { routeProbes = append(routeProbes, probes...) }

// RouteProbes returns the registered probes, in registration order.
func RouteProbes() []RouteProbe { return slices.Clone(routeProbes) }

// probeFor returns the probe whose Checks match a check's full text.
func probeFor(fullText string) (RouteProbe, bool) {
	for _, p := range routeProbes {
		if p.Checks != nil && p.Checks.MatchString(fullText) {
			return p, true
		}
	}
	return RouteProbe{}, false
}

// routePresence probes p's route once per run (later calls return the first
// answer). token is sent on protected routes, on both requests.
func routePresence(ctx context.Context, c *apiclient.Client, p RouteProbe, token string) (RoutePresence, error) {
	routeMu.Lock()
	defer routeMu.Unlock()
	if rp, ok := routeFound[p.Route]; ok {
		return rp, nil
	}
	path := p.Path()
	if p.Public {
		token = ""
		if c.TokenPath != "" {
			path = c.TokenPath
		}
	}
	route, err := c.Do(ctx, p.Method, path, token, p.Body, nil)
	if err != nil {
		return RoutePresence{}, err
	}
	unknown, err := c.Do(ctx, p.Method, unknownRoutePrefix+path, token, p.Body, nil)
	if err != nil {
		return RoutePresence{}, err
	}
	rp := judgeRoute(p.Route, route, unknown)
	routeFound[p.Route] = rp
	return rp, nil
}

// judgeRoute decides presence from the route's answer and the answer to the
// same request on an unknown path.
func judgeRoute(name string, route, unknown *apiclient.Response) RoutePresence {
	rp := RoutePresence{Route: name, Present: true}
	switch {
	case route.Status == http.StatusMethodNotAllowed || route.Status == http.StatusNotImplemented:
		rp.Present = false
		rp.Evidence = fmt.Sprintf("%s %s answered %d", route.Method, route.Path, route.Status)
	case route.Status == unknown.Status && normalizeAnswer(route) == normalizeAnswer(unknown):
		rp.Present = false
		rp.Evidence = fmt.Sprintf("%s %s answered %d like the unknown route %s (%s)",
			route.Method, route.Path, route.Status, unknown.Path, oneLine(apiclient.Snippet(route.Body), 160))
	default:
		rp.Evidence = fmt.Sprintf("%s %s answered %d; the unknown route %s answered %d",
			route.Method, route.Path, route.Status, unknown.Path, unknown.Status)
	}
	return rp
}

var (
	volatileTimestamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?`)
	volatileUUID      = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	volatileToken     = regexp.MustCompile(`[A-Za-z0-9_\-]{16,}|\d+`)
)

// normalizeAnswer is a response's body with what differs between two answers
// of the same handler removed: the request's path and method, timestamps,
// UUIDs, long identifiers and numbers.
func normalizeAnswer(r *apiclient.Response) string {
	s := string(r.Body)
	path, _, _ := strings.Cut(r.Path, "?")
	for _, p := range []string{r.Path, path, strings.TrimPrefix(path, unknownRoutePrefix)} {
		if p != "" && p != "/" {
			s = strings.ReplaceAll(s, p, "{path}")
		}
	}
	s = strings.ReplaceAll(s, unknownRoutePrefix, "")
	s = strings.ReplaceAll(s, r.Method, "{method}")
	s = volatileTimestamp.ReplaceAllString(s, "{time}")
	s = volatileUUID.ReplaceAllString(s, "{uuid}")
	return volatileToken.ReplaceAllString(s, "#")
}

func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

// RoutesFound returns what the probes of this run found, in probe order.
func RoutesFound() []RoutePresence {
	routeMu.Lock()
	defer routeMu.Unlock()
	var out []RoutePresence
	for _, p := range routeProbes {
		if rp, ok := routeFound[p.Route]; ok {
			out = append(out, rp)
		}
	}
	return out
}

// requireRoute skips the current check when its route is absent on the
// target; it probes the route first when no check of it has yet.
func (f *Framework) requireRoute(ctx context.Context) {
	p, ok := probeFor(ginkgo.CurrentSpecReport().FullText())
	if !ok {
		return
	}
	if rp := f.presence(ctx, p); !rp.Present {
		ginkgo.Skip(SkipRouteAbsent + p.Route + ": " + rp.Evidence)
	}
}

// RoutePresent reports whether the target implements route, the Route of a
// registered RouteProbe (e.g. "PUT /cob/{txid}"), probing it first when no
// check of it has yet. A check that spans several routes uses it to check
// only those the target has.
func (f *Framework) RoutePresent(ctx context.Context, route string) bool {
	for _, p := range routeProbes {
		if p.Route == route {
			return f.presence(ctx, p).Present
		}
	}
	ginkgo.Fail("no route probe is registered for " + route)
	return false
}

// Needs declares a route the current check reads to judge another (its
// dependency, e.g. GET /accounts/balances to see what a cash-out moved):
// when the target lacks it, the check ends absent, counted with the route,
// instead of failing on a read the target cannot answer. The check's own
// route needs no declaring (requireRoute).
func (f *Framework) Needs(ctx context.Context, route string) {
	for _, p := range routeProbes {
		if p.Route == route {
			if rp := f.presence(ctx, p); !rp.Present {
				ginkgo.Skip(SkipRouteAbsent + route + ": " + NeededBy + rp.Evidence)
			}
			return
		}
	}
	ginkgo.Fail("no route probe is registered for " + route)
}

// NeededBy starts the evidence of a route absent that a check needed to
// read rather than tested.
const NeededBy = "the check reads it to judge its own route; "

// presence returns what p's probe found, sending it with a fresh token of
// the check's account when no check has probed the route yet. Fresh: a check
// may have moved the clock past its cached token's lifetime before it reads
// another route (f.Needs), and a probe with an expired token meets 401 on
// the route and on the unknown path alike, which reads as absent.
func (f *Framework) presence(ctx context.Context, p RouteProbe) RoutePresence {
	routeMu.Lock()
	_, known := routeFound[p.Route]
	routeMu.Unlock()
	token := ""
	if !known && !p.Public && !f.opts.noIdentity {
		f.ForgetToken()
		token = f.Token(ctx)
	}
	rp, err := routePresence(ctx, f.Client, p, token)
	if err != nil {
		ginkgo.Fail(fmt.Sprintf("probing %s on the target: %v", p.Route, err))
	}
	return rp
}
