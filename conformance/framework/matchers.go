package framework

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/onsi/gomega/format"
	"github.com/onsi/gomega/types"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/codec"
)

// The matchers below accept as actual value a *Response or Response; those
// that only read the body also accept a *Delivery or Delivery, a []byte or
// json.RawMessage holding JSON, or an already decoded value (map[string]any,
// []any). They read JSON tolerantly: unknown fields are fine, specified fields
// are exact.

// checkMatcher is a matcher made of a check that lists every problem found.
type checkMatcher struct {
	desc     string
	check    func(actual any) ([]string, error)
	problems []string
}

// Match implements types.GomegaMatcher, recording the problems found.
func (m *checkMatcher) Match(actual any) (bool, error) {
	p, err := m.check(actual)
	m.problems = p
	if err != nil {
		return false, err
	}
	return len(p) == 0, nil
}

// FailureMessage implements types.GomegaMatcher, listing every problem.
func (m *checkMatcher) FailureMessage(actual any) string {
	return fmt.Sprintf("Expected\n%s\nto %s, but:\n  - %s", describe(actual), m.desc, strings.Join(m.problems, "\n  - "))
}

// NegatedFailureMessage implements types.GomegaMatcher.
func (m *checkMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected\n%s\nnot to %s", describe(actual), m.desc)
}

// describe renders an actual value for failure messages; responses and
// deliveries show their request line and body.
func describe(actual any) string {
	switch a := actual.(type) {
	case *apiclient.Response:
		return "    " + a.String()
	case apiclient.Response:
		return "    " + a.String()
	case *Delivery:
		return "    " + a.String()
	case Delivery:
		return "    " + a.String()
	case []byte:
		return "    " + apiclient.Snippet(a)
	case json.RawMessage:
		return "    " + apiclient.Snippet(a)
	}
	return format.Object(actual, 1)
}

// asResponse extracts a Response from actual.
func asResponse(actual any) (*apiclient.Response, error) {
	switch a := actual.(type) {
	case *apiclient.Response:
		if a == nil {
			return nil, fmt.Errorf("expected a *framework.Response, got nil")
		}
		return a, nil
	case apiclient.Response:
		return &a, nil
	}
	return nil, fmt.Errorf("expected a *framework.Response, got %s", format.Object(actual, 1))
}

// jsonOf returns the decoded JSON value carried by actual.
func jsonOf(actual any) (any, error) {
	var body []byte
	switch a := actual.(type) {
	case *apiclient.Response:
		if a == nil {
			return nil, fmt.Errorf("expected a response, got nil")
		}
		body = a.Body
	case apiclient.Response:
		body = a.Body
	case *Delivery:
		if a == nil {
			return nil, fmt.Errorf("expected a delivery, got nil")
		}
		body = a.Body
	case Delivery:
		body = a.Body
	case []byte:
		body = a
	case json.RawMessage:
		body = a
	case map[string]any, []any:
		return a, nil
	default:
		return nil, fmt.Errorf("expected a response, delivery, JSON bytes or decoded JSON, got %s", format.Object(actual, 1))
	}
	v, err := apiclient.DecodeJSON(body)
	if err != nil {
		return nil, errNotJSON{err}
	}
	return v, nil
}

// errNotJSON is a body that does not decode; matchers report it as a problem,
// not as a matcher error, so that the failure message shows the body.
type errNotJSON struct{ err error }

// Error implements error.
func (e errNotJSON) Error() string { return "body is not JSON: " + e.err.Error() }

// HaveStatus succeeds when the response has the given HTTP status. Its failure
// message shows the request and the response body.
func HaveStatus(code int) types.GomegaMatcher {
	return &checkMatcher{
		desc: fmt.Sprintf("have status %d", code),
		check: func(actual any) ([]string, error) {
			r, err := asResponse(actual)
			if err != nil {
				return nil, err
			}
			if r.Status != code {
				return []string{fmt.Sprintf("status is %d", r.Status)}, nil
			}
			return nil, nil
		},
	}
}

// HaveSuccessStatus succeeds when the response status is 2xx.
func HaveSuccessStatus() types.GomegaMatcher {
	return &checkMatcher{
		desc: "have a 2xx status",
		check: func(actual any) ([]string, error) {
			r, err := asResponse(actual)
			if err != nil {
				return nil, err
			}
			if r.Status < 200 || r.Status > 299 {
				return []string{fmt.Sprintf("status is %d", r.Status)}, nil
			}
			return nil, nil
		},
	}
}

// HaveJSONField succeeds when the JSON body has a value at path (see Lookup)
// that matches value. value may be a Gomega matcher, applied to the decoded
// field (numbers are json.Number); a Go number, compared numerically with the
// field's decimal text; nil, meaning JSON null; or any other value, compared
// with reflect.DeepEqual.
func HaveJSONField(path string, value any) types.GomegaMatcher {
	return &jsonFieldMatcher{path: path, value: value}
}

type jsonFieldMatcher struct {
	path    string
	value   any
	problem string
}

