package conformance

import (
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// The error shapes of "Errors > Shapes" are checked here, each by its own
// check; the checks of the rules (a status, a code, a field named) do not look
// at the body's format. A target whose errors follow another format (RFC 7807
// problem details, say) then fails one check per shape, named for the shape,
// and not every check of a status it got right.

// shapeProblems sends each route's request and returns, for every route
// present on the target that answered an error, the error's violations of
// want; routes answering no error are listed in noError.
func shapeProblems(ctx ginkgo.SpecContext, f *framework.Framework, routes []protectedRoute, token string, want types.GomegaMatcher) (checked int, problems, noError []string) {
	ginkgo.GinkgoHelper()
	for _, r := range routes {
		if !f.RoutePresent(ctx, r.String()) {
			continue
		}
		resp := callProtected(ctx, f, r, token)
		if resp.Status < 400 {
			noError = append(noError, resp.String())
			continue
		}
		checked++
		if ok, err := want.Match(resp); err != nil || !ok {
			problems = append(problems, r.String()+": "+want.FailureMessage(resp))
		}
	}
	return checked, problems, noError
}

// expectShape fails the check with every route's problems, or skips it when
// no route of the shape answered an error (absent routes, or a target that
// accepted every request).
func expectShape(shapeName string, checked int, problems, noError []string) {
	ginkgo.GinkgoHelper()
	if checked == 0 {
		reason := framework.SkipRouteAbsent + "no route answering in the " + shapeName + " is present on the target"
		if len(noError) > 0 {
			reason = "no route answered an error to check the " + shapeName + " of: " + strings.Join(noError, "; ")
		}
		ginkgo.Skip(reason)
	}
	gomega.Expect(problems).To(gomega.BeEmpty(), "the %s on %d routes", shapeName, checked)
}

// routesWhere returns the protected routes of the specification (not the
// sandbox's additions) that keep.
func routesWhere(keep func(protectedRoute) bool) []protectedRoute {
	var out []protectedRoute
	for _, r := range protectedRoutes {
		if !r.choice() && keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// invalidBody is the body of the extended-shape check: an empty object, which
// breaks every required field of cash-out and cash-in.
func invalidBody(*framework.Framework) []byte { return []byte(`{}`) }

var _ = ginkgo.Describe("Errors > Shapes", framework.Res("errors"), func() {
	f := framework.New("errors")

	/*
		Check: errors/token-shape
		Spec: "Errors > Shapes", item 1 (token endpoint: statusCode, timestamp, path, method, code, message, userMessage, details with hint, errorId); "Errors > Token endpoint codes", PUB_CERT_HEADER_MISSING
		Description: A token request without X-SSL-Client-Cert MUST be answered with an error in
		the token endpoint's shape: statusCode equal to the status, an ISO 8601 timestamp, path,
		the request's method, code, message, userMessage, details.hint and errorId.
	*/
	framework.SpecIt("answers the token endpoint's errors in the token error shape", framework.FamilyStd, func(ctx ginkgo.SpecContext) {
		if !f.RoutePresent(ctx, "POST "+apiclient.TokenPath) {
			ginkgo.Skip(framework.SkipRouteAbsent + "the token route")
		}
		r := f.RequestToken(ctx, apiclient.TokenRequest{Body: []byte(`{}`)})
		gomega.Expect(r.Status).To(gomega.BeNumerically(">=", 400), "a token request without a certificate: %s", r)
		gomega.Expect(r).To(framework.HaveTokenErrorShape())
	})

	/*
		Check: errors/extended-shape
		Spec: "Errors > Shapes", item 2 (cash-out, cash-in: statusCode, timestamp, path with the /public prefix, method, code, message a string or an array of strings, userMessage, errorId, error)
		Description: POST /api/pix/cash-out and POST /api/pix/cash-in with the body {} MUST answer
		an error in the extended shape, on each of the two routes the target has.
	*/
	framework.SpecIt("answers cash-out and cash-in errors in the extended error shape", framework.FamilyStd, func(ctx ginkgo.SpecContext) {
		routes := routesWhere(func(r protectedRoute) bool { return r.extended() })
		for i := range routes {
			routes[i].body = invalidBody
		}
		checked, problems, noError := shapeProblems(ctx, f, routes, f.Token(ctx), framework.HaveExtendedErrorShape())
		expectShape("extended error shape", checked, problems, noError)
	})

	/*
		Check: errors/minimal-shape
		Spec: "Errors > Shapes", item 3 (other routes: statusCode, message, error); "Authentication", rule 6
		Description: Every protected route of the specification other than cash-out and cash-in,
		sent its plausible request without a token, MUST answer its error (401) in the minimal
		shape: statusCode equal to the status, message and error; on each route the target has.
	*/
	framework.SpecIt("answers the other routes' errors in the minimal error shape", func(ctx ginkgo.SpecContext) {
		routes := routesWhere(func(r protectedRoute) bool { return !r.extended() })
		checked, problems, noError := shapeProblems(ctx, f, routes, "", framework.HaveMinimalErrorShape())
		expectShape("minimal error shape", checked, problems, noError)
	})
})