// Match implements types.GomegaMatcher.
func (m *jsonFieldMatcher) Match(actual any) (bool, error) {
	v, err := jsonOf(actual)
	if err != nil {
		if _, ok := err.(errNotJSON); ok {
			m.problem = err.Error()
			return false, nil
		}
		return false, err
	}
	got, ok := apiclient.Lookup(v, m.path)
	if !ok {
		m.problem = fmt.Sprintf("%s is absent", m.path)
		return false, nil
	}
	if inner, isMatcher := m.value.(types.GomegaMatcher); isMatcher {
		ok, err := inner.Match(got)
		if err != nil {
			return false, fmt.Errorf("%s: %w", m.path, err)
		}
		if !ok {
			m.problem = fmt.Sprintf("%s: %s", m.path, inner.FailureMessage(got))
		}
		return ok, nil
	}
	if want, isNum := apiclient.NumberText(m.value); isNum {
		n, isJSONNum := got.(json.Number)
		if !isJSONNum || !apiclient.SameNumber(string(n), want) {
			m.problem = fmt.Sprintf("%s is %s, want the number %s", m.path, format.Object(got, 0), want)
			return false, nil
		}
		return true, nil
	}
	if !reflect.DeepEqual(got, m.value) {
		m.problem = fmt.Sprintf("%s is %s, want %s", m.path, format.Object(got, 0), format.Object(m.value, 0))
		return false, nil
	}
	return true, nil
}

// FailureMessage implements types.GomegaMatcher.
func (m *jsonFieldMatcher) FailureMessage(actual any) string {
	return fmt.Sprintf("Expected\n%s\nto have JSON field %s matching %v, but %s", describe(actual), m.path, m.value, m.problem)
}

// NegatedFailureMessage implements types.GomegaMatcher.
func (m *jsonFieldMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected\n%s\nnot to have JSON field %s matching %v", describe(actual), m.path, m.value)
}

// HaveJSONNumber succeeds when the JSON body has a number (not a string) at
// path.
func HaveJSONNumber(path string) types.GomegaMatcher {
	return &checkMatcher{
		desc: fmt.Sprintf("have a JSON number at %s", path),
		check: bodyCheck(func(v any) []string {
			got, ok := apiclient.Lookup(v, path)
			if !ok {
				return []string{path + " is absent"}
			}
			if _, ok := got.(json.Number); !ok {
				return []string{fmt.Sprintf("%s is %s, not a number", path, format.Object(got, 0))}
			}
			return nil
		}),
	}
}

// bodyCheck adapts a check of decoded JSON to a checkMatcher check.
func bodyCheck(f func(v any) []string) func(actual any) ([]string, error) {
	return func(actual any) ([]string, error) {
		v, err := jsonOf(actual)
		if err != nil {
			if _, ok := err.(errNotJSON); ok {
				return []string{err.Error()}, nil
			}
			return nil, err
		}
		return f(v), nil
	}
}

// HaveErrorCode succeeds when the error body carries the machine code in
// "errorCode" or, failing that, in "code". The specification's table
// "Errors > Cash-out and cash-in codes" heads its column "code or errorCode":
// business errors of the extended shape add errorCode next to a generic code
// (such as HTTP_ERROR), while the token endpoint and validation errors carry
// only code. Clients branch on whichever holds the specific code, so the
// matcher looks at errorCode first, then at code.
//
// On a response of a route of the contract, a code the contract lists for
// the route must also come with a status the contract gives it: the table of
// codes and statuses per route is contract.Routes, the one the validating
// proxy's resp.error-code-status applies. A code the contract does not list
// for the route (a sandbox's own, such as SANDBOX_UNKNOWN_SCENARIO) is left to
// the check.
func HaveErrorCode(code string) types.GomegaMatcher {
	carries := bodyCheck(func(v any) []string {
		ec, hasEC := apiclient.Lookup(v, "errorCode")
		if hasEC && ec == code {
			return nil
		}
		c, hasC := apiclient.Lookup(v, "code")
		if hasC && c == code {
			return nil
		}
		switch {
		case hasEC && hasC:
			return []string{fmt.Sprintf("errorCode is %s and code is %s", format.Object(ec, 0), format.Object(c, 0))}
		case hasEC:
			return []string{fmt.Sprintf("errorCode is %s and code is absent", format.Object(ec, 0))}
		case hasC:
			return []string{fmt.Sprintf("code is %s and errorCode is absent", format.Object(c, 0))}
		}
		return []string{"neither errorCode nor code is present"}
	})
	return &checkMatcher{
		desc: fmt.Sprintf("carry error code %s (in errorCode or code)", code),
		check: func(actual any) ([]string, error) {
			problems, err := carries(actual)
			if err != nil || len(problems) > 0 {
				return problems, err
			}
			if r, err := asResponse(actual); err == nil {
				problems = codeStatusProblems(r, code)
			}
			return problems, nil
		},
	}
}

// codeStatusProblems says when the contract lists code for r's route with
// other statuses than r's.
func codeStatusProblems(r *apiclient.Response, code string) []string {
	path, _, _ := strings.Cut(r.Path, "?")
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	rt, _ := contract.Match(r.Method, path)
	if rt == nil {
		return nil
	}
	statuses, listed := rt.CodeStatuses(code)
	if !listed || slices.Contains(statuses, r.Status) {
		return nil
	}
	want := make([]string, len(statuses))
	for i, s := range statuses {
		want[i] = strconv.Itoa(s)
	}
	return []string{fmt.Sprintf("the contract gives %s on %s the status %s, not %d", code, rt, strings.Join(want, " or "), r.Status)}
}

// shapeMatcher builds a matcher of an error shape of "Errors > Shapes": the
// rule is contract.ShapeProblems, which the validating proxy applies too.
func shapeMatcher(desc string, shape contract.Shape) types.GomegaMatcher {
	return &checkMatcher{
		desc: desc,
		check: func(actual any) ([]string, error) {
			r, err := asResponse(actual)
			if err != nil {
				return nil, err
			}
			v, err := apiclient.DecodeJSON(r.Body)
			if err != nil {
				return []string{"body is not JSON: " + err.Error()}, nil
			}
			var problems []string
			for _, p := range contract.ShapeProblems(shape, v, r.Status, r.Method) {
				problems = append(problems, p.String())
			}
			return problems, nil
		},
	}
}

// HaveTokenErrorShape succeeds when the response body has the token
// endpoint's error shape ("Errors > Shapes", item 1): statusCode equal to the
// HTTP status, timestamp in ISO 8601, path, method (the request's), code,
// message, userMessage, details as an object with a string hint, and a
// non-empty errorId.
func HaveTokenErrorShape() types.GomegaMatcher {
	return shapeMatcher("have the token endpoint's error shape", contract.TokenShape)
}

// HaveMinimalErrorShape succeeds when the response body has the minimal error
// shape ("Errors > Shapes", item 3): statusCode equal to the HTTP status,
// message as a string or an array of strings, and error as a string.
func HaveMinimalErrorShape() types.GomegaMatcher {
	return shapeMatcher("have the minimal error shape", contract.MinimalShape)
}

// HaveExtendedErrorShape succeeds when the response body has the extended
// error shape of cash-out and cash-in ("Errors > Shapes", item 2): statusCode
// equal to the HTTP status, timestamp in ISO 8601, path starting with
// "/public", method (the request's), code, message as a string or an array of
// strings, userMessage, a non-empty errorId and error.
func HaveExtendedErrorShape() types.GomegaMatcher {
	return shapeMatcher("have the extended error shape", contract.ExtendedShape)
}

// BeISO8601 succeeds when actual is a string in one of the ISO 8601 forms
// ParseISO8601 accepts.
func BeISO8601() types.GomegaMatcher {
	return &checkMatcher{
		desc: "be an ISO 8601 date-time",
		check: func(actual any) ([]string, error) {
			s, ok := actual.(string)
			if !ok {
				return []string{fmt.Sprintf("%s is not a string", format.Object(actual, 0))}, nil
			}
			if _, err := apiclient.ParseISO8601(s); err != nil {
				return []string{err.Error()}, nil
			}
			return nil, nil
		},
	}
}

// BeDecimal2Number succeeds when actual is a JSON number (json.Number, from a
// decoder with UseNumber) whose text has at most two decimal places and no
// exponent, as the specification writes money on the standard routes.
func BeDecimal2Number() types.GomegaMatcher {
	return &checkMatcher{
		desc: "be a JSON number with at most 2 decimal places",
		check: func(actual any) ([]string, error) {
			switch n := actual.(type) {
			case json.Number:
				if !apiclient.Decimal2.MatchString(string(n)) {
					return []string{fmt.Sprintf("%s has more than 2 decimal places or is not plain decimal text", n)}, nil
				}
				return nil, nil
			case float32, float64:
				return nil, fmt.Errorf("got %T %v: decode JSON with UseNumber to check its text", actual, actual)
			}
			return []string{fmt.Sprintf("%s is not a JSON number", format.Object(actual, 0))}, nil
		},
	}
}

// BeValidBRCode succeeds when actual is a string holding a valid PIX BR Code
// (design/DOMAIN.md A1): printable ASCII only; starting with "000201"; a
// well-formed TLV structure whose last field, 63, holds the
// CRC-16/CCITT-FALSE of the rest in uppercase hex; template 26 with GUI
// br.gov.bcb.pix and a key or a location; 52 of 4 digits; 53 = 986; 54, when
// present, a decimal of at most 13 characters; 58 = BR; 59 of 1 to 25
// characters and 60 of 1 to 15. The contract accepts a static or a dynamic
// code, so a code that marks itself single-use (point of initiation 12) is
// not required a location URL here: the Central Bank's rules of a dynamic
// code's location are codec.BRCode.LocationURLProblems, checked with the
// sandbox's dynamic form (cob/br-code-form, a sandbox choice).
func BeValidBRCode() types.GomegaMatcher {
	return &checkMatcher{
		desc: "be a valid PIX BR Code",
		check: func(actual any) ([]string, error) {
			s, ok := actual.(string)
			if !ok {
				return []string{fmt.Sprintf("%s is not a string", format.Object(actual, 0))}, nil
			}
			return codec.BRCodeProblems(s), nil
		},
	}
}
